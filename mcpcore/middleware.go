package mcpcore

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"

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
			start := time.Now()
			ctx, c := withCallRecord(ctx)
			c.owner = principalOf(req.GetExtra())
			res, err = e.handle(ctx, sc, next, method, req)
			if err == nil && c.task != nil {
				res = c.task
			}
			res, err = c.redactResult(res), wireError(c.redactError(err))
			if e.opts.Activity != nil {
				a := activityOf(start, method, req, res, err)
				c.mu.Lock()
				a.Approvals = slices.Clone(c.approvals)
				c.mu.Unlock()
				e.record(a)
			}
			return res, err
		}
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
