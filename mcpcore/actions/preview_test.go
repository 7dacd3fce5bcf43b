package actions

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/catalog"
)

func TestPreview(t *testing.T) {
	s := Sample{
		Args:   map[string]any{"city": "Paris", "n": 3},
		Inputs: map[string]any{"mood": map[string]any{"action": "accept", "content": map[string]any{"tone": "warm"}}},
		Server: map[string]string{"home": "/home/me", "executable": "/usr/bin/mcptray", "db": "/db"},
		Params: []string{"city", "n"},
		Steps:  []string{"mood"},
	}
	for tmpl, want := range map[catalog.Template]string{
		"plain text": "plain text",
		"Weather in {{.args.city}} ({{.args.n}} days)":       "Weather in Paris (3 days)",
		"{{upper .args.city}} {{.inputs.mood.content.tone}}": "PARIS warm",
		`Bearer {{secret "api_token"}}`:                      "Bearer [secret:api_token]",
		"{{.server.home}}/Notes":                             "/home/me/Notes",
		`{{with .args.city}}{{.}} is set{{end}}`:             "Paris is set",
	} {
		got, err := Preview(tmpl, s)
		if err != nil || got != want {
			t.Errorf("Preview(%q) = %q, %v; want %q", tmpl, got, err, want)
		}
	}
	for tmpl, want := range map[catalog.Template]struct {
		msg    string
		offset int
	}{
		"Hi {{.args.name}}":                {`unknown parameter "name" (parameters: city, n)`, 3},
		"{{.args.city}} {{.inputs.other}}": {`no input step before this has the key "other" (keys: mood)`, 15},
		"{{.server.user}}":                 {`.server has no "user"`, 0},
		"Hi {{.args.city":                  {`"{{" is not closed by "}}"`, 3},
		"{{shout .args.city}}":             {`function "shout" not defined`, -1},
		"{{.args.city}":                    {`"{{" is not closed`, 0},
		"a\n{{if .args.city}}":             {`line 2: unexpected EOF`, -1},
		"{{index .args.n 1}}":              {"can't index item of type int", -1},
	} {
		_, err := Preview(tmpl, s)
		var te *TemplateError
		if !errors.As(err, &te) || !strings.Contains(te.Msg, want.msg) || te.Offset != want.offset {
			t.Errorf("Preview(%q) = %#v; want %q at %d", tmpl, err, want.msg, want.offset)
		}
	}
	// Without declared parameters (a hand-written schema), any name goes.
	if _, err := Preview("{{.args.anything}}", Sample{}); err != nil {
		t.Errorf("no declared parameters: %v", err)
	}
}
