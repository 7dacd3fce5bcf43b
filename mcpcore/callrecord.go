package mcpcore

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callRecord is what the engine keeps about one request while it is
// handled, for the middleware to use once the handler returns: the template
// data its handlers made (to redact the secret values they resolved, see
// redact.go), the task a tools/call started, and the approvals asked.
type callRecord struct {
	mu   sync.Mutex
	data []*actions.Data
	// secrets is set once a template of the call resolved a secret; until
	// then there is nothing to redact and the answer is left alone.
	secrets atomic.Bool
	// owner is the client token of the request ("" when auth is off).
	owner string
	// task, when set, is what a tools/call that started a task answers
	// with, in place of the handler's result.
	task *createTaskResult
	// approvals are the approvals given or refused, for the activity log.
	approvals []string
	// session is the request's session: an upstream tool's server asks
	// and logs to its client during the call (AskCaller, LogToCaller).
	session *mcp.ServerSession
	// desk and caps, for a call of an upstream tool or a get of an
	// upstream prompt, are what the desktop is told of it and what the AI
	// app declared it can answer, for what the server asks on its own
	// session meanwhile (AnswerServer, AskCaller); guarded by mu.
	desk deskCall
	caps *mcp.ClientCapabilities
	// run, on the record of a task's run, is the task: what the server of
	// its call asks on its own session is asked through it (AskCaller).
	run *taskRun
}

// setCaller records what the desktop is told of the request and what its
// AI app can answer; a nil record (no request) records nothing.
func (c *callRecord) setCaller(d deskCall, caps *mcp.ClientCapabilities) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.desk, c.caps = d, caps
}

// caller is what the desktop is told of the request and what its AI app
// can answer.
func (c *callRecord) caller() (deskCall, *mcp.ClientCapabilities) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.desk, c.caps
}

type callRecordKey struct{}

// withCallRecord starts the bookkeeping of one request.
func withCallRecord(ctx context.Context) (context.Context, *callRecord) {
	c := &callRecord{}
	return context.WithValue(ctx, callRecordKey{}, c), c
}

// callRecordOf returns the request's bookkeeping, or nil outside a request.
func callRecordOf(ctx context.Context) *callRecord {
	c, _ := ctx.Value(callRecordKey{}).(*callRecord)
	return c
}

// add keeps template data of the request, whose secrets its answer must not
// show.
func (c *callRecord) add(d *actions.Data) {
	c.mu.Lock()
	c.data = append(c.data, d)
	c.mu.Unlock()
}

// addApproval records an approval verdict. A nil record (no request around
// the call) drops it, so callers need not check.
func (c *callRecord) addApproval(s string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.approvals = append(c.approvals, s)
	c.mu.Unlock()
}
