package actions

// A fuzz target for templates with hostile values: whatever an argument
// holds (template syntax, URL syntax, quotes, control bytes, bad UTF-8),
// it is data, never template code, and each function escapes it for its
// destination. `make fuzz` runs it for FUZZTIME; `make test` for a few
// seconds. Seeds are in testdata/fuzz/FuzzTemplateValues/.

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcptray/mcptray/catalog"
)

func FuzzTemplateValues(f *testing.F) {
	for _, v := range []string{"plain", "{{.server.db}}", `{{secret "token"}}`, "../../etc/passwd", "a/b?c#d e%zz",
		"\"quoted\" \\ back", "line\nbreak\r\x00", "\xff\xfe", "日本語", "<no value>"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		data := &Data{Args: map[string]any{"v": v}, Server: map[string]string{"db": "/the/db"},
			Secret: func(string) (string, error) {
				t.Fatal("a value was run as a template: it resolved a secret")
				return "", nil
			}}
		render := func(src string) string {
			t.Helper()
			out, err := Render(catalog.Template(src), data)
			if err != nil {
				t.Fatalf("%s over %q: %v", src, v, err)
			}
			return out
		}
		// Rendered as it is, never evaluated, "<no value>" included.
		if got := render("{{.args.v}}"); got != v {
			t.Fatalf("{{.args.v}} rendered %q as %q", v, got)
		}
		esc := render("{{pathescape .args.v}}")
		if strings.ContainsAny(esc, "/?#") {
			t.Fatalf("pathescape left a path, query or fragment separator in %q", esc)
		}
		if back, err := url.PathUnescape(esc); err != nil || back != v {
			t.Fatalf("pathescape %q gave %q, which unescapes to %q (%v)", v, esc, back, err)
		}
		var back string
		if err := json.Unmarshal([]byte(render("{{json .args.v}}")), &back); err != nil {
			t.Fatalf("json of %q is not JSON: %v", v, err)
		}
		if utf8.ValidString(v) && back != v {
			t.Fatalf("json of %q decodes to %q", v, back)
		}
		// A structured template keeps its shape, whatever the value.
		got, err := renderJSON(json.RawMessage(`{"k":["{{.args.v}}",1]}`), data)
		if err != nil {
			t.Fatalf("structured over %q: %v", v, err)
		}
		if m, ok := got.(map[string]any); !ok || len(m["k"].([]any)) != 2 {
			t.Fatalf("structured over %q changed shape: %#v", v, got)
		}
	})
}
