package mcpcore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
)

// Upstreams reaches the other MCP servers mcptray fronts: their tools
// (through the actions), prompts and resources. The daemon provides it
// (internal/gateway).
type Upstreams interface {
	actions.UpstreamCaller
	// GetUpstreamPrompt gets prompt from server with args, with the AI
	// client's capabilities and answers of round; a server asking for
	// input answers with InputRequests set.
	GetUpstreamPrompt(ctx context.Context, server, prompt string, args map[string]string, round *actions.UpstreamRound) (*mcp.GetPromptResult, error)
	// ReadUpstreamResource reads uri from server.
	ReadUpstreamResource(ctx context.Context, server, uri string) (*mcp.ReadResourceResult, error)
	// CompleteUpstream asks server to complete an argument of its prompt or
	// resource template; a server that offers no completions offers no
	// values.
	CompleteUpstream(ctx context.Context, server string, p *mcp.CompleteParams) (*mcp.CompleteResult, error)
	// SubscribeUpstream and UnsubscribeUpstream follow the updates of
	// server's resource uri for one more, or one fewer, subscriber: the
	// server is subscribed while any is, and its updates reach the engine
	// through ResourceUpdated.
	SubscribeUpstream(server, uri string)
	UnsubscribeUpstream(server, uri string)
}

// errNoUpstreams answers a prompt or resource of another server where the
// engine has no Upstreams.
var errNoUpstreams = errors.New("other MCP servers are not available here")

// upstreamPrompt gets p from its server, the arguments passed as given,
// and what the server answers redacted of the secrets it was started with.
// A server asking for input has it passed on as for a tool (passOn): to
// the AI client when it can answer, forms it cannot show to the desktop.
func (e *Engine) upstreamPrompt(ctx context.Context, p catalog.Prompt, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	if e.opts.Upstreams == nil {
		return nil, internalError("prompt %q: %v", p.Name, errNoUpstreams)
	}
	server := p.Upstream.Server
	data := e.data(ctx, nil)
	data.ResolveSecrets(e.opts.Upstreams.UpstreamSecrets(server))
	params := req.Params
	principal := principalOf(req.Extra)
	bind := binding{Method: "prompts/get", Name: p.Name, Arguments: params.Arguments, Principal: principal}
	caps, deskForms := e.withDesktopForms(clientCapabilities(params.GetMeta(), req.ClientCapabilities()))
	// A prompt has no desktop questions of mcptray's: no answers of the
	// desktop ride along.
	round, _, err := e.upstreamRound(bind, caps, params.InputResponses, params.RequestState, false)
	if err != nil {
		return nil, err
	}
	args := make(map[string]any, len(params.Arguments))
	for k, v := range params.Arguments {
		args[k] = v
	}
	desk := deskCall{client: clientName(req), token: principal, prompt: p.Name, server: server, args: args}
	// What the server asks on its own session meanwhile names the prompt.
	callRecordOf(ctx).setCaller(desk, requestCapabilities(req))
	var res *mcp.GetPromptResult
	get := func() (mcp.InputRequestMap, string, error) {
		var err error
		if res, err = e.opts.Upstreams.GetUpstreamPrompt(ctx, server, p.Upstream.Prompt, params.Arguments, round); err != nil {
			return nil, "", upstreamError(err, "prompt %q of server %q", p.Name, server)
		}
		return res.InputRequests, res.RequestState, nil
	}
	reqs, state, err := get()
	if err != nil || reqs == nil {
		return res, err
	}
	out, err := e.passOn(ctx, &serverAsk{server: server, round: round, again: get, session: req.Session, bind: bind,
		deskForms: deskForms, desk: desk, redact: data.Redact}, reqs, state)
	switch {
	case err != nil:
		return nil, err
	case out != nil:
		return &mcp.GetPromptResult{InputRequests: out.Requests, RequestState: out.State}, nil
	}
	return res, nil
}

// upstreamRead reads uri from server, redacted as upstreamPrompt is.
func (e *Engine) upstreamRead(ctx context.Context, server, uri string) (*mcp.ReadResourceResult, error) {
	if e.opts.Upstreams == nil {
		return nil, internalError("resource %s: %v", uri, errNoUpstreams)
	}
	e.data(ctx, nil).ResolveSecrets(e.opts.Upstreams.UpstreamSecrets(server))
	res, err := e.opts.Upstreams.ReadUpstreamResource(ctx, server, uri)
	if err != nil {
		return nil, upstreamError(err, "resource %s of server %q", uri, server)
	}
	return res, nil
}

// upstreamComplete has server complete the argument of params, for ref
// (its name for the prompt), redacted as upstreamPrompt is, and no more
// values than the spec allows.
func (e *Engine) upstreamComplete(ctx context.Context, server string, params *mcp.CompleteParams, ref *mcp.CompleteReference) (*mcp.CompleteResult, error) {
	if e.opts.Upstreams == nil {
		return nil, internalError("completion: %v", errNoUpstreams)
	}
	e.data(ctx, nil).ResolveSecrets(e.opts.Upstreams.UpstreamSecrets(server))
	p := *params
	p.Ref = ref
	res, err := e.opts.Upstreams.CompleteUpstream(ctx, server, &p)
	if err != nil {
		return nil, upstreamError(err, "completion by server %q", server)
	}
	if c := &res.Completion; len(c.Values) > maxCompletions {
		c.Values, c.HasMore = c.Values[:maxCompletions], true
	}
	return res, nil
}

// upstreamOf names the server whose resource, or template, uri is; "" for
// one of mcptray's own.
func (e *Engine) upstreamOf(uri string) string {
	cat := e.catalog.Load()
	for _, r := range cat.Resources {
		if r.URI == uri && !r.Disabled && r.Upstream != nil {
			return r.Upstream.Server
		}
	}
	for _, t := range cat.ResourceTemplates {
		if t.Disabled || t.Upstream == nil {
			continue
		}
		if tmpl, err := uritemplate.New(t.URITemplate); err == nil && tmpl.Regexp().MatchString(uri) {
			return t.Upstream.Server
		}
	}
	return ""
}

// subscribe and unsubscribe pass a subscription to a resource of another
// server on to it; mcptray's own resources need nothing (go-sdk keeps the
// subscribers, resourceUpdated tells them).
func (e *Engine) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	if server := e.upstreamOf(req.Params.URI); server != "" && e.opts.Upstreams != nil {
		e.opts.Upstreams.SubscribeUpstream(server, req.Params.URI)
	}
	return nil
}

func (e *Engine) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	if server := e.upstreamOf(req.Params.URI); server != "" && e.opts.Upstreams != nil {
		e.opts.Upstreams.UnsubscribeUpstream(server, req.Params.URI)
	}
	return nil
}

// ResourceUpdated tells the AI clients subscribed to uri, a resource of
// another server, that the server says it changed.
func (e *Engine) ResourceUpdated(ctx context.Context, uri string) {
	if e.upstreamOf(uri) != "" {
		e.resourceUpdated(ctx, uri)
	}
}

// upstreamError passes a server's JSON-RPC error on as it is (its code
// means the same to the client), and words any other failure as an
// internal error naming what was asked.
func upstreamError(err error, format string, args ...any) error {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je
	}
	return internalError(format+": %v", append(args, err)...)
}

func upstreamEntry(name string) string { return fmt.Sprintf("server %q", name) }

// ValidateUpstream lists the problems of one upstream server's definition:
// catalog.Upstream's own rules, and templates in its environment and
// headers that do not parse.
func ValidateUpstream(u catalog.Upstream) []catalog.Problem {
	p := &problems{entry: upstreamEntry(u.Name)}
	for _, m := range u.Problems() {
		p.add("", "%s", m)
	}
	var values map[string]catalog.Template
	field := ""
	switch {
	case u.Command != nil:
		values, field = u.Command.Env, "command.env"
	case u.Remote != nil:
		values, field = u.Remote.Headers, "remote.headers"
	}
	for _, k := range slices.Sorted(maps.Keys(values)) {
		if err := actions.CheckTemplate(values[k]); err != nil {
			p.add(field+"."+k, "%v", err)
		}
	}
	return p.list
}

// UpstreamSecrets names the secrets an upstream's environment or headers
// read, sorted, each once.
func UpstreamSecrets(u catalog.Upstream) []string {
	var names []string
	for _, m := range []map[string]catalog.Template{commandEnv(u), remoteHeaders(u)} {
		for _, v := range m {
			names = append(names, actions.SecretsUsed(v)...)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func commandEnv(u catalog.Upstream) map[string]catalog.Template {
	if u.Command == nil {
		return nil
	}
	return u.Command.Env
}

func remoteHeaders(u catalog.Upstream) map[string]catalog.Template {
	if u.Remote == nil {
		return nil
	}
	return u.Remote.Headers
}

// upstreamLinks lists the entries that name a server the catalog does not
// hold.
func upstreamLinks(c *catalog.Catalog) []catalog.Problem {
	known := map[string]bool{}
	for _, u := range c.Upstreams {
		known[u.Name] = true
	}
	var ps []catalog.Problem
	link := func(entry, field, server string) {
		if server != "" && !known[server] {
			ps = append(ps, catalog.Problem{Entry: entry, Field: field,
				Message: fmt.Sprintf("no server named %q: add it first (mcptray upstream add)", server)})
		}
	}
	for _, t := range c.Tools {
		if up := t.Action.Upstream; up != nil {
			link(toolEntry(t.Name), "action.upstream.server", up.Server)
		}
	}
	for _, pr := range c.Prompts {
		if up := pr.Upstream; up != nil {
			link(promptEntry(pr.Name), "upstream.server", up.Server)
		}
	}
	for _, r := range c.Resources {
		if up := r.Upstream; up != nil {
			link(resourceEntry(r.URI), "upstream.server", up.Server)
		}
	}
	for _, t := range c.ResourceTemplates {
		if up := t.Upstream; up != nil {
			link(templateEntry(t.URITemplate), "upstream.server", up.Server)
		}
	}
	return ps
}

func checkUpstreamSource(p *problems, u *catalog.UpstreamSource) {
	if u != nil && u.Server == "" {
		p.add("upstream.server", "required: the name of the server it belongs to")
	}
}

// count is how many of set are true.
func count(set ...bool) int {
	n := 0
	for _, s := range set {
		if s {
			n++
		}
	}
	return n
}
