package actions

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/catalog"
)

// straddle is a secret and an output whose cap falls inside it: the first
// half of the value lies before the cut.
const straddleSecret = "s3cr3t-ABCDEFGHIJKLMNOP"

// leaks reports whether s holds any piece of the secret long enough to
// matter (6 bytes: the value's first half is 11).
func leaks(s string) bool {
	for i := 0; i+6 <= len(straddleSecret); i++ {
		if strings.Contains(s, straddleSecret[i:i+6]) {
			return true
		}
	}
	return false
}

// TestSecretStraddlingTheCutNeverLeaks: output is redacted before any cap
// cuts it — a command's stdout and stderr (maxOutputBytes), a streamed line
// (cut at 4 KiB), an http body (maxBytes) — so a secret the cap falls in
// neither shows its beginning nor its end.
func TestSecretStraddlingTheCutNeverLeaks(t *testing.T) {
	data := func() *Data { return &Data{Secret: secrets(map[string]string{"api": straddleSecret})} }
	const limit = 100
	pad := strings.Repeat("x", limit-len(straddleSecret)/2) // the cut falls mid-secret

	t.Run("command", func(t *testing.T) {
		requireUnix(t)
		c := &catalog.Command{
			Argv:           []catalog.Template{"sh", "-c", `printf '%s%s tail' "$1" "$T"; printf '%s%s tail' "$1" "$T" >&2; exit 3`, "sh", catalog.Template(pad)},
			Env:            map[string]catalog.Template{"T": `{{secret "api"}}`},
			MaxOutputBytes: limit,
		}
		out, err := CommandOutput(context.Background(), c, data())
		if err != nil {
			t.Fatal(err)
		}
		for name, b := range map[string][]byte{"stdout": out.Stdout, "stderr": out.Stderr} {
			if leaks(string(b)) || !strings.HasPrefix(string(b), pad) {
				t.Errorf("%s kept %q: a piece of the secret got through the cut", name, b)
			}
			if !strings.HasSuffix(string(b), "[secret:api]") {
				t.Errorf("%s kept %q, want the secret redacted whole at the cut", name, b)
			}
		}
		if !out.StdoutTruncated || !out.StderrTruncated {
			t.Errorf("truncated: stdout %v, stderr %v", out.StdoutTruncated, out.StderrTruncated)
		}
		res, err := runCommand(context.Background(), c, data(), nil)
		if err != nil || leaks(text(t, res)) {
			t.Errorf("result %q, %v", text(t, res), err)
		}
	})

	t.Run("a secret starting at the cut is dropped", func(t *testing.T) {
		requireUnix(t)
		c := &catalog.Command{
			Argv:           []catalog.Template{"sh", "-c", `printf '%s%s' "$1" "$T"`, "sh", catalog.Template(strings.Repeat("y", limit))},
			Env:            map[string]catalog.Template{"T": `{{secret "api"}}`},
			MaxOutputBytes: limit,
		}
		out, err := CommandOutput(context.Background(), c, data())
		if err != nil || string(out.Stdout) != strings.Repeat("y", limit) {
			t.Errorf("kept %q, %v", out.Stdout, err)
		}
	})

	t.Run("streamed line", func(t *testing.T) {
		requireUnix(t)
		long := strings.Repeat("z", maxStreamLine-len(straddleSecret)/2)
		c := &catalog.Command{
			Argv:   []catalog.Template{"sh", "-c", `printf '%s%s more\nshort %s\n' "$1" "$T" "$T"`, "sh", catalog.Template(long)},
			Env:    map[string]catalog.Template{"T": `{{secret "api"}}`},
			Stream: "progress",
		}
		rec := &streamRecorder{}
		if _, err := runCommand(context.Background(), c, data(), rec); err != nil {
			t.Fatal(err)
		}
		lines := rec.all()
		if len(lines) != 2 {
			t.Fatalf("streamed %d lines, want 2", len(lines))
		}
		for _, l := range lines {
			if leaks(l.msg) {
				t.Errorf("streamed %.40q…%q: a piece of the secret got through", l.msg, l.msg[max(0, len(l.msg)-40):])
			}
		}
		if !strings.HasSuffix(lines[0].msg, "[secret:api]…") || lines[1].msg != "short [secret:api]" {
			t.Errorf("lines end %q and are %q", lines[0].msg[len(lines[0].msg)-20:], lines[1].msg)
		}
	})

	t.Run("http body", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			// The server echoes the secret it was sent.
			fmt.Fprintf(w, "%s%s and more", pad, r.Header.Get("Authorization"))
		}))
		defer srv.Close()
		h := &catalog.HTTP{URL: catalog.Template(srv.URL), Headers: map[string]catalog.Template{"Authorization": `{{secret "api"}}`}, MaxBytes: limit}
		resp, err := Fetch(context.Background(), h, data())
		if err != nil {
			t.Fatal(err)
		}
		if leaks(string(resp.Body)) || !resp.Truncated || !strings.HasSuffix(string(resp.Body), "[secret:api]") {
			t.Errorf("body %q (truncated %v): a piece of the secret got through", resp.Body, resp.Truncated)
		}
		res, err := runHTTP(context.Background(), h, data(), nil)
		if err != nil || leaks(text(t, res)) {
			t.Errorf("result %q, %v", text(t, res), err)
		}
	})
}

func TestRedactCut(t *testing.T) {
	d := &Data{used: map[string]string{"abcdef": "a", "abcdefgh": "long", "zz": "z"}}
	for _, c := range []struct {
		raw   string
		limit int
		want  string
		cut   bool
	}{
		{"hello", 10, "hello", false},
		{"hello world", 5, "hello", true},
		{"12abcdef34", 4, "12[secret:a]", true},
		{"12abcdefgh", 4, "12[secret:long]", true}, // the longest match at a position
		{"1234abcdef", 4, "1234", true},
		{"zz zz", 5, "[secret:z] [secret:z]", false},
		{"", 3, "", false},
	} {
		got, cut := d.redactCut([]byte(c.raw), c.limit)
		if string(got) != c.want || cut != c.cut {
			t.Errorf("redactCut(%q, %d) = %q, %v; want %q, %v", c.raw, c.limit, got, cut, c.want, c.cut)
		}
	}
	var none *Data
	if got, cut := none.redactCut([]byte("abc"), 2); string(got) != "ab" || !cut {
		t.Errorf("nil data: %q %v", got, cut)
	}
}
