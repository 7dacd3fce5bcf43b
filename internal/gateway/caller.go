package gateway

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/mcptray/mcptray/record"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Runner runs the servers: lists their tools and calls them, gets their
// prompts, and gives their sessions (upstream.Manager).
type Runner interface {
	Lister
	sessioner
	CallTool(ctx context.Context, server string, p *mcp.CallToolParams, progress func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error)
	// GetPrompt is a request the server's questions on its own session
	// belong to, as CallTool is.
	GetPrompt(ctx context.Context, server string, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error)
}

// Gateway calls the servers' tools for the engine (actions.UpstreamCaller)
// and keeps the catalog in line with what they offer (Sync). A call goes
// through only while the server offers the tool with the definition the
// person approved, as last read: a server that changed a tool since is
// read again first, and the call refused if the tool is not as approved.
type Gateway struct {
	run   Runner
	store Store

	mu        sync.Mutex
	upstreams map[string]catalog.Upstream
	// offered is each server's tools as last read: name → definition hash.
	offered map[string]map[string]string
	// syncs serializes the reads of each server.
	syncs map[string]*sync.Mutex
	// subscribers counts, for each server and resource URI, the AI
	// clients' subscriptions (subscribe.go).
	subscribers map[string]map[string]int
}

// New makes a Gateway over the servers run runs and the catalog st keeps.
func New(run Runner, st Store) *Gateway {
	return &Gateway{run: run, store: st, upstreams: map[string]catalog.Upstream{},
		offered: map[string]map[string]string{}, syncs: map[string]*sync.Mutex{}, subscribers: map[string]map[string]int{}}
}

// SetUpstreams tells the gateway the servers the catalog holds now.
func (g *Gateway) SetUpstreams(ups []catalog.Upstream) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.upstreams = make(map[string]catalog.Upstream, len(ups))
	for _, u := range ups {
		g.upstreams[u.Name] = u
	}
}

// UpstreamSecrets names the secrets server's definition reads.
func (g *Gateway) UpstreamSecrets(server string) []string {
	g.mu.Lock()
	u, ok := g.upstreams[server]
	g.mu.Unlock()
	if !ok {
		return nil
	}
	return mcpcore.UpstreamSecrets(u)
}

// errChanged refuses a call to a tool the server no longer offers as
// approved.
var errChanged = errors.New("the server changed this tool since you approved it: review the change in mcptray (Servers, or mcptray upstream changes) before it can be used")

// CallUpstream calls tool on server when the server offers it with the
// definition hashed pin, with the AI client's capabilities and answers of
// round.
func (g *Gateway) CallUpstream(ctx context.Context, server, tool, pin string, args map[string]any, round *actions.UpstreamRound, progress func(progress, total float64, message string)) (*mcp.CallToolResult, error) {
	if err := g.usable(server); err != nil {
		return nil, err
	}
	g.mu.Lock()
	hash, read := g.offered[server][tool]
	g.mu.Unlock()
	if !read {
		if _, err := g.Sync(ctx, server); err != nil {
			return nil, err
		}
		g.mu.Lock()
		hash = g.offered[server][tool]
		g.mu.Unlock()
	}
	if hash != pin {
		return nil, errChanged
	}
	var onProgress func(*mcp.ProgressNotificationParams)
	if progress != nil {
		onProgress = func(p *mcp.ProgressNotificationParams) { progress(p.Progress, p.Total, p.Message) }
	}
	g.mu.Lock()
	limit := g.upstreams[server].CallTimeout()
	g.mu.Unlock()
	if limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, limit, fmt.Errorf("the server %q did not answer within %v (its callTimeoutMs)", server, limit))
		defer cancel()
	}
	p := &mcp.CallToolParams{Name: tool, Arguments: args}
	p.Meta, p.InputResponses, p.RequestState = roundParams(round)
	res, err := g.run.CallTool(ctx, server, p, onProgress)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		// Our limit's words (or the caller's deadline), not go-sdk's.
		return nil, context.Cause(ctx)
	}
	return res, err
}

// roundParams are the params of a request to a server that carry round:
// the AI client's capabilities in _meta (go-sdk's client adds its own only
// where the request names none, so the server sees the AI client's), the
// answers to the server's last round and its state.
func roundParams(round *actions.UpstreamRound) (mcp.Meta, mcp.InputResponseMap, string) {
	if round == nil {
		return nil, nil, ""
	}
	var meta mcp.Meta
	if round.Capabilities != nil {
		meta = mcp.Meta{mcp.MetaKeyClientCapabilities: round.Capabilities}
	}
	return meta, round.Responses, round.State
}

// usable refuses a server the catalog does not hold, or holds turned off.
func (g *Gateway) usable(server string) error {
	g.mu.Lock()
	u, known := g.upstreams[server]
	g.mu.Unlock()
	switch {
	case !known:
		return fmt.Errorf("no server named %q", server)
	case u.Disabled:
		return fmt.Errorf("the server %q is turned off", server)
	}
	return nil
}

// Sync reads server's tools and brings the catalog in line (package Sync),
// remembering what the server offers for the calls' check; it also serves
// the server's prompts, resources and resource templates as it offers
// them now.
func (g *Gateway) Sync(ctx context.Context, server string) ([]record.UpstreamChange, error) {
	g.mu.Lock()
	m, ok := g.syncs[server]
	if !ok {
		m = &sync.Mutex{}
		g.syncs[server] = m
	}
	g.mu.Unlock()
	m.Lock()
	defer m.Unlock()
	live, err := offeredTools(ctx, g.run, server)
	if err != nil {
		return nil, fmt.Errorf("read the tools of server %q: %w", server, err)
	}
	hashes := make(map[string]string, len(live))
	for name, o := range live {
		hashes[name] = o.hash
	}
	g.mu.Lock()
	g.offered[server] = hashes
	g.mu.Unlock()
	u, err := g.store.Upstream(ctx, server)
	if err != nil {
		return nil, err
	}
	more, err := others(ctx, g.run, u)
	if err != nil {
		return nil, fmt.Errorf("server %q: %w", server, err)
	}
	// Sync follows each (re)start: the subscriptions a new session lacks
	// are made again.
	g.resubscribe(server)
	return syncOffered(ctx, g.store, server, live, more)
}
