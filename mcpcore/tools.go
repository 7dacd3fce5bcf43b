package mcpcore

import (
	"context"
	"errors"

	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addTool registers a catalog tool. go-sdk validates the arguments against
// the input schema (applying defaults) before the handler runs, and the
// structured output against the output schema after.
func (e *Engine) addTool(srv *mcp.Server, t Tool) error {
	mt := &mcp.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		InputSchema: t.InputSchemaJSON(),
		Annotations: t.Hints.annotations(t.Title),
	}
	if len(t.OutputSchema) > 0 {
		mt.OutputSchema = t.OutputSchema
	}
	mcp.AddTool(srv, mt, e.toolHandler(t))
	return nil
}

func (h *Hints) annotations(title string) *mcp.ToolAnnotations {
	if h == nil {
		return nil
	}
	a := &mcp.ToolAnnotations{Title: title, DestructiveHint: h.Destructive, OpenWorldHint: h.OpenWorld}
	if h.ReadOnly != nil {
		a.ReadOnlyHint = *h.ReadOnly
	}
	if h.Idempotent != nil {
		a.IdempotentHint = *h.Idempotent
	}
	return a
}

func (e *Engine) toolHandler(t Tool) mcp.ToolHandlerFor[map[string]any, any] {
	return func(ctx context.Context, req *mcp.CallToolRequest, args map[string]any) (*mcp.CallToolResult, any, error) {
		data := e.data(args)
		out, err := e.runSteps(ctx, stepRequest{
			steps:     t.Steps,
			bind:      binding{Method: "tools/call", Name: t.Name, Arguments: data.Args, Principal: principalOf(req.Extra)},
			data:      data,
			session:   req.Session,
			caps:      req.ClientCapabilities,
			responses: req.Params.InputResponses,
			state:     req.Params.RequestState,
		})
		if err != nil {
			return nil, nil, err
		}
		if out.Requests != nil {
			return &mcp.CallToolResult{InputRequests: out.Requests, RequestState: out.State}, nil, nil
		}
		if err := declined(t.Steps, out.Inputs); err != nil {
			var d *errDeclined
			if errors.As(err, &d) {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil, nil
			}
		}
		data.Inputs = out.Inputs
		res, err := t.Action.Run(ctx, data, &reporter{req: req})
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			return nil, nil, err // go-sdk turns a plain error into an isError result
		}
		if len(t.OutputSchema) > 0 && !res.IsError && res.StructuredContent != nil {
			// Hand the value to go-sdk, which checks it against the output
			// schema and adds the serialized text block older clients read.
			structured := res.StructuredContent
			res.StructuredContent = nil
			return res, structured, nil
		}
		return res, nil, nil
	}
}

// principalOf names who made a request, for binding request state.
func principalOf(extra *mcp.RequestExtra) string {
	if extra == nil || extra.TokenInfo == nil {
		return ""
	}
	return extra.TokenInfo.UserID
}

// reporter streams an action's progress and logs on the request's own
// response stream; go-sdk drops logs the request did not ask for.
type reporter struct {
	req *mcp.CallToolRequest
}

func (r *reporter) Progress(ctx context.Context, progress, total float64, message string) error {
	token := r.req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	return r.req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: progress, Total: total, Message: message})
}

func (r *reporter) Log(ctx context.Context, level, logger string, data any) error {
	return r.req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: mcp.LoggingLevel(level), Logger: logger, Data: data})
}

var _ actions.Reporter = (*reporter)(nil)
