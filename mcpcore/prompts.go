package mcpcore

import (
	"context"
	"fmt"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addPrompt registers a catalog prompt.
func (e *Engine) addPrompt(srv *mcp.Server, p catalog.Prompt) error {
	mp := &mcp.Prompt{Name: p.Name, Title: p.Title, Description: p.Description}
	for _, a := range p.Arguments {
		mp.Arguments = append(mp.Arguments, &mcp.PromptArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
	}
	srv.AddPrompt(mp, e.promptHandler(p))
	return nil
}

// promptHandler answers prompts/get: the arguments checked, the prompt's
// steps asked of the client, then the messages rendered.
func (e *Engine) promptHandler(p catalog.Prompt) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if p.Upstream != nil {
			return e.upstreamPrompt(ctx, p, req)
		}
		args := map[string]any{}
		for _, a := range p.Arguments {
			v, ok := req.Params.Arguments[a.Name]
			if !ok && a.Required {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("prompt %q: missing required argument %q", p.Name, a.Name)}
			}
			if ok {
				args[a.Name] = v
			}
		}
		// A prompt's steps are all answered by the client (validation
		// refuses approvals and desktop steps for prompts), so its flow is
		// the client's rounds alone.
		plan, err := e.planSteps(p.Steps, false, req.ClientCapabilities)
		if err != nil {
			return nil, err
		}
		if len(plan.desktop) > 0 {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("prompt %q: step %q is answered on the desktop, which only a tool's steps can be", p.Name, plan.desktop[0].Key)}
		}
		data := e.data(ctx, args)
		out, err := e.askClient(ctx, roundsRequest{
			steps:     plan.client,
			bind:      binding{Method: "prompts/get", Name: p.Name, Arguments: args, Principal: principalOf(req.Extra)},
			data:      data,
			session:   req.Session,
			responses: req.Params.InputResponses,
			state:     req.Params.RequestState,
		})
		if err != nil {
			return nil, err
		}
		if out.Requests != nil {
			return &mcp.GetPromptResult{InputRequests: out.Requests, RequestState: out.State}, nil
		}
		data.Inputs = withSkipped(p.Steps, out.Inputs)
		if err := declined(p.Steps, data.Inputs); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		res := &mcp.GetPromptResult{Description: p.Description}
		for i, m := range p.Messages {
			c, err := actions.RenderContent(m.Content, data)
			if err != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("prompt %q message %d: %v", p.Name, i, err)}
			}
			res.Messages = append(res.Messages, &mcp.PromptMessage{Role: mcp.Role(m.Role), Content: c})
		}
		return res, nil
	}
}
