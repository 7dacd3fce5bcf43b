package mcpcore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/mcptray/mcptray/catalog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server's form (elicitation) during a call of one of its tools, or a
// get of one of its prompts, goes to the AI app when the app can show
// forms; when it cannot, the person at the computer fills it in, as for
// mcptray's own form steps. The server is told the client shows forms
// only then, so it does not ask an app that cannot answer, nor give up
// when the desktop could.

// desktopAnswers reports whether a person at the computer can answer a
// form now: the desktop app runs and may open a window.
func (e *Engine) desktopAnswers() bool {
	if _, policy := e.opts.Asker.(PolicyAsker); e.opts.Asker == nil || policy {
		return false
	}
	return !e.clientFallback()
}

// withDesktopForms is caps, the AI client's capabilities as the server is
// told them, with forms added when the client shows none and the desktop
// can answer; desk says they were added.
func (e *Engine) withDesktopForms(caps any) (_ any, desk bool) {
	m, ok := caps.(map[string]any)
	if !ok || m["elicitation"] != nil || !e.desktopAnswers() {
		return caps, false
	}
	out := maps.Clone(m)
	out["elicitation"] = map[string]any{"form": map[string]any{}}
	return out, true
}

// onlyForms reports whether every request of a server's round is a form,
// which the desktop can answer.
func onlyForms(reqs mcp.InputRequestMap) bool {
	for _, ir := range reqs {
		if kindOf(ir) != catalog.StepForm {
			return false
		}
	}
	return len(reqs) > 0
}

// formsOnDesktop has the person at the computer fill in the forms of a
// server's round (reqs, every one a form), in the order of their keys, and
// gives the answers by those keys. A task says meanwhile that it waits for
// the desktop.
func (e *Engine) formsOnDesktop(ctx context.Context, a *serverAsk, reqs mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	if a.run != nil {
		a.run.setMessage("waiting for an answer on the desktop")
		defer a.run.setMessage("working")
	}
	answers := make(mcp.InputResponseMap, len(reqs))
	for _, key := range slices.Sorted(maps.Keys(reqs)) {
		ans, err := e.askFormOnDesktop(ctx, a.desk, key, reqs[key].(*mcp.ElicitParams), a.redact)
		if err != nil {
			return nil, err
		}
		answers[key] = ans
	}
	return answers, nil
}

// askFormOnDesktop has the person at the computer fill in form p, which
// the server of the call desk describes asks for (the zero deskCall when
// no call can be told), its texts redacted by redact.
func (e *Engine) askFormOnDesktop(ctx context.Context, desk deskCall, key string, p *mcp.ElicitParams, redact func(string) string) (*mcp.ElicitResult, error) {
	schema, err := json.Marshal(p.RequestedSchema)
	if err != nil {
		return nil, fmt.Errorf("the server %q asked for a form mcptray cannot show: %w", desk.server, err)
	}
	args := ""
	if desk.args != nil {
		b, _ := json.MarshalIndent(desk.args, "", "  ")
		args = redact(string(b))
	}
	q := Question{Client: desk.client, Token: desk.token, Tool: desk.tool, ToolTitle: desk.title, Arguments: args,
		Hints: desk.hints, Prompt: desk.prompt, Server: desk.server, TaskID: desk.taskID, Key: key, Kind: catalog.StepForm,
		Message: redact(p.Message), Schema: schema}
	ans, err := e.askInTime(ctx, e.opts.Asker, q)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil && errors.Is(err, context.Canceled):
		return nil, fmt.Errorf("mcptray stopped before anyone at the computer answered %q's question", desk.server)
	case err != nil:
		return nil, fmt.Errorf("asking %q's question on the desktop: %w", desk.server, err)
	}
	return &mcp.ElicitResult{Action: ans.Action, Content: ans.Content}, nil
}

// AnswerServer answers what server asks on a 2025-11-25 session of its
// own (ir), during the call or prompt get ctx is when one can be told: the
// AI app that made it is asked when it can answer (AskCaller); a form it
// cannot show (it declared no forms, it speaks 2026-07-28 outside a task,
// or no single request can be told) is filled in at the computer when the
// desktop can answer.
func (e *Engine) AnswerServer(ctx context.Context, server string, ir mcp.InputRequest) (mcp.InputResponse, error) {
	if kindOf(ir) != catalog.StepForm || callerCan(ctx, catalog.StepForm) || !e.desktopAnswers() {
		return AskCaller(ctx, ir)
	}
	a := &serverAsk{desk: deskCall{server: server}}
	if c := callRecordOf(ctx); c != nil {
		a.desk, _ = c.caller()
		a.desk.server, a.run = server, c.run
	}
	// The server's secrets are blacked out of its question, request or
	// none.
	data := e.data(ctx, nil)
	if e.opts.Upstreams != nil {
		data.ResolveSecrets(e.opts.Upstreams.UpstreamSecrets(server))
	}
	a.redact = data.Redact
	answers, err := e.formsOnDesktop(ctx, a, mcp.InputRequestMap{"form": ir})
	if err != nil {
		return nil, err
	}
	return answers["form"], nil
}
