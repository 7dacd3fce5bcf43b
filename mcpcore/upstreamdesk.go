package mcpcore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server's form (elicitation) during a call of one of its tools goes to
// the AI app when the app can show forms; when it cannot, the person at
// the computer fills it in, as for mcptray's own form steps. The server
// is told the client shows forms only then, so it does not ask an app
// that cannot answer, nor give up when the desktop could.

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
		p, ok := ir.(*mcp.ElicitParams)
		if !ok || p.Mode != "" && p.Mode != "form" {
			return false
		}
	}
	return len(reqs) > 0
}

// answerFormsOnDesktop has the person at the computer fill in the forms
// the server asks for (res.InputRequests), and calls the server again with
// the answers, until it asks no more, or asks what only the AI app could
// answer (passUpstreamInput then passes it on).
func (e *Engine) answerFormsOnDesktop(ctx context.Context, c *toolCall, res *mcp.CallToolResult, run *taskRun, rep actions.Reporter) (*mcp.CallToolResult, any, error) {
	server := c.tool.Action.Upstream.Server
	for range maxUpstreamRounds {
		answers := make(mcp.InputResponseMap, len(res.InputRequests))
		for _, key := range slices.Sorted(maps.Keys(res.InputRequests)) {
			a, err := e.askFormOnDesktop(ctx, c.desk, key, res.InputRequests[key].(*mcp.ElicitParams), c.data.Redact)
			if err != nil {
				return nil, nil, err
			}
			answers[key] = a
		}
		c.data.Round.Responses, c.data.Round.State = answers, res.RequestState
		var structured any
		var err error
		if res, structured, err = e.runAction(ctx, c.tool, c.output, c.data, rep); err != nil || res.InputRequests == nil {
			return res, structured, err
		}
		if !onlyForms(res.InputRequests) {
			return e.passUpstreamInput(ctx, c, res, run, rep)
		}
	}
	return nil, nil, fmt.Errorf("the server %q kept asking for input: %d rounds answered", server, maxUpstreamRounds)
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
		Hints: desk.hints, Server: desk.server, TaskID: desk.taskID, Key: key, Kind: catalog.StepForm,
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
// own (ir), during the call ctx is when one can be told: the AI app that
// made the call is asked when it can answer (AskCaller); a form it cannot
// show (it declared no forms, it speaks 2026-07-28, or no single call can
// be told) is filled in at the computer when the desktop can answer.
func (e *Engine) AnswerServer(ctx context.Context, server string, ir mcp.InputRequest) (mcp.InputResponse, error) {
	p, form := ir.(*mcp.ElicitParams)
	if !form || p.Mode != "" && p.Mode != "form" || callerShowsForms(ctx) || !e.desktopAnswers() {
		return AskCaller(ctx, ir)
	}
	desk := deskCall{server: server}
	if c := callRecordOf(ctx); c != nil {
		desk = c.deskOf()
		desk.server = server
	}
	// The server's secrets are blacked out of its question, call or none.
	data := e.data(ctx, nil)
	if e.opts.Upstreams != nil {
		data.ResolveSecrets(e.opts.Upstreams.UpstreamSecrets(server))
	}
	return e.askFormOnDesktop(ctx, desk, "form", p, data.Redact)
}

// callerShowsForms reports whether the AI app of the call ctx is can be
// asked for a form on its session: a 2025-11-25 app that declared forms.
func callerShowsForms(ctx context.Context) bool {
	c := callRecordOf(ctx)
	if c == nil || c.session == nil || !isLegacy(c.session) {
		return false
	}
	init := c.session.InitializeParams()
	return init != nil && init.Capabilities != nil && init.Capabilities.Elicitation != nil
}
