package mcpcore

//lint:file-ignore SA1019 2025-11-25 sessions answer sampling and roots steps; go-sdk marks both deprecated as of 2026-07-28 (SEP-2577).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// roundsRequest is one request's share of the steps the AI client answers
// before the action runs (or before a task is created).
type roundsRequest struct {
	// steps are the steps the client answers, routed and checked against
	// its capabilities already (stepPlan.client).
	steps []catalog.InputStep
	// bind ties a sealed requestState to this request.
	bind binding
	data *actions.Data
	// session is the request's session; a 2025-11-25 one is asked with
	// server→client requests.
	session *mcp.ServerSession
	// responses and state are what a 2026-07-28 request carries back: the
	// answers to the last round and the state sealed with it.
	responses mcp.InputResponseMap
	state     string
}

// roundsOutcome is either every answer (Inputs) or the next round to ask
// the client (Requests, with the sealed State to send along).
type roundsOutcome struct {
	Inputs   map[string]any
	Requests mcp.InputRequestMap
	State    string
}

// askClient drives the client's rounds for one request. On the 2026-07-28
// era it answers with one input_required round at a time, carrying the
// answers so far in a sealed requestState; a 2025-11-25 session is asked
// directly with server→client requests, round after round, while the
// request waits.
func (e *Engine) askClient(ctx context.Context, r roundsRequest) (*roundsOutcome, error) {
	rounds := roundsOf(r.steps)
	switch {
	case len(rounds) == 0:
		return &roundsOutcome{Inputs: map[string]any{}}, nil
	case isLegacy(r.session):
		return e.askSession(ctx, r, rounds)
	default:
		return e.askMRTR(r, rounds)
	}
}

// askMRTR advances the flow by the answers in this request and returns the
// next round to ask, or the inputs once every step is answered. Progress is
// derived from the sealed answers, never from a position: the round asked
// is the first with an unanswered step, so neither a client changing its
// declared capabilities between rounds nor an edit of the definition can
// skip a required step. Answers for that round are taken with or without a
// state (a client may answer the first round at once); unanswered or invalid
// answers are asked again, and unknown keys are ignored.
func (e *Engine) askMRTR(r roundsRequest, rounds []int) (*roundsOutcome, error) {
	st := roundState{Answers: map[string]json.RawMessage{}}
	if r.state != "" {
		var err error
		if st, err = e.openRoundState(r.bind, r.state); err != nil {
			return nil, err
		}
	}
	next := func() []catalog.InputStep {
		for _, round := range rounds {
			var open []catalog.InputStep
			for _, s := range inRound(r.steps, round) {
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
	var pending []catalog.InputStep
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
			return &roundsOutcome{Inputs: decodeAnswers(st.Answers)}, nil
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
	state, err := e.sealRoundState(r.bind, st)
	if err != nil {
		return nil, err
	}
	return &roundsOutcome{Requests: reqs, State: state}, nil
}

// askSession asks a 2025-11-25 client with server→client requests, one
// round at a time, the steps of a round concurrently.
func (e *Engine) askSession(ctx context.Context, r roundsRequest, rounds []int) (*roundsOutcome, error) {
	answers := map[string]json.RawMessage{}
	for _, round := range rounds {
		steps := inRound(r.steps, round)
		var (
			mu   sync.Mutex
			wg   sync.WaitGroup
			errs = make([]error, len(steps))
		)
		for i, s := range steps {
			wg.Go(func() {
				ans, err := askOne(ctx, r.session, s, r.data)
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
	return &roundsOutcome{Inputs: decodeAnswers(answers)}, nil
}

// maxAsks bounds how often one step is asked again after an invalid answer.
const maxAsks = 3

// askOne asks a session's client one step, again after an invalid answer,
// up to maxAsks times.
func askOne(ctx context.Context, ss *mcp.ServerSession, s catalog.InputStep, data *actions.Data) (json.RawMessage, error) {
	ir, err := inputRequest(s, data)
	if err != nil {
		return nil, err
	}
	var lastErr error
	for range maxAsks {
		resp, err := sessionAsk(ctx, ss, ir)
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

// sessionAsk asks a 2025-11-25 session's client one input request with
// the server→client request of its kind.
func sessionAsk(ctx context.Context, ss *mcp.ServerSession, ir mcp.InputRequest) (mcp.InputResponse, error) {
	switch p := ir.(type) {
	case *mcp.ElicitParams:
		return ss.Elicit(ctx, p)
	case *mcp.CreateMessageParams:
		return ss.CreateMessage(ctx, p)
	case *mcp.CreateMessageWithToolsParams:
		return ss.CreateMessageWithTools(ctx, p)
	case *mcp.ListRootsParams:
		return ss.ListRoots(ctx, p)
	}
	return nil, fmt.Errorf("a request of an unknown kind (%T)", ir)
}
