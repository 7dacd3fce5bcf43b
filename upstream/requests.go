package upstream

//lint:file-ignore SA1019 servers fronted may still ask for sampling and roots, which go-sdk marks deprecated as of 2026-07-28 (SEP-2577).

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			if f := cfg.OnResourceUpdated; f != nil && r.Params != nil {
				f(name, r.Params.URI)
			}
		},
		// A server's input_required rounds go back to the AI client
		// (mcpcore), which alone can answer them: go-sdk would answer
		// them here, with handlers that know no client.
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	}
	opts.LoggingMessageHandler = func(_ context.Context, r *mcp.LoggingMessageRequest) {
		if ctx, ok := s.callContext(); ok && cfg.Log != nil {
			cfg.Log(ctx, name, r.Params)
			return
		}
		s.m.log.Debug("upstream log", "server", name, "level", r.Params.Level, "logger", r.Params.Logger, "data", r.Params.Data)
	}
	if cfg.Sample != nil {
		opts.CreateMessageHandler = func(ctx context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return cfg.Sample(s.answerContext(ctx), name, r.Params)
		}
	}
	// Elicitation and roots are answered ahead of go-sdk's own handling:
	// roots have no handler of go-sdk's, and go-sdk's client checks a
	// form's schema more strictly than MCP does (it refuses SEP-1330's
	// titled multi-select, items.anyOf): the AI app that answers is the
	// one to judge the form.
	if cfg.Elicit != nil {
		opts.Capabilities.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}
	}
	if cfg.Roots != nil {
		opts.Capabilities.RootsV2 = &mcp.RootCapabilities{}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "mcptray", Version: cfg.Version}, opts)
	c.AddSendingMiddleware(compactSchemas)
	c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch {
			case method == "elicitation/create" && cfg.Elicit != nil:
				p, _ := req.GetParams().(*mcp.ElicitParams)
				if p == nil {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "elicitation/create without params"}
				}
				return cfg.Elicit(s.answerContext(ctx), name, p)
			case method == "roots/list" && cfg.Roots != nil:
				roots, err := cfg.Roots(s.answerContext(ctx), name)
				if err != nil {
					return nil, err
				}
				return &mcp.ListRootsResult{Roots: roots}, nil
			}
			return next(ctx, method, req)
		}
	})
	return c
}

// answerContext is the context a server's request is answered in: the
// call's it belongs to, when that can be told, else the request's own.
func (s *server) answerContext(ctx context.Context) context.Context {
	if call, ok := s.callContext(); ok {
		return call
	}
	return ctx
}

// logLevelPerRequest is the first revision whose requests carry their log
// level (_meta), with no logging/setLevel.
const logLevelPerRequest = "2026-07-28"

// askToLog asks a server on 2025-11-25, which logs only once asked to (on
// 2026-07-28 each request says its level), to log from debug on: what it
// logs during a call reaches the call's client, whose session filters by
// the level it chose.
func (s *server) askToLog(ctx context.Context, name string, cs *mcp.ClientSession) {
	r := cs.InitializeResult()
	if r == nil || r.ProtocolVersion >= logLevelPerRequest || r.Capabilities == nil || r.Capabilities.Logging == nil {
		return
	}
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		s.m.log.Debug("upstream refused a logging level", "server", name, "error", err)
	}
}
