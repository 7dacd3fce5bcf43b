package mcpcore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// modernVersion is the first protocol revision without sessions, where input
// steps travel as input_required results instead of server→client requests.
const modernVersion = "2026-07-28"

// stepRequest is one call of a definition that has input steps.
type stepRequest struct {
	steps   []InputStep
	bind    binding
	data    *actions.Data
	session *mcp.ServerSession
	// caps reads the client's capabilities; go-sdk decodes them anew on
	// each call, so it runs only for definitions that have steps.
	caps      func() *mcp.ClientCapabilities
	responses mcp.InputResponseMap
	state     string
	// desk describes the call to the desktop; deferDesk leaves the desktop
	// steps to the caller (a task asks them while it runs).
	desk      deskCall
	deferDesk bool
}

// stepOutcome is either the collected answers (Inputs) or a round to ask
// the client (Requests + State).
type stepOutcome struct {
	Inputs   map[string]any
	Requests mcp.InputRequestMap
	State    string
	// Desk are the steps routed to the desktop (asked already unless the
	// request deferred them).
	Desk []InputStep
}

// errDeclined is returned when a person declines or cancels a form or URL step.
type errDeclined struct{ key, action string }

func (e *errDeclined) Error() string {
	verb := "declined"
	if e.action == "cancel" {
		verb = "cancelled"
	}
	return fmt.Sprintf("the %q step was %s, so the request did not go ahead", e.key, verb)
}

// runSteps drives a definition's input steps for one request. On the
// 2026-07-28 era it answers with one input_required round at a time, carrying
// progress in a sealed requestState; for a 2025-11-25 session it asks the
// client directly with server→client requests, round after round.
func (e *Engine) runSteps(ctx context.Context, r stepRequest) (*stepOutcome, error) {
	if len(r.steps) == 0 {
		return &stepOutcome{Inputs: map[string]any{}}, nil
	}
	caps := r.caps()
	client, desk := e.route(r.steps, caps)
	active, err := answerable(client, caps)
	if err != nil {
		return nil, err
	}
	var out *stepOutcome
	switch rounds := roundsOf(active); {
	case len(rounds) == 0:
		out = &stepOutcome{Inputs: map[string]any{}}
	case isLegacy(r.session):
		out, err = e.askSession(ctx, r, active, rounds)
	default:
		out, err = e.askMRTR(r, active, rounds)
	}
	if err != nil || out.Inputs == nil {
		return out, err
	}
	out.Desk = desk
	if len(desk) > 0 && !r.deferDesk {
		// The client's rounds are done: the desktop answers the rest,
		// while the request waits.
		r.data.Inputs = out.Inputs
		answers, err := e.askDesktop(ctx, r.desk, desk, r.data)
		if err != nil {
			return nil, err
		}
		maps.Copy(out.Inputs, decodeAnswers(answers))
	}
	// Steps skipped for want of a capability still get an answer, so a
	// template such as {{.inputs.key.content.x}} renders empty, not an error.
	for _, s := range r.steps {
		if _, ok := out.Inputs[s.Key]; !ok {
			out.Inputs[s.Key] = skippedAnswer(s.Kind)
		}
	}
	return out, nil
}

// skippedAnswer is the answer of a step that was not asked: the shape of a
// real answer, with empty values.
func skippedAnswer(kind string) map[string]any {
	switch kind {
	case StepSampling:
		return map[string]any{"role": "", "model": "", "stopReason": "", "text": ""}
	case StepRoots:
		return map[string]any{"roots": []any{}}
	}
	return map[string]any{"action": "skipped", "content": map[string]any{}}
}

// isLegacy reports whether the session negotiated a pre-2026 revision.
func isLegacy(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion < modernVersion
}

// answerable drops optional steps the client cannot answer and fails with
// -32021 when a required one needs a capability the client did not declare.
func answerable(steps []InputStep, caps *mcp.ClientCapabilities) ([]InputStep, error) {
	var out []InputStep
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

func capable(kind string, caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	switch kind {
	case StepForm:
		return caps.Elicitation != nil && (caps.Elicitation.Form != nil || caps.Elicitation.URL == nil)
	case StepURL:
		return caps.Elicitation != nil && caps.Elicitation.URL != nil
	case StepSampling:
		return caps.Sampling != nil
	case StepRoots:
		return caps.RootsV2 != nil || caps.Roots.ListChanged
	}
	return false
}

// requiredCapability is the -32021 data entry for a step kind.
func requiredCapability(kind string) (string, any) {
	switch kind {
	case StepURL:
		return "elicitation", map[string]any{"url": map[string]any{}}
	case StepSampling:
		return "sampling", map[string]any{}
	case StepRoots:
		return "roots", map[string]any{}
	}
	return "elicitation", map[string]any{}
}

func roundsOf(steps []InputStep) []int {
	var rounds []int
	for _, s := range steps {
		if !slices.Contains(rounds, s.Round) {
			rounds = append(rounds, s.Round)
		}
	}
	slices.Sort(rounds)
	return rounds
}

func inRound(steps []InputStep, round int) []InputStep {
	var out []InputStep
	for _, s := range steps {
		if s.Round == round {
			out = append(out, s)
		}
	}
	return out
}

// askMRTR advances the flow by the answers in this request and returns the
// next round to ask, or the inputs once every step is answered. Progress is
// derived from the sealed answers, never from a position: the round asked
// is the first with an unanswered step, so neither a client changing its
// declared capabilities between rounds nor an edit of the definition can
// skip a required step. Answers for that round are taken with or without a
// state (a client may answer the first round at once); unanswered or invalid
// answers are asked again, and unknown keys are ignored.
func (e *Engine) askMRTR(r stepRequest, active []InputStep, rounds []int) (*stepOutcome, error) {
	st := roundState{Answers: map[string]json.RawMessage{}}
	if r.state != "" {
		var err error
		if st, err = e.sealer().open(r.bind, r.state); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error(), Data: json.RawMessage(`{"reason":"invalid_request_state"}`)}
		}
		if st.Answers == nil {
			st.Answers = map[string]json.RawMessage{}
		}
	}
	next := func() []InputStep {
		for _, round := range rounds {
			var open []InputStep
			for _, s := range inRound(active, round) {
				if _, done := st.Answers[s.Key]; !done {
					open = append(open, s)
				}
			}
			if len(open) > 0 {
				return open
			}
		}
		return nil
	}
	var pending []InputStep
	for _, s := range next() {
		if resp, ok := r.responses[s.Key]; ok {
			if ans, err := answerOf(s, resp); err == nil {
				st.Answers[s.Key] = ans
				continue
			}
		}
		pending = append(pending, s)
	}
	if len(pending) == 0 {
		if pending = next(); len(pending) == 0 {
			return &stepOutcome{Inputs: decodeAnswers(st.Answers)}, nil
		}
	}
	// A later round's questions may use the earlier answers.
	r.data.Inputs = decodeAnswers(st.Answers)
	reqs := mcp.InputRequestMap{}
	for _, s := range pending {
		ir, err := inputRequest(s, r.data)
		if err != nil {
			return nil, err
		}
		reqs[s.Key] = ir
	}
	state, err := e.sealer().seal(r.bind, st, e.currentSettings().RequestStateTTL())
	if err != nil {
		return nil, err
	}
	return &stepOutcome{Requests: reqs, State: state}, nil
}

// askSession asks a 2025-11-25 client with server→client requests, one
// round at a time, the steps of a round concurrently.
func (e *Engine) askSession(ctx context.Context, r stepRequest, active []InputStep, rounds []int) (*stepOutcome, error) {
	answers := map[string]json.RawMessage{}
	for _, round := range rounds {
		steps := inRound(active, round)
		var (
			mu   sync.Mutex
			wg   sync.WaitGroup
			errs = make([]error, len(steps))
		)
		for i, s := range steps {
			wg.Go(func() {
				ans, err := e.askOne(ctx, r, s)
				if err != nil {
					errs[i] = fmt.Errorf("input step %q: %w", s.Key, err)
					return
				}
				mu.Lock()
				answers[s.Key] = ans
				mu.Unlock()
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
		r.data.Inputs = decodeAnswers(answers)
	}
	return &stepOutcome{Inputs: decodeAnswers(answers)}, nil
}

// maxAsks bounds how often one step is asked again after an invalid answer.
const maxAsks = 3

func (e *Engine) askOne(ctx context.Context, r stepRequest, s InputStep) (json.RawMessage, error) {
	ir, err := inputRequest(s, r.data)
	if err != nil {
		return nil, err
	}
	var lastErr error
	for range maxAsks {
		var resp mcp.InputResponse
		switch p := ir.(type) {
		case *mcp.ElicitParams:
			resp, err = r.session.Elicit(ctx, p)
		case *mcp.CreateMessageParams:
			resp, err = r.session.CreateMessage(ctx, p)
		case *mcp.ListRootsParams:
			resp, err = r.session.ListRoots(ctx, p)
		}
		if err != nil {
			return nil, err
		}
		ans, err := answerOf(s, resp)
		if err == nil {
			return ans, nil
		}
		lastErr = err
	}
	return nil, fmt.Errorf("no valid answer after %d tries: %w", maxAsks, lastErr)
}

// inputRequest renders the request a step sends. A secret a template
// resolves is redacted from it: the client never sees secret values.
func inputRequest(s InputStep, data *actions.Data) (mcp.InputRequest, error) {
	msg, err := s.Message.Render(data)
	if err != nil {
		return nil, fmt.Errorf("input step %q message: %w", s.Key, err)
	}
	msg = data.Redact(msg)
	switch s.Kind {
	case StepForm:
		return &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: s.Schema}, nil
	case StepURL:
		u, err := s.URL.Render(data)
		if err != nil {
			return nil, fmt.Errorf("input step %q url: %w", s.Key, err)
		}
		return &mcp.ElicitParams{Mode: "url", Message: msg, URL: data.Redact(u)}, nil
	case StepSampling:
		maxTokens := s.MaxTokens
		if maxTokens == 0 {
			maxTokens = 1000
		}
		return &mcp.CreateMessageParams{
			Messages:     []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: msg}}},
			MaxTokens:    int64(maxTokens),
			SystemPrompt: s.SystemPrompt,
		}, nil
	case StepRoots:
		return &mcp.ListRootsParams{}, nil
	}
	return nil, fmt.Errorf("input step %q: unknown kind %q", s.Key, s.Kind)
}

// answerOf checks a client's response against its step and returns the
// answer as templates see it, or why it cannot be accepted.
func answerOf(s InputStep, resp mcp.InputResponse) (json.RawMessage, error) {
	var v any
	switch s.Kind {
	case StepForm, StepURL:
		er, ok := resp.(*mcp.ElicitResult)
		if !ok {
			return nil, fmt.Errorf("want an elicitation result, got %T", resp)
		}
		switch er.Action {
		case "accept":
			if s.Kind == StepForm {
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
	case StepSampling:
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
	case StepRoots:
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

// declined returns the first form or URL step the person did not accept.
func declined(steps []InputStep, inputs map[string]any) error {
	for _, s := range steps {
		if s.Kind != StepForm && s.Kind != StepURL {
			continue
		}
		// Desktop answers are deniedOnDesktop's, which says why.
		if ans, ok := inputs[s.Key].(map[string]any); ok && ans["by"] != AnsweredByDesktop && (ans["action"] == "decline" || ans["action"] == "cancel") {
			return &errDeclined{key: s.Key, action: fmt.Sprint(ans["action"])}
		}
	}
	return nil
}
