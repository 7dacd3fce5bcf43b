package mcpcore

//lint:file-ignore SA1019 sampling and roots steps are still asked of clients that declare them; go-sdk marks both deprecated as of 2026-07-28 (SEP-2577).

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Input steps at run time: which steps a definition asks, who answers each
// and when (the plan), the requests a step sends and the answers it takes.
// The client asks in clientrounds.go, the desktop in asker.go, a task in
// taskrun.go; toolcall.go puts them in order.

// route splits steps into those the client answers and those the desktop
// answers, given what the client declared.
func (e *Engine) route(steps []catalog.InputStep, caps *mcp.ClientCapabilities) (client, desktop []catalog.InputStep) {
	for _, s := range steps {
		switch s.Route() {
		case catalog.AnsweredByClient:
			client = append(client, s)
		case catalog.AnsweredByAuto:
			if capable(s.Kind, caps) {
				client = append(client, s)
			} else {
				desktop = append(desktop, s)
			}
		default:
			if s.Kind != catalog.StepApproval && e.clientFallback() && capable(s.Kind, caps) {
				client = append(client, s)
			} else {
				desktop = append(desktop, s)
			}
		}
	}
	return client, desktop
}

// implicitApprovalKey is the input key of a destructive tool's implicit
// approval (.inputs.approval).
const implicitApprovalKey = "approval"

// maxRound is the highest round a definition may give a step.
const maxRound = 100

// approvalStep is the approval a destructive tool, or one set to ask every
// time, asks implicitly, after every step of its own. It names the tool by
// its title; the message is a template, so a title with template braces
// in it is not used. Only a tool that says it may destroy is said to: a
// tool that shows a folder, asked about because its author wants to be
// asked, is not one that "can change or delete things".
func approvalStep(t catalog.Tool) catalog.InputStep {
	name := t.Name
	if t.Title != "" && !strings.Contains(t.Title, "{{") {
		name = t.Title
	}
	msg := fmt.Sprintf("Allow the AI app to run %q?", name)
	if t.Hints != nil && t.Hints.Destructive != nil && *t.Hints.Destructive {
		msg += " It can change or delete things."
	}
	return catalog.InputStep{Key: implicitApprovalKey, Kind: catalog.StepApproval, Round: maxRound + 1,
		Message: catalog.Template(msg)}
}

// stepsOf are a tool's steps, with the implicit approval of a destructive
// tool unless the person turned it off or the tool asks one already.
func stepsOf(t catalog.Tool) []catalog.InputStep {
	if t.Approval == catalog.ApprovalOff || slices.ContainsFunc(t.Steps, func(s catalog.InputStep) bool { return s.Kind == catalog.StepApproval }) {
		return t.Steps
	}
	destructive := t.Hints != nil && t.Hints.Destructive != nil && *t.Hints.Destructive
	if !destructive && t.Approval != catalog.ApprovalAlways {
		return t.Steps
	}
	if slices.ContainsFunc(t.Steps, func(s catalog.InputStep) bool { return s.Key == implicitApprovalKey }) {
		return t.Steps
	}
	return append(slices.Clip(t.Steps), approvalStep(t))
}

// stepPlan says who answers each step of one request, and when.
type stepPlan struct {
	// all are the definition's steps; before those answered before the
	// action, or before the task is created when the call runs as one.
	all, before []catalog.InputStep
	// client are the steps of before the client answers (those it cannot
	// answer and may skip left out), desktop those the desktop answers.
	client, desktop []catalog.InputStep
	// inTaskClient and inTaskDesktop are the in-task steps of a call that
	// runs as a task, asked while the task runs (the client's through
	// tasks/update).
	inTaskClient, inTaskDesktop []catalog.InputStep
}

// planSteps routes a request's steps given the client's capabilities, and
// fails with -32021 when the client cannot answer a required one — for
// the steps a task will ask too, so that the call fails now rather than the
// task later. caps runs only when there are steps: go-sdk decodes the
// capabilities anew on each call.
func (e *Engine) planSteps(steps []catalog.InputStep, asTask bool, caps func() *mcp.ClientCapabilities) (stepPlan, error) {
	p := stepPlan{all: steps, before: steps}
	if len(steps) == 0 {
		return p, nil
	}
	declared := caps()
	var err error
	if asTask {
		var inTask []catalog.InputStep
		p.before, inTask = splitInTask(steps)
		var client []catalog.InputStep
		client, p.inTaskDesktop = e.route(inTask, declared)
		if p.inTaskClient, err = answerable(client, declared); err != nil {
			return p, err
		}
	}
	var client []catalog.InputStep
	client, p.desktop = e.route(p.before, declared)
	if p.client, err = answerable(client, declared); err != nil {
		return p, err
	}
	return p, nil
}

// splitInTask separates the steps answered before a task is created from
// those asked inside it.
func splitInTask(steps []catalog.InputStep) (before, inTask []catalog.InputStep) {
	for _, s := range steps {
		if s.InTask {
			inTask = append(inTask, s)
		} else {
			before = append(before, s)
		}
	}
	return before, inTask
}

// answerable drops optional steps the client cannot answer and fails with
// -32021 when a required one needs a capability the client did not declare.
func answerable(steps []catalog.InputStep, caps *mcp.ClientCapabilities) ([]catalog.InputStep, error) {
	var out []catalog.InputStep
	missing := map[string]any{}
	for _, s := range steps {
		if capable(s.Kind, caps) {
			out = append(out, s)
			continue
		}
		if !s.Optional {
			k, v := requiredCapability(s.Kind)
			missing[k] = v
		}
	}
	if len(missing) > 0 {
		data, _ := json.Marshal(map[string]any{"requiredCapabilities": missing})
		names := slices.Sorted(maps.Keys(missing))
		return nil, &jsonrpc.Error{
			Code:    mcp.CodeMissingRequiredClientCapabilities,
			Message: fmt.Sprintf("this request needs the client capabilities %v, which the client did not declare", names),
			Data:    data,
		}
	}
	return out, nil
}

// capable reports whether a client that declared caps can answer a step of
// kind.
func capable(kind string, caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	switch kind {
	case catalog.StepForm:
		return caps.Elicitation != nil && (caps.Elicitation.Form != nil || caps.Elicitation.URL == nil)
	case catalog.StepURL:
		return caps.Elicitation != nil && caps.Elicitation.URL != nil
	case catalog.StepSampling:
		return caps.Sampling != nil
	case catalog.StepRoots:
		return caps.RootsV2 != nil || caps.Roots.ListChanged
	}
	return false
}

// kindOf is the kind of step a server's request asks as (form, url,
// sampling, roots): what a client must have declared to answer it; "" for
// a request of a kind MCP does not know.
func kindOf(ir mcp.InputRequest) string {
	switch p := ir.(type) {
	case *mcp.ElicitParams:
		if p.Mode == "url" || p.Mode == "" && p.URL != "" {
			return catalog.StepURL
		}
		return catalog.StepForm
	case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
		return catalog.StepSampling
	case *mcp.ListRootsParams:
		return catalog.StepRoots
	}
	return ""
}

// requiredCapability is the -32021 data entry for a step kind.
func requiredCapability(kind string) (string, any) {
	switch kind {
	case catalog.StepURL:
		return "elicitation", map[string]any{"url": map[string]any{}}
	case catalog.StepSampling:
		return "sampling", map[string]any{}
	case catalog.StepRoots:
		return "roots", map[string]any{}
	}
	return "elicitation", map[string]any{}
}

// roundsOf lists the rounds steps use, in the order they are asked.
func roundsOf(steps []catalog.InputStep) []int {
	var rounds []int
	for _, s := range steps {
		if !slices.Contains(rounds, s.Round) {
			rounds = append(rounds, s.Round)
		}
	}
	slices.Sort(rounds)
	return rounds
}

// inRound are the steps asked together in round.
func inRound(steps []catalog.InputStep, round int) []catalog.InputStep {
	var out []catalog.InputStep
	for _, s := range steps {
		if s.Round == round {
			out = append(out, s)
		}
	}
	return out
}

// inputRequest renders the request a step sends the client. A secret a
// template resolves is redacted from it: the client never sees secret
// values.
func inputRequest(s catalog.InputStep, data *actions.Data) (mcp.InputRequest, error) {
	msg, err := actions.Render(s.Message, data)
	if err != nil {
		return nil, fmt.Errorf("input step %q message: %w", s.Key, err)
	}
	msg = data.Redact(msg)
	switch s.Kind {
	case catalog.StepForm:
		return &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: s.Schema}, nil
	case catalog.StepURL:
		u, err := actions.Render(s.URL, data)
		if err != nil {
			return nil, fmt.Errorf("input step %q url: %w", s.Key, err)
		}
		return &mcp.ElicitParams{Mode: "url", Message: msg, URL: data.Redact(u)}, nil
	case catalog.StepSampling:
		maxTokens := s.MaxTokens
		if maxTokens == 0 {
			maxTokens = 1000
		}
		return &mcp.CreateMessageParams{
			Messages:     []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: msg}}},
			MaxTokens:    int64(maxTokens),
			SystemPrompt: s.SystemPrompt,
		}, nil
	case catalog.StepRoots:
		return &mcp.ListRootsParams{}, nil
	}
	return nil, fmt.Errorf("input step %q: unknown kind %q", s.Key, s.Kind)
}

// answerOf checks a client's response against its step and returns the
// answer as templates see it, or why it cannot be accepted.
func answerOf(s catalog.InputStep, resp mcp.InputResponse) (json.RawMessage, error) {
	var v any
	switch s.Kind {
	case catalog.StepForm, catalog.StepURL:
		er, ok := resp.(*mcp.ElicitResult)
		if !ok {
			return nil, fmt.Errorf("want an elicitation result, got %T", resp)
		}
		switch er.Action {
		case "accept":
			if s.Kind == catalog.StepForm {
				if err := checkFormAnswer(s.Schema, er.Content); err != nil {
					return nil, err
				}
			}
		case "decline", "cancel":
		default:
			return nil, fmt.Errorf("unknown elicitation action %q", er.Action)
		}
		content := er.Content
		if content == nil {
			content = map[string]any{}
		}
		v = map[string]any{"action": er.Action, "content": content}
	case catalog.StepSampling:
		var content mcp.Content
		var model, stop string
		var role mcp.Role
		switch m := resp.(type) {
		case *mcp.CreateMessageResult:
			content, model, stop, role = m.Content, m.Model, m.StopReason, m.Role
		case *mcp.CreateMessageWithToolsResult:
			if len(m.Content) > 0 {
				content = m.Content[0]
			}
			model, stop, role = m.Model, m.StopReason, m.Role
		default:
			return nil, fmt.Errorf("want a sampling result, got %T", resp)
		}
		text := ""
		if tc, ok := content.(*mcp.TextContent); ok {
			text = tc.Text
		}
		v = map[string]any{"role": role, "model": model, "stopReason": stop, "text": text}
	case catalog.StepRoots:
		lr, ok := resp.(*mcp.ListRootsResult)
		if !ok {
			return nil, fmt.Errorf("want a roots result, got %T", resp)
		}
		roots := []any{}
		for _, root := range lr.Roots {
			if root != nil {
				roots = append(roots, map[string]any{"uri": root.URI, "name": root.Name})
			}
		}
		v = map[string]any{"roots": roots}
	default:
		return nil, fmt.Errorf("unknown step kind %q", s.Kind)
	}
	return json.Marshal(v)
}

// checkFormAnswer validates accepted form content against the step schema.
func checkFormAnswer(schema json.RawMessage, content map[string]any) error {
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return fmt.Errorf("form schema: %w", err)
	}
	res, err := s.Resolve(nil)
	if err != nil {
		return fmt.Errorf("form schema: %w", err)
	}
	var inst any = map[string]any{}
	if content != nil {
		inst = content
	}
	if err := res.Validate(inst); err != nil {
		return fmt.Errorf("answer does not match the form: %w", err)
	}
	return nil
}

// decodeAnswers turns answers kept as JSON (sealed in requestState, held by
// a task) into the values templates see.
func decodeAnswers(answers map[string]json.RawMessage) map[string]any {
	out := make(map[string]any, len(answers))
	for k, raw := range answers {
		var v any
		if json.Unmarshal(raw, &v) == nil {
			out[k] = v
		}
	}
	return out
}

// mergeInputs is a copy of a with the answers of b added, b winning.
func mergeInputs(a, b map[string]any) map[string]any {
	out := maps.Clone(a)
	if out == nil {
		out = map[string]any{}
	}
	maps.Copy(out, b)
	return out
}

// withSkipped gives every step of steps that has no answer in inputs (one
// skipped for want of a capability) an empty one, in place, so a template
// such as {{.inputs.key.content.x}} renders empty, not an error.
func withSkipped(steps []catalog.InputStep, inputs map[string]any) map[string]any {
	for _, s := range steps {
		if _, ok := inputs[s.Key]; !ok {
			inputs[s.Key] = skippedAnswer(s.Kind)
		}
	}
	return inputs
}

// skippedAnswer is the answer of a step that was not asked: the shape of a
// real answer, with empty values.
func skippedAnswer(kind string) map[string]any {
	switch kind {
	case catalog.StepSampling:
		return map[string]any{"role": "", "model": "", "stopReason": "", "text": ""}
	case catalog.StepRoots:
		return map[string]any{"roots": []any{}}
	}
	return map[string]any{"action": "skipped", "content": map[string]any{}}
}

// errDeclined is returned when a person declines or cancels a form or URL
// step in the client.
type errDeclined struct{ key, action string }

// Error says it as the AI model reads it: who stopped what, and that
// nothing was done.
func (e *errDeclined) Error() string {
	if e.action == "cancel" {
		return fmt.Sprintf("The person cancelled the %q question, so nothing was done.", e.key)
	}
	return fmt.Sprintf("The person declined to answer the %q question, so nothing was done.", e.key)
}

// declined returns the first form or URL step the person did not accept
// in the client.
func declined(steps []catalog.InputStep, inputs map[string]any) error {
	for _, s := range steps {
		if s.Kind != catalog.StepForm && s.Kind != catalog.StepURL {
			continue
		}
		// Desktop answers are deniedOnDesktop's, which says why.
		if ans, ok := inputs[s.Key].(map[string]any); ok && ans["by"] != catalog.AnsweredByDesktop && (ans["action"] == "decline" || ans["action"] == "cancel") {
			return &errDeclined{key: s.Key, action: fmt.Sprint(ans["action"])}
		}
	}
	return nil
}
