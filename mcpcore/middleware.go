package mcpcore

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/mcptray/mcptray/record"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// legacyResourceNotFound is the 2025-11-25 code for an unknown resource;
// 2026-07-28 moved it to -32602.
const legacyResourceNotFound = -32002

// middleware adapts go-sdk for one scope's server. Around every request
// (notifications aside) it keeps the request's bookkeeping, redacts the
// secret values the request's templates resolved from its answer, and
// records it in the activity log. Listen streams end with their result when
// the server is retired or the engine shuts down, and legacy sessions get
// the legacy resource-not-found code.
func (e *Engine) middleware(sc *scope) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			// go-sdk runs handlers on goroutines of its own, where a panic
			// would end the whole server: one bad request must not.
			defer func() {
				if r := recover(); r != nil {
					e.log.Error("panic while handling a request", "method", method, "panic", r, "stack", string(debug.Stack()))
					res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal error while handling %s; see mcptray's log", method)}
				}
			}()
			if strings.HasPrefix(method, "notifications/") {
				return next(ctx, method, req)
			}
			var described *record.Activity
			if e.opts.Activity != nil {
				a := requestActivity(time.Now(), method, req)
				described = &a
			}
			ctx, c := withCallRecord(ctx)
			c.owner = principalOf(req.GetExtra())
			c.session, _ = req.GetSession().(*mcp.ServerSession)
			res, err = e.limited(ctx, method, req, c.owner, described, func(ctx context.Context) (mcp.Result, error) {
				return e.handle(ctx, sc, next, method, req)
			})
			if err == nil && c.task != nil {
				res = c.task
			}
			// Redacted first: a limit on size must never cut a secret
			// into a part that is no longer recognised.
			res, err = c.redactResult(res), wireError(c.redactError(err))
			if err == nil && res != nil && isLimitedCall(method) {
				if lerr := checkResultSize(res, e.currentSettings().MaxResultBytes); lerr != nil {
					res, err = nil, lerr
				}
			}
			if described != nil {
				// ctx is the request's own: the engine stopping cancels
				// only the call's (limited), and answers it with an error.
				a := ended(*described, res, err, ctx.Err() != nil)
				c.mu.Lock()
				a.Approvals = slices.Clone(c.approvals)
				c.mu.Unlock()
				e.record(a)
			}
			return res, err
		}
	}
}

// longCall is how long a call runs before the activity log gets a record
// that it is running: if mcptray dies before the call ends, the log still
// shows the call was accepted and may have run.
const longCall = time.Second

// callsDrain bounds how long Shutdown waits for the calls it stopped to
// answer.
const callsDrain = 3 * time.Second

// errStopping is the cause of the cancellation of calls in flight when the
// engine shuts down.
var errStopping = errors.New("mcptray is stopping")

// limited runs one request within its token's limits (limits.go) and the
// engine's life: a call beyond maxCallsPerToken is refused, a long one is
// logged as running (described, when the activity log is kept), and one
// still in flight when the engine shuts down is answered with
// errStoppedDuring instead of a dropped connection.
func (e *Engine) limited(ctx context.Context, method string, req mcp.Request, token string, described *record.Activity, run func(context.Context) (mcp.Result, error)) (mcp.Result, error) {
	if method == "subscriptions/listen" {
		return run(ctx) // ended, with its result, by Shutdown
	}
	if isLimitedCall(method) {
		max := e.currentSettings().MaxCallsPerToken
		release, ok := e.calls.acquire(token, max)
		if !ok {
			return nil, limitError("maxCallsPerToken", int64(max), 0,
				"%s has %d calls running, the most it may (maxCallsPerToken); wait for one to finish, or raise the limit in mcptray's settings", tokenLabel(token), max)
		}
		defer release()
		if described != nil {
			a := *described
			a.Outcome, a.Detail = record.OutcomeRunning, "still running; a second record says how it ended (none if mcptray stopped first)"
			t := time.AfterFunc(longCall, func() {
				a.Duration = time.Since(a.Time)
				e.record(a)
			})
			defer t.Stop()
		}
	}
	e.inflight.Add(1)
	defer e.inflight.Add(-1)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(e.stopping, func() { cancel(errStopping) })()
	res, err := run(ctx)
	if errors.Is(context.Cause(ctx), errStopping) && e.stopping.Err() != nil && (err != nil || isErrorResult(res)) {
		return nil, errStoppedDuring(method)
	}
	return res, err
}

// errStoppedDuring answers a call that mcptray stopped before it ended.
func errStoppedDuring(method string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
		Message: fmt.Sprintf("mcptray is stopping: this %s was stopped before it finished, and may have run in part; send it again once mcptray is back", method)}
}

// isErrorResult reports whether res is a tool error result.
func isErrorResult(res mcp.Result) bool {
	r, ok := res.(*mcp.CallToolResult)
	return ok && r != nil && r.IsError
}

// awaitCalls waits until no call is in flight, or for at most d.
func (e *Engine) awaitCalls(d time.Duration) {
	deadline := time.Now().Add(d)
	for e.inflight.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
}

// handle runs one request on the scope's server.
func (e *Engine) handle(ctx context.Context, sc *scope, next mcp.MethodHandler, method string, req mcp.Request) (mcp.Result, error) {
	if method == "subscriptions/listen" {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(sc.listens, cancel)
		defer stop()
		return next(ctx, method, req)
	}
	res, err := next(ctx, method, req)
	if method == "resources/read" && err != nil {
		var je *jsonrpc.Error
		if errors.As(err, &je) && je.Code == jsonrpc.CodeInvalidParams && je.Message == "Resource not found" {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && isLegacy(ss) {
				return res, &jsonrpc.Error{Code: legacyResourceNotFound, Message: je.Message, Data: je.Data}
			}
		}
	}
	return res, err
}

// wireError gives an error without a JSON-RPC code the internal-error code
// (go-sdk would send it with code 0). Cancellation is left as it is.
func wireError(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return err
	}
	return internalCode{err}
}

// internalCode is a plain error with the internal-error code: errors.As
// finds a -32603 *jsonrpc.Error in it, and errors.Is still finds the
// original (go-sdk checks some plain sentinel errors).
type internalCode struct{ err error }

func (c internalCode) Error() string { return c.err.Error() }

func (c internalCode) Unwrap() []error {
	return []error{c.err, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: c.err.Error()}}
}
