package mcpcore

//lint:file-ignore SA1019 a server fronted may ask a 2025-11-25 client for sampling and roots, which go-sdk marks deprecated as of 2026-07-28 (SEP-2577).

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An upstream tool's server may answer a call, or a get of its prompt,
// with input_required: it asks the AI client for input (elicitation,
// sampling, roots) before it answers. The engine passes the questions on
// as they are and the answers back:
//
//   - a 2026-07-28 client gets an input_required round of mcptray's, whose
//     requestState is sealed by mcptray and carries the server's own (a
//     client cannot forge the server's state, nor replay it on another
//     call, tool or token); its next request brings the answers;
//   - a 2025-11-25 session is asked with server→client requests while the
//     request waits, and the server is called again with the answers;
//   - a call running as a task waits in input_required with the server's
//     questions, which the client answers with tasks/update, as it does
//     the tool's own in-task steps.
//
// The server sees the capabilities the AI client declared, so it asks only
// what the client can answer, but for forms where the desktop can fill
// them in (upstreamdesk.go). A server on a 2025-11-25 session of its own
// asks on it instead, during the request (AskCaller, AnswerServer).

// maxUpstreamRounds bounds a server's rounds within one request of the
// client's (or one task), as go-sdk's own client does.
const maxUpstreamRounds = 10

// upstreamRound is the AI client's side of an upstream entry's rounds in
// this request: its capabilities (caps, the request's _meta value or the
// session's), and, when the request answers the server's last round, the
// answers and the server's state out of the sealed requestState. own says
// whether the entry has client steps of mcptray's, whose answers a request
// without a state carries instead. desk are the answers the person gave
// on the desktop earlier in this call, when the state carries a pass not
// used yet (deskpass.go); nil otherwise, and the person is asked.
func (e *Engine) upstreamRound(bind binding, caps any, responses mcp.InputResponseMap, state string, own bool) (round *actions.UpstreamRound, desk map[string]any, err error) {
	round = &actions.UpstreamRound{Capabilities: caps}
	if state == "" {
		if !own {
			// A client may answer a round it was never asked (extra keys
			// are the server's to ignore).
			round.Responses = responses
		}
		return round, nil, nil
	}
	st, err := e.openRoundState(bind, state)
	if err != nil {
		return nil, nil, err
	}
	if st.Upstream {
		round.Responses, round.State = responses, st.UpstreamState
		if st.Pass != "" && e.passes.redeem(st.Pass) {
			desk = decodeAnswers(st.Desk)
		}
	}
	return round, desk, nil
}

// clientCapabilities is the value of the _meta clientCapabilities to send
// the server: the request's own on 2026-07-28 (in meta), else the
// session's (caps), in the 2026-07-28 form (roots an object when
// declared).
func clientCapabilities(meta mcp.Meta, caps *mcp.ClientCapabilities) any {
	if v, ok := meta[mcp.MetaKeyClientCapabilities]; ok && v != nil {
		return v
	}
	out := map[string]any{}
	if caps == nil {
		return out
	}
	b, err := json.Marshal(caps)
	if err != nil || json.Unmarshal(b, &out) != nil {
		return map[string]any{}
	}
	delete(out, "roots")
	if caps.RootsV2 != nil {
		out["roots"] = caps.RootsV2
	} else if caps.Roots.ListChanged {
		out["roots"] = map[string]any{"listChanged": true}
	}
	return out
}

// sealUpstream is the requestState of a round that passes a server's
// questions on: the answers to the entry's own steps, the server's state,
// and the answers the person gave on the desktop (desk) with a pass for
// the next request (deskpass.go).
func (e *Engine) sealUpstream(bind binding, answers, desk map[string]any, serverState string) (string, error) {
	st := roundState{Upstream: true, UpstreamState: serverState}
	var err error
	if st.Answers, err = encodeAnswers(answers); err != nil {
		return "", err
	}
	if len(desk) > 0 {
		if st.Desk, err = encodeAnswers(desk); err != nil {
			return "", err
		}
		st.Pass = e.passes.issue(e.currentSettings().RequestStateTTL())
	}
	return e.sealRoundState(bind, st)
}

// encodeAnswers keeps answers as JSON, to seal them.
func encodeAnswers(answers map[string]any) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(answers))
	for k, v := range answers {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("keeping the answer to %q: %w", k, err)
		}
		out[k] = b
	}
	return out, nil
}

// serverAsk is one request of mcptray's to an upstream server — a call of
// one of its tools, or a get of one of its prompts — during which the
// server may ask the AI app for input (input_required), and what passing
// its questions on needs.
type serverAsk struct {
	server string
	// round carries the AI app's capabilities, and the answers to the
	// server's last round, to again.
	round *actions.UpstreamRound
	// again sends the request again, with round: the server's next round,
	// or none once it answered (which again keeps).
	again func() (mcp.InputRequestMap, string, error)
	// session is the AI app's: one on 2025-11-25 is asked with
	// server→client requests; one on 2026-07-28 within a result of
	// mcptray's, whose state seals bind, the answers to the entry's own
	// steps and those the person gave on the desktop (sealUpstream).
	session              *mcp.ServerSession
	bind                 binding
	answers, deskAnswers map[string]any
	// run is the task the call runs as (nil: in the request), which asks
	// the app through tasks/update.
	run *taskRun
	// deskForms says the server was told the app shows forms because the
	// desktop does (upstreamdesk.go): the desktop fills them in, told of
	// the request as desk says, the server's secrets blacked out by redact.
	deskForms bool
	desk      deskCall
	redact    func(string) string
}

// passOn has a server's round (reqs, state) answered and the server asked
// again, until it answers: forms the app cannot show are filled in on the
// desktop, the rest is asked of the app, through the task the call runs
// as, or on the app's 2025-11-25 session. An app on 2026-07-28 outside a
// task is asked within a result of mcptray's: passOn then returns that
// round, with its sealed state, where it otherwise returns nil.
func (e *Engine) passOn(ctx context.Context, a *serverAsk, reqs mcp.InputRequestMap, state string) (*roundsOutcome, error) {
	for range maxUpstreamRounds {
		var answers mcp.InputResponseMap
		var err error
		switch {
		case a.deskForms && onlyForms(reqs):
			answers, err = e.formsOnDesktop(ctx, a, reqs)
		case a.run != nil:
			if c := callRecordOf(ctx); c != nil {
				c.redactInputRequests(reqs)
			}
			answers, err = a.run.passOn(ctx, reqs)
		case !isLegacy(a.session):
			sealed, err := e.sealUpstream(a.bind, a.answers, a.deskAnswers, state)
			if err != nil {
				return nil, err
			}
			return &roundsOutcome{Requests: reqs, State: sealed}, nil
		default:
			if answers, err = askSessionInputs(ctx, a.session, reqs); err != nil {
				err = fmt.Errorf("the server %q asked for input: %w", a.server, err)
			}
		}
		if err != nil {
			return nil, err
		}
		a.round.Responses, a.round.State = answers, state
		if reqs, state, err = a.again(); err != nil || reqs == nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("the server %q kept asking for input: %d rounds answered", a.server, maxUpstreamRounds)
}

// passUpstreamInput is the answer to a call whose server asked for input
// (res.InputRequests), once passOn had it answered, or the round passOn
// gives a 2026-07-28 client to answer.
func (e *Engine) passUpstreamInput(ctx context.Context, c *toolCall, res *mcp.CallToolResult, run *taskRun, rep actions.Reporter) (*mcp.CallToolResult, any, error) {
	var structured any
	out, err := e.passOn(ctx, &serverAsk{
		server: c.tool.Action.Upstream.Server,
		round:  c.data.Round,
		again: func() (mcp.InputRequestMap, string, error) {
			var err error
			if res, structured, err = e.runAction(ctx, c.tool, c.output, c.data, rep); err != nil {
				return nil, "", err
			}
			return res.InputRequests, res.RequestState, nil
		},
		session: c.req.Session, bind: c.bind, answers: c.answers, deskAnswers: onDesktop(c.plan.desktop, c.data.Inputs),
		run: run, deskForms: c.deskForms, desk: c.desk, redact: c.data.Redact,
	}, res.InputRequests, res.RequestState)
	switch {
	case err != nil:
		return nil, nil, err
	case out != nil:
		return &mcp.CallToolResult{InputRequests: out.Requests, RequestState: out.State}, nil, nil
	}
	return res, structured, nil
}

// askSessionInputs asks a 2025-11-25 session's client every request of a
// round, concurrently, redacted of the secrets the request resolved.
func askSessionInputs(ctx context.Context, ss *mcp.ServerSession, reqs mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
		out  = make(mcp.InputResponseMap, len(reqs))
	)
	c := callRecordOf(ctx)
	for key, ir := range reqs {
		if c != nil {
			c.redactInputRequest(ir)
		}
		wg.Go(func() {
			resp, err := sessionAsk(ctx, ss, ir)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", key, err))
				return
			}
			out[key] = resp
		})
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// errNoCaller answers a server's question that no AI client can be asked.
var errNoCaller = errors.New("no AI app can be asked: no single call of this server's tools, or get of its prompts, is under way")

// errModernCaller answers a server's question during a call from a
// 2026-07-28 client, which can be asked only in a result.
var errModernCaller = errors.New("the AI app calls over MCP 2026-07-28, which asks a client only within a result: the server must return input_required")

// AskCaller asks the AI client whose request ctx is (a call of an
// upstream tool, or a get of an upstream prompt, during which its server
// asks on a 2025-11-25 session of its own) one input request, redacted of
// the secrets the request resolved: with the server→client request of its
// kind on the client's 2025-11-25 session, or through the task the call
// runs as. A 2026-07-28 client outside a task, or no request, cannot be
// asked this way: the error says why.
func AskCaller(ctx context.Context, ir mcp.InputRequest) (mcp.InputResponse, error) {
	c := callRecordOf(ctx)
	switch {
	case c == nil:
		return nil, errNoCaller
	case c.run != nil:
		return c.run.askFor(ctx, c, ir)
	case c.session == nil:
		return nil, errNoCaller
	case !isLegacy(c.session):
		return nil, errModernCaller
	}
	c.redactInputRequest(ir)
	return sessionAsk(ctx, c.session, ir)
}

// askFor asks the client of the task, through the task, one question the
// server of its call asked on its own session (ir), under the key of its
// kind; c is the task's call record.
func (r *taskRun) askFor(ctx context.Context, c *callRecord, ir mcp.InputRequest) (mcp.InputResponse, error) {
	key := cmp.Or(kindOf(ir), "request")
	c.redactInputRequest(ir)
	answers, err := r.passOn(ctx, mcp.InputRequestMap{key: ir})
	if err != nil {
		return nil, err
	}
	return answers[key], nil
}

// callerCan reports whether the AI app of the request ctx is (an upstream
// tool's call, or an upstream prompt's get) can be asked a question of
// kind while the request waits: it is on a 2025-11-25 session, or its call
// runs as a task, and it declared it can answer such questions.
func callerCan(ctx context.Context, kind string) bool {
	c := callRecordOf(ctx)
	if c == nil || c.run == nil && !isLegacy(c.session) {
		return false
	}
	_, caps := c.caller()
	return capable(kind, caps)
}

// LogToCaller passes a server's log message, sent during a call of one of
// its tools or a get of its prompt, to the AI client whose request ctx is:
// its session sends it if the client asked for that level
// (logging/setLevel on 2025-11-25, the request's _meta on 2026-07-28); a
// task has no stream to send it on. Secrets the request resolved are
// redacted.
func LogToCaller(ctx context.Context, p *mcp.LoggingMessageParams) {
	c := callRecordOf(ctx)
	if c == nil || c.session == nil || p == nil {
		return
	}
	msg := *p
	if s, ok := msg.Data.(string); ok {
		msg.Data = c.redact(s)
	} else if msg.Data != nil {
		msg.Data = c.redactJSON(msg.Data)
	}
	_ = c.session.Log(ctx, &msg)
}
