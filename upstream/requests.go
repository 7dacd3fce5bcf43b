package upstream

//lint:file-ignore SA1019 servers fronted may still ask for sampling and roots, which go-sdk marks deprecated as of 2026-07-28 (SEP-2577).

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// client is a go-sdk client whose handlers know this server.
func (s *server) client() *mcp.Client {
	cfg, name := &s.m.cfg, s.def.Name
	opts := &mcp.ClientOptions{
		Logger:                      s.m.log,
		Capabilities:                &mcp.ClientCapabilities{},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { s.m.progress.deliver(r.Params) },
		ToolListChangedHandler:      func(context.Context, *mcp.ToolListChangedRequest) { s.listChanged() },
		PromptListChangedHandler:    func(context.Context, *mcp.PromptListChangedRequest) { s.listChanged() },
		ResourceListChangedHandler:  func(context.Context, *mcp.ResourceListChangedRequest) { s.listChanged() },
		// A server's input_required rounds go back to the AI client
		// (mcpcore), which alone can answer them: go-sdk would answer
		// them here, with handlers that know no client.
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	}
	if cfg.Elicit != nil {
		opts.ElicitationHandler = func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return cfg.Elicit(ctx, name, r.Params)
		}
	}
	if cfg.Sample != nil {
		opts.CreateMessageHandler = func(ctx context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return cfg.Sample(ctx, name, r.Params)
		}
	}
	if cfg.Roots != nil {
		opts.Capabilities.RootsV2 = &mcp.RootCapabilities{}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "mcptray", Version: cfg.Version}, opts)
	if cfg.Roots != nil {
		c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method != "roots/list" {
					return next(ctx, method, req)
				}
				roots, err := cfg.Roots(ctx, name)
				if err != nil {
					return nil, err
				}
				return &mcp.ListRootsResult{Roots: roots}, nil
			}
		})
	}
	return c
}
