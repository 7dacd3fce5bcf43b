package actions

import (
	"testing"

	"github.com/mcptray/mcptray/catalog"
)

func TestDescribeSaysWhatRunsWithSecretsMasked(t *testing.T) {
	data := &Data{Args: map[string]any{"q": "a b&c", "id": "x/y"}, Inputs: map[string]any{"f": map[string]any{"content": map[string]any{"n": 2}}}}
	for _, tc := range []struct {
		name string
		a    catalog.Action
		want string
	}{
		{"request", catalog.Action{HTTP: &catalog.HTTP{Method: "post", URL: `https://api.example.com/items/{{pathescape .args.id}}`,
			Query:   map[string]catalog.Template{"q": "{{.args.q}}", "key": `{{secret "api"}}`},
			Headers: map[string]catalog.Template{"Authorization": `Bearer {{secret "tok"}}`, "X-Empty": ""},
			Body:    `{"n": {{json .inputs.f.content.n}}, "k": {{json (secret "api")}}}`}},
			"Sends: POST https://api.example.com/items/x%2Fy?key=[secret:api]&q=a+b%26c\nAuthorization: Bearer [secret:tok]\n" +
				`With the body: {"n": 2, "k": "[secret:api]"}`},
		{"command", catalog.Action{Command: &catalog.Command{Argv: []catalog.Template{"rm", "-r", "{{.args.q}}"}, Dir: "/tmp",
			Env: map[string]catalog.Template{"TOKEN": `{{secret "tok"}}`}, Stdin: "{{.args.id}}"}},
			"Runs: rm -r 'a b&c'\nIn the folder: /tmp\nWith TOKEN='[secret:tok]'\nIts input: x/y"},
		{"an answer runs nothing", catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "hi"}}}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Describe(tc.a, data)
			if err != nil || got != tc.want {
				t.Errorf("Describe = %q, %v;\nwant %q", got, err, tc.want)
			}
		})
	}
}
