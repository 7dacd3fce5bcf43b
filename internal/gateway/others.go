package gateway

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/mcptray/mcptray/storage"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server's prompts, resources and resource templates are served as it
// offers them, without the person's approval: unlike a tool's description,
// nothing of theirs reaches the model unless the person or the AI app
// picks one.

// sessioner gives a server's session (upstream.Manager).
type sessioner interface {
	Session(ctx context.Context, server string) (*mcp.ClientSession, func(), error)
}

// others reads server's prompts, resources and resource templates, each
// kind only when the server declares it, as catalog entries.
func others(ctx context.Context, s sessioner, u catalog.Upstream) (*storage.UpstreamOthers, error) {
	cs, done, err := s.Session(ctx, u.Name)
	if err != nil {
		return nil, err
	}
	defer done()
	out := &storage.UpstreamOthers{}
	var caps *mcp.ServerCapabilities
	if r := cs.InitializeResult(); r != nil {
		caps = r.Capabilities
	}
	if caps == nil {
		return out, nil
	}
	if caps.Prompts != nil {
		for p, err := range cs.Prompts(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("listing its prompts: %w", err)
			}
			out.Prompts = append(out.Prompts, promptFrom(u, p))
		}
	}
	if caps.Resources != nil {
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("listing its resources: %w", err)
			}
			out.Resources = append(out.Resources, catalog.Resource{URI: r.URI, Name: orName(r.Name, r.URI), Title: r.Title,
				Description: r.Description, MimeType: r.MIMEType, Upstream: &catalog.UpstreamSource{Server: u.Name}})
		}
		for t, err := range cs.ResourceTemplates(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("listing its resource templates: %w", err)
			}
			out.Templates = append(out.Templates, catalog.ResourceTemplate{URITemplate: t.URITemplate, Name: orName(t.Name, t.URITemplate),
				Title: t.Title, Description: t.Description, MimeType: t.MIMEType, Upstream: &catalog.UpstreamSource{Server: u.Name}})
		}
	}
	return out, nil
}

func promptFrom(u catalog.Upstream, p *mcp.Prompt) catalog.Prompt {
	out := catalog.Prompt{Name: ServedName(u.ToolPrefix(), p.Name), Title: p.Title, Description: p.Description,
		Upstream: &catalog.UpstreamPrompt{Server: u.Name, Prompt: p.Name}}
	if strings.TrimSpace(out.Description) == "" {
		out.Description = "(the server gives this prompt no description)"
	}
	for _, a := range p.Arguments {
		out.Arguments = append(out.Arguments, catalog.PromptArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
	}
	return out
}

func orName(name, fallback string) string {
	if strings.TrimSpace(name) != "" {
		return name
	}
	return fallback
}

// GetUpstreamPrompt gets prompt from server, with the AI client's
// capabilities and answers of round.
func (g *Gateway) GetUpstreamPrompt(ctx context.Context, server, prompt string, args map[string]string, round *actions.UpstreamRound) (*mcp.GetPromptResult, error) {
	if err := g.usable(server); err != nil {
		return nil, err
	}
	p := &mcp.GetPromptParams{Name: prompt, Arguments: args}
	p.Meta, p.InputResponses, p.RequestState = roundParams(round)
	return g.run.GetPrompt(ctx, server, p)
}

// ReadUpstreamResource reads uri from server.
func (g *Gateway) ReadUpstreamResource(ctx context.Context, server, uri string) (*mcp.ReadResourceResult, error) {
	return withSession(ctx, g, server, func(cs *mcp.ClientSession) (*mcp.ReadResourceResult, error) {
		return cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	})
}

// CompleteUpstream asks server to complete p; a server that offers no
// completions offers no values, rather than an error the AI app would
// show.
func (g *Gateway) CompleteUpstream(ctx context.Context, server string, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	return withSession(ctx, g, server, func(cs *mcp.ClientSession) (*mcp.CompleteResult, error) {
		if init := cs.InitializeResult(); init == nil || init.Capabilities == nil || init.Capabilities.Completions == nil {
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
		}
		return cs.Complete(ctx, p)
	})
}

// withSession runs f on server's session, when the catalog holds the
// server turned on.
func withSession[R any](ctx context.Context, g *Gateway, server string, f func(*mcp.ClientSession) (R, error)) (R, error) {
	var zero R
	if err := g.usable(server); err != nil {
		return zero, err
	}
	cs, done, err := g.run.Session(ctx, server)
	if err != nil {
		return zero, err
	}
	defer done()
	return f(cs)
}
