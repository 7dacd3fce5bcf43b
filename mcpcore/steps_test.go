package mcpcore

//lint:file-ignore SA1019 tests of sampling steps, which go-sdk marks deprecated as of 2026-07-28 (SEP-2577).

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stepEngine is an engine with just what the client's rounds need.
func stepEngine(t *testing.T) *Engine {
	t.Helper()
	e := &Engine{}
	e.seal.Store(testSealer(t))
	set := catalog.DefaultSettings()
	e.settings.Store(&set)
	return e
}

var nameForm = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)

func formCaps() *mcp.ClientCapabilities {
	return &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}}
}

// stepRequest is one request of a definition whose steps the client
// answers, as prompts/get makes it.
type stepRequest struct {
	steps []catalog.InputStep
	caps  func() *mcp.ClientCapabilities
	roundsRequest
}

// runSteps plans a request's steps and asks the client its share of them,
// the way prompts/get does.
func (e *Engine) runSteps(ctx context.Context, r stepRequest) (*roundsOutcome, error) {
	plan, err := e.planSteps(r.steps, false, r.caps)
	if err != nil {
		return nil, err
	}
	r.roundsRequest.steps = plan.client
	out, err := e.askClient(ctx, r.roundsRequest)
	if err != nil || out.Requests != nil {
		return out, err
	}
	out.Inputs = withSkipped(r.steps, out.Inputs)
	return out, nil
}

func accept(content map[string]any) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: content}
}

func TestStepsRoundsAndAnswers(t *testing.T) {
	e := stepEngine(t)
	steps := []catalog.InputStep{
		{Key: "first", Kind: catalog.StepForm, Message: "Name?", Schema: nameForm},
		{Key: "second", Kind: catalog.StepForm, Message: "Hi {{.inputs.first.content.name}}, colour?", Schema: nameForm, Round: 1},
	}
	req := stepRequest{steps: steps, caps: formCaps, roundsRequest: roundsRequest{bind: binding{Method: "tools/call", Name: "t"}, data: e.data(t.Context(), nil)}}
	ctx := context.Background()

	out, err := e.runSteps(ctx, req)
	if err != nil || out.Requests == nil || out.Requests["first"] == nil || out.State == "" {
		t.Fatalf("round 1: want the first question, got %+v, %v", out, err)
	}
	// A wrong key and an answer that does not match the form are asked again.
	for name, resp := range map[string]mcp.InputResponseMap{
		"wrong key":   {"other": accept(map[string]any{"name": "x"})},
		"wrong type":  {"first": accept(map[string]any{"name": 12345.0})},
		"missing req": {"first": accept(map[string]any{})},
	} {
		r := req
		r.responses = resp
		out, err := e.runSteps(ctx, r)
		if err != nil || out.Requests["first"] == nil {
			t.Errorf("%s: want the question again, got %+v, %v", name, out, err)
		}
	}
	// A valid answer moves on to round 2, with a new state.
	r := req
	r.responses = mcp.InputResponseMap{"first": accept(map[string]any{"name": "Ada"}), "extra": accept(nil)}
	r.state = out.State
	out2, err := e.runSteps(ctx, r)
	if err != nil || out2.Requests["second"] == nil || out2.State == out.State {
		t.Fatalf("round 2: want the second question and a new state, got %+v, %v", out2, err)
	}
	if msg := out2.Requests["second"].(*mcp.ElicitParams).Message; msg != "Hi Ada, colour?" {
		t.Errorf("a later question must see earlier answers: %q", msg)
	}
	r.responses = mcp.InputResponseMap{"second": accept(map[string]any{"name": "blue"})}
	r.state = out2.State
	done, err := e.runSteps(ctx, r)
	if err != nil || done.Requests != nil {
		t.Fatalf("round 3: want completion, got %+v, %v", done, err)
	}
	first := done.Inputs["first"].(map[string]any)["content"].(map[string]any)["name"]
	second := done.Inputs["second"].(map[string]any)["content"].(map[string]any)["name"]
	if first != "Ada" || second != "blue" {
		t.Errorf("inputs = %v", done.Inputs)
	}
	// Replaying the round-2 state on another tool is refused.
	r.bind.Name = "other"
	if _, err := e.runSteps(ctx, r); !isCode(err, jsonrpc.CodeInvalidParams) {
		t.Errorf("replay on another tool: want -32602, got %v", err)
	}
}

func isCode(err error, code int64) bool {
	var je *jsonrpc.Error
	return errors.As(err, &je) && je.Code == code
}

func TestStepsCapabilities(t *testing.T) {
	e := stepEngine(t)
	steps := []catalog.InputStep{
		{Key: "ask", Kind: catalog.StepForm, Message: "Name?", Schema: nameForm, Optional: true},
		{Key: "llm", Kind: catalog.StepSampling, Message: "Hello", Optional: true},
	}
	req := stepRequest{steps: steps, roundsRequest: roundsRequest{bind: binding{Method: "tools/call", Name: "t"}, data: e.data(t.Context(), nil)},
		caps: func() *mcp.ClientCapabilities { return &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}} }}
	out, err := e.runSteps(context.Background(), req)
	if err != nil || out.Requests["llm"] == nil || out.Requests["ask"] != nil {
		t.Fatalf("want only the sampling step, got %+v, %v", out, err)
	}
	req.caps = func() *mcp.ClientCapabilities { return &mcp.ClientCapabilities{} }
	out, err = e.runSteps(context.Background(), req)
	if err != nil || out.Requests != nil {
		t.Fatalf("with nothing declared, optional steps are skipped: %+v, %v", out, err)
	}
	// Skipped steps still render in templates, as empty values.
	if got, err := actions.Render(catalog.Template("[{{.inputs.ask.content.name}}|{{.inputs.llm.text}}]"), &actions.Data{Inputs: out.Inputs}); err != nil || got != "[|]" {
		t.Errorf("skipped answers render %q, %v", got, err)
	}
	req.steps[1].Optional = false
	_, err = e.runSteps(context.Background(), req)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != mcp.CodeMissingRequiredClientCapabilities {
		t.Fatalf("want -32021, got %v", err)
	}
	var data struct {
		RequiredCapabilities map[string]map[string]any `json:"requiredCapabilities"`
	}
	if err := json.Unmarshal(je.Data, &data); err != nil || data.RequiredCapabilities["sampling"] == nil {
		t.Errorf("data.requiredCapabilities.sampling must be an object: %s", je.Data)
	}
}

func TestDeclinedStepStopsTheCall(t *testing.T) {
	steps := []catalog.InputStep{{Key: "ok", Kind: catalog.StepForm}}
	err := declined(steps, map[string]any{"ok": map[string]any{"action": "cancel"}})
	var d *errDeclined
	if !errors.As(err, &d) || d.Error() != `The person cancelled the "ok" question, so nothing was done.` {
		t.Errorf("got %v", err)
	}
	for _, action := range []string{"accept", "skipped"} {
		if err := declined(steps, map[string]any{"ok": skippedAnswer(catalog.StepForm), "x": map[string]any{"action": action}}); err != nil {
			t.Errorf("%s step reported as declined: %v", action, err)
		}
	}
}

// TestTheImplicitApprovalSaysDestroyOnlyForAToolThatMay: a tool set to
// ask every time, but that says nothing of destroying (show a folder), is
// not said to change or delete things; a destructive one is.
func TestTheImplicitApprovalSaysDestroyOnlyForAToolThatMay(t *testing.T) {
	yes := true
	show := catalog.Tool{Name: "show_folder", Title: "Show a folder", Approval: catalog.ApprovalAlways}
	wipe := catalog.Tool{Name: "wipe", Title: "Wipe old files", Hints: &catalog.Hints{Destructive: &yes}}
	for _, c := range []struct {
		tool catalog.Tool
		want string
	}{
		{show, `Allow the AI app to run "Show a folder"?`},
		{wipe, `Allow the AI app to run "Wipe old files"? It can change or delete things.`},
	} {
		steps := stepsOf(c.tool)
		if len(steps) != 1 || string(steps[0].Message) != c.want {
			t.Errorf("%s asks %+v, want %q", c.tool.Name, steps, c.want)
		}
	}
}
