package actions

import (
	"slices"
	"testing"

	"github.com/mcptray/mcptray/catalog"
)

func TestToolSecrets(t *testing.T) {
	tool := catalog.Tool{Name: "x", Action: catalog.Action{HTTP: &catalog.HTTP{
		URL:     "https://api.example.com/{{.args.id}}",
		Headers: map[string]catalog.Template{"Authorization": `Bearer {{secret "api_token"}}`},
		Query:   map[string]catalog.Template{"k": `{{if .args.id}}{{secret "query_key" | urlquery}}{{end}}`},
		Body:    `{{secret (printf "%s" "computed")}} {{ secret "api_token" }}`,
	}}, Steps: []catalog.InputStep{{Key: "a", Kind: catalog.StepURL, URL: `https://x/{{secret "step_key"}}`}}}
	if got, want := ToolSecrets(tool), []string{"api_token", "query_key", "step_key"}; !slices.Equal(got, want) {
		t.Errorf("ToolSecrets = %q, want %q", got, want)
	}
	if got := ToolSecrets(catalog.Tool{Name: "y", Description: `{{secret "not_a_template"}}`}); len(got) != 0 {
		t.Errorf("a description is no template, yet %q", got)
	}
}
