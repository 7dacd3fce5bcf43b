package record

import (
	"strings"
	"time"
)

// Activity is one request as the activity log keeps it. Secret values
// never appear in it.
type Activity struct {
	Time time.Time `json:"time"`
	// Era is the protocol revision the request used.
	Era           string `json:"era"`
	Client        string `json:"client,omitempty"`
	ClientVersion string `json:"clientVersion,omitempty"`
	// Token is the client token's name; empty when auth is off.
	Token  string `json:"token,omitempty"`
	Method string `json:"method"`
	// Target is the tool or prompt name, or the resource URI.
	Target   string        `json:"target,omitempty"`
	Duration time.Duration `json:"duration"`
	// Outcome is "ok", "isError" (a tool error), "input_required",
	// "task", "cancelled" (by the client or on the desktop: neither a
	// success nor a failure) or "error" (a JSON-RPC error, with ErrorCode).
	Outcome   string `json:"outcome"`
	ErrorCode int64  `json:"errorCode,omitempty"`
	// Detail is a short excerpt of the result or the error message.
	Detail string `json:"detail,omitempty"`
	// Approvals are the approvals given or refused during the request,
	// e.g. `approval: allowed once` or `approval: denied: not now`
	// (asker.go words them).
	Approvals []string `json:"approvals,omitempty"`
	// Capabilities are what the client declared it can answer, in words
	// (see declaredCapabilities); nil when the request carried none to
	// read, empty when the client declared none.
	Capabilities []string `json:"capabilities,omitempty"`
}

// Activity outcomes.
const (
	OutcomeOK            = "ok"
	OutcomeToolError     = "isError"
	OutcomeInputRequired = "input_required"
	OutcomeError         = "error"
	// OutcomeTask is a tools/call answered with a task (CreateTaskResult).
	OutcomeTask = "task"
	// OutcomeCancelled is a request the client cancelled or gave up on
	// (its HTTP request dropped), or a task cancelled by its client or on
	// the desktop.
	OutcomeCancelled = "cancelled"
	// OutcomeRunning is a call still running a second after it started,
	// recorded then so that the log keeps it even if mcptray dies before
	// it ends; a second record says how it ended.
	OutcomeRunning = "running"
)

// RefusedMethodPrefix starts the Method of a request turned away before it
// was read (a foreign Host or Origin, no or a bad token, a body too large):
// "HTTP " and the HTTP method, e.g. "HTTP POST".
const RefusedMethodPrefix = "HTTP "

// Refused reports whether a records a request turned away before it was
// read. The activity log counts those apart (storage aggregates them), so
// that a flood of them never pushes accepted requests out of the log.
func (a Activity) Refused() bool { return strings.HasPrefix(a.Method, RefusedMethodPrefix) }

// Outcomes lists every outcome, in the order people read them in a filter.
var Outcomes = []string{OutcomeOK, OutcomeToolError, OutcomeError, OutcomeCancelled, OutcomeInputRequired, OutcomeTask, OutcomeRunning}
