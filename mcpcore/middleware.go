package mcpcore

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// legacyResourceNotFound is the 2025-11-25 code for an unknown resource;
// 2026-07-28 moved it to -32602.
const legacyResourceNotFound = -32002

// middleware adapts go-sdk for one scope's server: its listen streams end
// with their result when the server is retired or the engine shuts down,
// and legacy sessions get the legacy resource-not-found code.
func (e *Engine) middleware(sc *scope) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
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
	}
}

// maxCompletions is the spec's cap on completion values.
const maxCompletions = 100

// complete offers the values a definition lists for a prompt argument or a
// template variable, filtered by the typed prefix.
func (e *Engine) complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	cat := e.catalog.Load()
	ref, arg := req.Params.Ref, req.Params.Argument
	var values []string
	found := false
	switch ref.Type {
	case "ref/prompt":
		for _, p := range cat.Prompts {
			if p.Name == ref.Name && !p.Disabled {
				found = true
				for _, a := range p.Arguments {
					if a.Name == arg.Name {
						values = a.Completions
					}
				}
			}
		}
	case "ref/resource":
		for _, t := range cat.ResourceTemplates {
			if t.URITemplate == ref.URI && !t.Disabled {
				found = true
				values = t.Completions[arg.Name]
			}
		}
	}
	if !found {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "completion: unknown " + strings.TrimPrefix(ref.Type, "ref/") + " reference"}
	}
	matches := []string{}
	for _, v := range values {
		if strings.HasPrefix(strings.ToLower(v), strings.ToLower(arg.Value)) {
			matches = append(matches, v)
		}
	}
	total := len(matches)
	matches = slices.Clip(matches[:min(total, maxCompletions)])
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: matches, Total: total, HasMore: total > maxCompletions}}, nil
}
