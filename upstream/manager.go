// Package upstream connects mcptray to the person's other MCP servers (its
// "upstreams", catalog.Upstream) and keeps them running: a program it
// starts and speaks to on standard input and output, or a web address
// (Streamable HTTP, or the older HTTP+SSE). A Manager starts each on first
// use (or at once, for "atStart"), stops it when unused, starts it again
// after a crash with a growing delay, and says what went wrong in words a
// person understands. The engine lists a server's tools and calls them
// through it; Test connects once for a Test button.
//
// It is a leaf: go-sdk's client, the catalog model and
// mcpcore/actions.StartGroup (mcptray's no-orphans rules for the programs
// it starts). No storage, no GUI.
package upstream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Config is what a Manager needs from the daemon. Every field may be left
// zero.
type Config struct {
	// Expand renders an Env or Headers value (a template where only
	// {{secret "NAME"}} has a value); nil uses values as written.
	Expand func(ctx context.Context, t catalog.Template) (string, error)
	// Logger logs starts, stops and crashes; nil logs nothing.
	Logger *slog.Logger
	// OnListChanged is called, holding no lock of the Manager's, when a
	// server's tools, prompts or resources may have changed: it said so
	// (list_changed), or it was (re)connected. It may be called from
	// several goroutines at once.
	OnListChanged func(server string)
	// OnResourceUpdated is called when a server says its resource uri
	// changed (notifications/resources/updated, for a subscription).
	OnResourceUpdated func(server, uri string)
	// Processes records the process groups of the programs started, so
	// that a crash of mcptray leaves none running (an actions.Reaper, over
	// the store); nil records nothing.
	Processes actions.ProcessGroups
	// Elicit answers a server's elicitation/create, which a server on a
	// 2025-11-25 session sends; nil answers that it is not supported (the
	// capability is not declared). On 2026-07-28 a server asks within a
	// call's result (input_required), which CallTool returns as it is:
	// only the AI client can answer it.
	//
	// Elicit, Sample, Roots and Log get the context of the call the
	// server asks or logs in, CallTool's or GetPrompt's, when it can be
	// told (a single call or prompt of the server under way); else the
	// request's own.
	Elicit func(ctx context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error)
	// Sample answers a server's sampling/createMessage; nil: not
	// supported.
	//lint:ignore SA1019 servers fronted may still ask (deprecated as of 2026-07-28, SEP-2577)
	Sample func(ctx context.Context, server string, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)
	// Roots answers a server's roots/list; nil declares no roots.
	//lint:ignore SA1019 servers fronted may still ask (deprecated as of 2026-07-28, SEP-2577)
	Roots func(ctx context.Context, server string) ([]*mcp.Root, error)
	// Log receives a server's log message (notifications/message) sent
	// during a call; nil, or one sent outside a call, goes to Logger at
	// debug level. A 2025-11-25 server is asked to log from debug on.
	//lint:ignore SA1019 servers fronted may still log (deprecated as of 2026-07-28, SEP-2577)
	Log func(ctx context.Context, server string, p *mcp.LoggingMessageParams)
	// StartTimeout bounds a start, from the program's start (or the first
	// request) to its answer to MCP's first request; 0 means
	// DefaultStartTimeout.
	StartTimeout time.Duration
	// Version is mcptray's version, sent to servers as the client's.
	Version string
	// Tokens keeps the sign-ins to remote servers behind OAuth; nil keeps
	// them for the Manager's life only.
	Tokens TokenStore
	// OpenBrowser shows the person the address where they sign in to a
	// remote server behind OAuth (their browser; a test follows it
	// itself). nil: such a server's start fails, saying how to sign in
	// from the command line.
	OpenBrowser func(url string) error
	// SignInTimeout bounds the wait for the person's sign-in; 0 means
	// DefaultSignInTimeout. The start's own bound (StartTimeout) applies
	// too.
	SignInTimeout time.Duration
}

// DefaultStartTimeout leaves time for a first `npx -y` or `uvx`, which
// download the server before starting it.
const DefaultStartTimeout = 2 * time.Minute

func (c *Config) expand(ctx context.Context, t catalog.Template) (string, error) {
	if c.Expand == nil {
		return string(t), nil
	}
	return c.Expand(ctx, t)
}

func (c *Config) startTimeout() time.Duration {
	if c.StartTimeout > 0 {
		return c.StartTimeout
	}
	return DefaultStartTimeout
}

// Manager runs the upstream servers: at most one session with each, shared
// by every call.
type Manager struct {
	cfg Config
	log *slog.Logger

	mu      sync.Mutex
	servers map[string]*server
	closed  bool

	progress progressRoutes
	// running counts what Close waits for: starts, sessions and stops.
	running sync.WaitGroup
}

// ErrClosed is matched by the error of a call made after Close.
var ErrClosed = errors.New("mcptray is stopping")

// New returns a Manager with no servers; Set gives it their definitions.
func New(cfg Config) *Manager {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Manager{cfg: cfg, log: log, servers: map[string]*server{}}
}

// Set makes ups the servers: new ones are added (and started if atStart),
// removed, disabled ones and ones whose command or address changed are
// stopped (a changed one starts anew on its next use), and the rest keep
// running with their new settings. It does not wait for the stops (a
// program has a few seconds to end); Close does.
func (m *Manager) Set(ups []catalog.Upstream) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	var stop, start []*server
	seen := map[string]bool{}
	for _, u := range ups {
		seen[u.Name] = true
		s := m.servers[u.Name]
		if s != nil && sameConnection(s.definition(), u) {
			if s.update(u) {
				stop = append(stop, s)
			}
		} else {
			if s != nil {
				s.retire()
				stop = append(stop, s)
			}
			s = newServer(m, u)
			m.servers[u.Name] = s
		}
		if u.Start == catalog.UpstreamAtStart && !u.Disabled {
			start = append(start, s)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(m.servers)) {
		if !seen[name] {
			s := m.servers[name]
			delete(m.servers, name)
			s.retire()
			stop = append(stop, s)
		}
	}
	// Counted under m.mu, so that a Close after this waits for them.
	m.running.Add(len(stop))
	m.mu.Unlock()
	for _, s := range stop {
		go func() {
			defer m.running.Done()
			s.stop("its settings changed")
		}()
	}
	for _, s := range start {
		s.startSoon()
	}
}

// Renew restarts the server named name, so that it reads its settings
// again — a secret its environment or headers read has changed: its
// session ends once the calls using it are done (at once when there are
// none), and a new one opens at its next use, or at once for a server
// started with mcptray. why is logged. A server not running, or unknown,
// is left as it is: its next start reads the settings anyway.
func (m *Manager) Renew(name, why string) {
	if s, err := m.server(name); err == nil {
		s.renew(why)
	}
}

// sameConnection says whether a and b start or reach the server the same
// way; only then may a running session serve b.
func sameConnection(a, b catalog.Upstream) bool {
	return reflect.DeepEqual(a.Command, b.Command) && reflect.DeepEqual(a.Remote, b.Remote)
}

// server finds a server by name.
func (m *Manager) server(name string) (*server, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	s := m.servers[name]
	if s == nil {
		return nil, fmt.Errorf("no upstream server is named %q", name)
	}
	return s, nil
}

// Session returns the server's session, started if need be, for what the
// Manager does not wrap yet (listing prompts, resources); done must be called when
// the caller is finished with it, which lets the server stop when idle.
// The session must not be closed.
func (m *Manager) Session(ctx context.Context, server string) (cs *mcp.ClientSession, done func(), err error) {
	s, err := m.server(server)
	if err != nil {
		return nil, nil, err
	}
	c, err := s.acquire(ctx)
	if err != nil {
		return nil, nil, err
	}
	return c.session, s.release, nil
}

// Tools lists the server's tools, every page, starting it if need be.
func (m *Manager) Tools(ctx context.Context, server string) ([]*mcp.Tool, error) {
	s, err := m.server(server)
	if err != nil {
		return nil, err
	}
	var tools []*mcp.Tool
	err = s.use(ctx, func(c *conn) (err error) {
		if tools, err = listTools(ctx, c.session); err != nil {
			// Only here: a failed start says the server's name already.
			return fmt.Errorf("upstream %q: listing its tools: %w", server, err)
		}
		return nil
	})
	return tools, err
}

// listTools reads every page of a session's tools.
func listTools(ctx context.Context, cs *mcp.ClientSession) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// CallTool calls a tool of the server, starting it if need be. Its
// progress notifications reach progress (when not nil), carrying p's
// progress token, never after CallTool returned; progress is called on
// the session's goroutine and must not block. Cancelling ctx cancels the
// call on the server (notifications/cancelled). A call whose result the
// server dropped fails with a JSON-RPC internal error (see lostResult).
func (m *Manager) CallTool(ctx context.Context, server string, p *mcp.CallToolParams, progress func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error) {
	params := *p
	if a, ok := params.Arguments.(map[string]any); ok && a == nil {
		// A nil map is not go-sdk's nil: it would go out as "arguments":
		// null, which servers refuse.
		params.Arguments = map[string]any{}
	}
	if progress != nil {
		token, forget := m.progress.add(p.GetProgressToken(), progress)
		defer forget()
		params.Meta = maps.Clone(p.Meta)
		params.SetProgressToken(token)
	}
	var res *mcp.CallToolResult
	err := m.request(ctx, server, func(ctx context.Context, cs *mcp.ClientSession) (err error) {
		res, err = cs.CallTool(ctx, &params)
		return err
	})
	if err != nil {
		err = fmt.Errorf("upstream %q: calling %s: %w", server, p.Name, err)
		if errors.Is(err, mcp.ErrNoResponse) {
			return nil, lostResult(err)
		}
		return nil, err
	}
	return res, nil
}

// GetPrompt gets a prompt of the server, starting it if need be. As for
// CallTool, what the server asks or logs meanwhile belongs to ctx, and
// cancelling ctx cancels the request on the server.
func (m *Manager) GetPrompt(ctx context.Context, server string, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	var res *mcp.GetPromptResult
	err := m.request(ctx, server, func(ctx context.Context, cs *mcp.ClientSession) (err error) {
		res, err = cs.GetPrompt(ctx, p)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("upstream %q: getting the prompt %s: %w", server, p.Name, err)
	}
	return res, nil
}

// request runs f, one request to the server made for ctx, on its
// session (started if need be). It is tracked while it runs: what the
// server asks or logs meanwhile, on a session that names no request,
// belongs to ctx (callContext). A stop of the server (idle, Set, Close)
// cancels it, so that closing the session never waits for it, and is
// then its error.
func (m *Manager) request(ctx context.Context, server string, f func(context.Context, *mcp.ClientSession) error) error {
	s, err := m.server(server)
	if err != nil {
		return err
	}
	defer s.trackCall(ctx)()
	return s.use(ctx, func(c *conn) error {
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		defer context.AfterFunc(c.ctx, func() { cancel(fmt.Errorf("upstream %q was stopped", server)) })()
		err := f(ctx, c.session)
		if cause := context.Cause(ctx); err != nil && ctx.Err() != nil && cause != ctx.Err() {
			err = cause
		}
		return err
	})
}

// lostResult answers a call whose stream the server ended before the
// result with no event ID to resume it from (mcp.ErrNoResponse): on
// 2025-11-25 a server may close the stream mid-call (SEP-1699) and the
// client resume it with Last-Event-ID, but one without an event store
// (go-sdk's, whose tool calls CloseSSEStream) closes it with no ID and
// drops the result. The tool did not fail, it may well have run: a tool
// error result would tell the AI app (and its model, which may call it
// again) that it failed. So the call gets a JSON-RPC internal error, as
// one mcptray stopped mid-way does, saying that the result is lost.
func lostResult(err error) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error() + "; the result is lost, and the tool may have run"}
}

// Close stops every server and waits for their programs to end. Calls
// after it fail with ErrClosed.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	servers := slices.Collect(maps.Values(m.servers))
	m.servers = nil
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range servers {
		s.retire()
		wg.Go(func() { s.stop("mcptray is stopping") })
	}
	wg.Wait()
	m.running.Wait()
	return nil
}

// progressRoutes sends progress notifications to the call they belong to,
// by progress token: one session serves many calls at once.
type progressRoutes struct {
	mu     sync.Mutex
	next   int64
	routes map[string]*progressRoute
}

// progressRoute is one call's: deliver and end take its lock, so that no
// notification is delivered once the call returned.
type progressRoute struct {
	mu    sync.Mutex
	fn    func(*mcp.ProgressNotificationParams)
	token any // the caller's own token, given back in each notification
	ended bool
}

// add routes a new token to fn and returns it, with what ends the route.
func (r *progressRoutes) add(callerToken any, fn func(*mcp.ProgressNotificationParams)) (token string, end func()) {
	r.mu.Lock()
	r.next++
	token = fmt.Sprintf("mcptray-%d", r.next)
	if r.routes == nil {
		r.routes = map[string]*progressRoute{}
	}
	route := &progressRoute{fn: fn, token: callerToken}
	r.routes[token] = route
	r.mu.Unlock()
	return token, func() {
		r.mu.Lock()
		delete(r.routes, token)
		r.mu.Unlock()
		route.mu.Lock()
		route.ended = true
		route.mu.Unlock()
	}
}

// deliver hands p to its call, if it is still running.
func (r *progressRoutes) deliver(p *mcp.ProgressNotificationParams) {
	token, _ := p.ProgressToken.(string)
	r.mu.Lock()
	route := r.routes[token]
	r.mu.Unlock()
	if route == nil {
		return
	}
	route.mu.Lock()
	defer route.mu.Unlock()
	if route.ended {
		return
	}
	q := *p
	q.ProgressToken = route.token
	route.fn(&q)
}
