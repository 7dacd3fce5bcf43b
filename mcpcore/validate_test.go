package mcpcore

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/catalog"
)

func textAction(s string) catalog.Action {
	return catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: catalog.Template(s)}}}}
}

func validTool(name string) catalog.Tool {
	return catalog.Tool{Name: name, Description: "does a thing", Action: textAction("ok")}
}

// problemsOf returns "entry|field" keys of a validation error's problems.
func problemsOf(t *testing.T, err error) map[string]string {
	t.Helper()
	var ve *catalog.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want *ValidationError, got %v", err)
	}
	out := map[string]string{}
	for _, p := range ve.Problems {
		out[p.Entry+"|"+p.Field] = p.Message
	}
	return out
}

func TestValidateCatalogListsEveryProblem(t *testing.T) {
	c := &catalog.Catalog{
		Tools: []catalog.Tool{
			validTool("ok_tool"),
			validTool("bad name!"),
			validTool("dup"),
			validTool("dup"),
			{Name: "broken_schema", Description: "x", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"nonsense"}}}`), Action: textAction("x")},
			{Name: "no_desc", Action: textAction("x")},
		},
		ResourceTemplates: []catalog.ResourceTemplate{
			{URITemplate: "file:///notes/{path}", Name: "notes", Folder: "/tmp/../etc"},
		},
	}
	got := problemsOf(t, ValidateCatalog(c))
	for _, want := range []string{
		`tool "bad name!"|name`,
		`tool "dup"|`,
		`tool "broken_schema"|inputSchema`,
		`tool "no_desc"|description`,
		`resource template "file:///notes/{path}"|folder`,
	} {
		if _, ok := got[want]; !ok {
			t.Errorf("missing problem %s; got %v", want, got)
		}
	}
	for k := range got {
		if strings.HasPrefix(k, `tool "ok_tool"`) {
			t.Errorf("valid tool reported: %s", k)
		}
	}
}

func TestValidateToolRules(t *testing.T) {
	long := strings.Repeat("a", 65)
	tests := []struct {
		name  string
		tool  catalog.Tool
		field string
	}{
		{"too long name", validTool(long), "name"},
		{"empty name", validTool(""), "name"},
		{"both params and schema", catalog.Tool{Name: "t", Description: "d", Params: []catalog.Param{{Name: "a", Type: "string"}}, InputSchema: json.RawMessage(`{"type":"object"}`), Action: textAction("x")}, "inputSchema"},
		{"schema root not object", catalog.Tool{Name: "t", Description: "d", InputSchema: json.RawMessage(`{"type":"string"}`), Action: textAction("x")}, "inputSchema"},
		{"bad param type", catalog.Tool{Name: "t", Description: "d", Params: []catalog.Param{{Name: "a", Type: "date"}}, Action: textAction("x")}, "params[0].type"},
		{"enum of wrong type", catalog.Tool{Name: "t", Description: "d", Params: []catalog.Param{{Name: "a", Type: "integer", Enum: []any{1.0, "x"}}}, Action: textAction("x")}, "params[0].enum[1]"},
		{"default not in enum", catalog.Tool{Name: "t", Description: "d", Params: []catalog.Param{{Name: "a", Type: "string", Enum: []any{"x"}, Default: "y"}}, Action: textAction("x")}, "params[0].default"},
		{"pattern on a number", catalog.Tool{Name: "t", Description: "d", Params: []catalog.Param{{Name: "a", Type: "integer", Pattern: "^[0-9]+$"}}, Action: textAction("x")}, "params[0].pattern"},
		{"pattern not a regular expression", catalog.Tool{Name: "t", Description: "d", Params: []catalog.Param{{Name: "a", Type: "string", Pattern: "^[a-z"}}, Action: textAction("x")}, "params[0].pattern"},
		{"default not matching the pattern", catalog.Tool{Name: "t", Description: "d", Params: []catalog.Param{{Name: "a", Type: "string", Pattern: "^[a-z]+$", Default: "../x"}}, Action: textAction("x")}, "params[0].default"},
		{"header on number", catalog.Tool{Name: "t", Description: "d", Params: []catalog.Param{{Name: "a", Type: "number", Header: "A"}}, Action: textAction("x")}, "params[0].header"},
		{"header not a token", catalog.Tool{Name: "t", Description: "d", Params: []catalog.Param{{Name: "a", Type: "string", Header: "A B"}}, Action: textAction("x")}, "params[0].header"},
		{"duplicate header", catalog.Tool{Name: "t", Description: "d", Params: []catalog.Param{{Name: "a", Type: "string", Header: "R"}, {Name: "b", Type: "string", Header: "r"}}, Action: textAction("x")}, "params[1].header"},
		{"schema header inside items", catalog.Tool{Name: "t", Description: "d", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}`), Action: textAction("x")}, "inputSchema"},
		{"no action", catalog.Tool{Name: "t", Description: "d"}, "action.action"},
		{"bad template", catalog.Tool{Name: "t", Description: "d", Action: textAction("{{.args.x")}, "action.respond.content[0].text"},
		{"bad step kind", catalog.Tool{Name: "t", Description: "d", Steps: []catalog.InputStep{{Key: "k", Kind: "telepathy"}}, Action: textAction("x")}, "steps[0].kind"},
		{"form without schema", catalog.Tool{Name: "t", Description: "d", Steps: []catalog.InputStep{{Key: "k", Kind: catalog.StepForm, Message: "m"}}, Action: textAction("x")}, "steps[0].schema"},
		{"nested form property", catalog.Tool{Name: "t", Description: "d", Steps: []catalog.InputStep{{Key: "k", Kind: catalog.StepForm, Message: "m", Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"object"}}}`)}}, Action: textAction("x")}, "steps[0].schema"},
		{"output schema without structured", catalog.Tool{Name: "t", Description: "d", OutputSchema: json.RawMessage(`{"type":"object"}`), Action: textAction("x")}, "action.respond.structured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := ValidateTool(tt.tool)
			for _, p := range ps {
				if p.Field == tt.field {
					return
				}
			}
			t.Errorf("want a problem on %q, got %v", tt.field, ps)
		})
	}
}

func TestValidateAcceptsGoodDefinitions(t *testing.T) {
	b, err := os.ReadFile("../examples/conformance.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseCatalog(b); err != nil {
		t.Fatalf("the conformance catalog must be valid: %v", err)
	}
}

func TestParseCatalogRejectsUnknownFieldsAndFormats(t *testing.T) {
	for name, doc := range map[string]string{
		"unknown field": `{"format":"mcptray-catalog","version":1,"tools":[{"name":"a","description":"d","action":{"respond":{"content":[{"type":"text","text":"x"}]}},"descripton":"typo"}]}`,
		"wrong format":  `{"format":"other","version":1}`,
		"no version":    `{"format":"mcptray-catalog"}`,
		"trailing data": `{"format":"mcptray-catalog","version":1} {}`,
		"newer version": `{"format":"mcptray-catalog","version":99}`,
	} {
		if _, err := ParseCatalog([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestGeneratedSchemaIsServedAndClosed(t *testing.T) {
	tool := catalog.Tool{Name: "t", Description: "d", Params: []catalog.Param{
		{Name: "q", Type: "string", Required: true, Description: "query", Header: "Query"},
		{Name: "n", Type: "integer", Default: 5.0},
		{Name: "tags", Type: "array"},
	}, Action: textAction("x")}
	if ps := ValidateTool(tool); len(ps) > 0 {
		t.Fatalf("valid tool rejected: %v", ps)
	}
	var s map[string]any
	if err := json.Unmarshal(tool.InputSchemaJSON(), &s); err != nil {
		t.Fatal(err)
	}
	props := s["properties"].(map[string]any)
	if s["additionalProperties"] != false || s["type"] != "object" {
		t.Errorf("schema not a closed object: %v", s)
	}
	if props["q"].(map[string]any)["x-mcp-header"] != "Query" {
		t.Errorf("header annotation lost: %v", props["q"])
	}
	if props["tags"].(map[string]any)["items"].(map[string]any)["type"] != "string" {
		t.Errorf("array items default to string: %v", props["tags"])
	}
	if req := s["required"].([]any); len(req) != 1 || req[0] != "q" {
		t.Errorf("required = %v", req)
	}
	verbatim := json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"a":{"$anchor":"x"}}}`)
	if got := (catalog.Tool{InputSchema: verbatim}).InputSchemaJSON(); string(got) != string(verbatim) {
		t.Errorf("hand-written schema not verbatim: %s", got)
	}
}

func TestValidateResourcesAndPrompts(t *testing.T) {
	if ps := ValidateResource(catalog.Resource{URI: "no-scheme", Name: "n", Text: "x"}); len(ps) == 0 {
		t.Error("URI without scheme accepted")
	}
	if ps := ValidateResource(catalog.Resource{URI: "notes://a", Name: "n", Text: "x", Blob: "eA=="}); len(ps) == 0 {
		t.Error("two sources accepted")
	}
	if ps := ValidateResource(catalog.Resource{URI: "file:///x", Name: "n", File: "relative/path"}); len(ps) == 0 {
		t.Error("relative file accepted")
	}
	cmd := &catalog.Command{Argv: []catalog.Template{"date"}}
	if ps := ValidateResource(catalog.Resource{URI: "notes://a", Name: "n", Text: "x", Command: cmd}); len(ps) == 0 {
		t.Error("text and command accepted together")
	}
	if ps := ValidateResource(catalog.Resource{URI: "notes://a", Name: "n", Command: cmd, HTTP: &catalog.HTTP{URL: "http://127.0.0.1/x"}}); len(ps) == 0 {
		t.Error("http and command accepted together")
	}
	if ps := ValidateResource(catalog.Resource{URI: "notes://a", Name: "n", Command: cmd}); len(ps) != 0 {
		t.Errorf("a command resource rejected: %v", ps)
	}
	ps := ValidateResource(catalog.Resource{URI: "notes://a", Name: "n", Command: &catalog.Command{Argv: []catalog.Template{"{{"}}})
	if len(ps) == 0 || !strings.HasPrefix(ps[0].Field, "command.argv") {
		t.Errorf("a broken command resource: %v, want a problem at command.argv", ps)
	}
	if ps := ValidateResourceTemplate(catalog.ResourceTemplate{URITemplate: "file:///n/{a}/{b}", Name: "n", Folder: "/tmp"}); len(ps) == 0 {
		t.Error("folder template with two variables accepted")
	}
	if ps := ValidateResourceTemplate(catalog.ResourceTemplate{URITemplate: "x://{a}", Name: "n", Text: "t", Completions: map[string][]string{"b": {"1"}}}); len(ps) == 0 {
		t.Error("completion for a missing variable accepted")
	}
	if ps := ValidatePrompt(catalog.Prompt{Name: "p", Description: "d", Messages: []catalog.PromptMessage{{Role: "system", Content: catalog.Content{Type: "text", Text: "x"}}}}); len(ps) == 0 {
		t.Error("system role accepted")
	}
	if ps := ValidatePrompt(catalog.Prompt{Name: "p", Description: "d"}); len(ps) == 0 {
		t.Error("prompt without messages accepted")
	}
}

func TestValidateTasksAndRouting(t *testing.T) {
	form := json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)
	tool := func(name string, f func(*catalog.Tool)) catalog.Tool {
		tl := validTool(name)
		f(&tl)
		return tl
	}
	c := &catalog.Catalog{
		Tools: []catalog.Tool{
			tool("mode", func(t *catalog.Tool) { t.TaskMode = "sometimes" }),
			tool("approval_setting", func(t *catalog.Tool) { t.Approval = "maybe" }),
			tool("client_approval", func(t *catalog.Tool) {
				t.Steps = []catalog.InputStep{{Key: "ok", Kind: catalog.StepApproval, Message: "Go?", AnsweredBy: catalog.AnsweredByClient}}
			}),
			tool("silent_approval", func(t *catalog.Tool) { t.Steps = []catalog.InputStep{{Key: "ok", Kind: catalog.StepApproval}} }),
			tool("desk_sampling", func(t *catalog.Tool) {
				t.Steps = []catalog.InputStep{{Key: "s", Kind: catalog.StepSampling, Message: "Hi", AnsweredBy: catalog.AnsweredByAuto}}
			}),
			tool("bad_route", func(t *catalog.Tool) {
				t.Steps = []catalog.InputStep{{Key: "f", Kind: catalog.StepForm, Message: "A?", Schema: form, AnsweredBy: "someone"}}
			}),
			tool("bad_error", func(t *catalog.Tool) {
				t.Action = catalog.Action{Respond: &catalog.Respond{Error: &catalog.ProtocolError{Code: 7}}}
			}),
			tool("fine", func(t *catalog.Tool) {
				t.TaskMode, t.Approval = catalog.TaskRequired, catalog.ApprovalAlways
				t.Steps = []catalog.InputStep{
					{Key: "ok", Kind: catalog.StepApproval, Message: "Go?"},
					{Key: "f", Kind: catalog.StepForm, Message: "A?", Schema: form, AnsweredBy: catalog.AnsweredByAuto, InTask: true},
				}
				t.Action = catalog.Action{Respond: &catalog.Respond{Error: &catalog.ProtocolError{Code: -32603, Message: "boom"}}}
			}),
		},
		Prompts: []catalog.Prompt{{Name: "p", Description: "d", Messages: []catalog.PromptMessage{{Role: "user", Content: catalog.Content{Type: "text", Text: "x"}}},
			Steps: []catalog.InputStep{{Key: "ok", Kind: catalog.StepApproval, Message: "Go?"}, {Key: "f", Kind: catalog.StepForm, Message: "A?", Schema: form, InTask: true}}}},
	}
	got := problemsOf(t, ValidateCatalog(c))
	for _, want := range []string{
		`tool "mode"|taskMode`,
		`tool "approval_setting"|approval`,
		`tool "client_approval"|steps[0].answeredBy`,
		`tool "silent_approval"|steps[0].message`,
		`tool "desk_sampling"|steps[0].answeredBy`,
		`tool "bad_route"|steps[0].answeredBy`,
		`tool "bad_error"|action.respond.error.code`,
		`tool "bad_error"|action.respond.error.message`,
		`prompt "p"|steps[0].answeredBy`,
		`prompt "p"|steps[1].inTask`,
	} {
		if _, ok := got[want]; !ok {
			t.Errorf("missing problem %s; got %v", want, got)
		}
	}
	for k := range got {
		if strings.HasPrefix(k, `tool "fine"`) {
			t.Errorf("unexpected problem %s: %s", k, got[k])
		}
	}
}
