package mcpcore

//lint:file-ignore SA1019 the logging capability is still served to 2025-11-25 clients; go-sdk marks it deprecated as of 2026-07-28 (SEP-2577).

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/mcptray/mcptray/record"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Source is where the engine reads what it serves; storage implements it.
type Source interface {
	// Catalog returns the current catalog.
	Catalog(ctx context.Context) (*catalog.Catalog, error)
	// Settings returns the current settings, defaults filled in.
	Settings(ctx context.Context) (catalog.Settings, error)
	// Changes signals (coalesced) after any change to the catalog or
	// settings, until ctx ends, when it is closed.
	Changes(ctx context.Context) <-chan struct{}
}

// SecretReader resolves named secrets for templates ({{secret "name"}}).
type SecretReader interface {
	Secret(ctx context.Context, name string) (string, error)
}

// Options configure an Engine.
type Options struct {
	// Version is mcptray's version, reported in serverInfo.
	Version string
	// Logger receives the engine's diagnostics; nil means slog.Default().
	Logger *slog.Logger
	// Executable and DBPath are offered to templates as .server.executable
	// and .server.db, so a command can drive the mcptray CLI.
	Executable string
	DBPath     string
	// Tokens verifies bearer tokens; nil turns auth off (tests, --no-auth).
	Tokens TokenVerifier
	// KeepAlive is the interval of SSE comments on idle listen streams
	// (default 15 s).
	KeepAlive time.Duration
	// Secrets resolves {{secret "name"}} in templates; nil means no secrets
	// are available, and a template using one fails with a clear error.
	// Every secret value a call resolves is redacted from what it returns.
	Secrets SecretReader
	// Activity, when set, receives one record after every request.
	Activity ActivitySink
	// Asker answers the input steps routed to the desktop; nil declines
	// them (PolicyAsker{Policy: AskDeny}).
	Asker Asker
	// Tasks keeps the tasks of the tasks extension; nil keeps them in
	// memory, for the life of the engine.
	Tasks TaskStore
	// Approvals keeps the approvals a person allowed until they revoke
	// them; nil keeps those until mcptray restarts.
	Approvals ApprovalStore
	// Processes, when set, records the process group of every running
	// command, so the next start after a crash kills what it left
	// (actions.KillLeftovers); storage implements it.
	Processes actions.ProcessGroups
	// Upstreams reaches the other MCP servers mcptray fronts; nil answers
	// their tools, prompts and resources with an error.
	Upstreams Upstreams
	// FilePollInterval is how often file resources that cannot be watched
	// (see fileWatcher) are checked for changes (default 500 ms); watched
	// ones are checked when the file system reports them changed. A change
	// publishes notifications/resources/updated.
	FilePollInterval time.Duration
}

// Engine serves the catalog of a Source over MCP. Each distinct tool
// allowlist among client tokens gets its own go-sdk server, so a token
// limited to some tools neither lists nor calls the others.
type Engine struct {
	src      Source
	opts     Options
	log      *slog.Logger
	sdkLog   *slog.Logger // go-sdk's, warnings and errors only
	seal     atomic.Pointer[sealer]
	settings atomic.Pointer[catalog.Settings]
	catalog  atomic.Pointer[catalog.Catalog]
	// templates caches the parsed templates of the current catalog.
	templates atomic.Pointer[actions.TemplateCache]

	// shutdown ends listen streams gracefully (with their final result).
	shutdown    context.Context
	stopListens context.CancelFunc
	syncMu      sync.Mutex // serializes Sync
	mu          sync.Mutex // guards scopes
	scopes      map[string]*scope
	schemas     *schemaPool // tools' input schemas, shared by every scope (scopes.go)
	serverVars  map[string]string
	// files watches the files of file resources.
	files *fileWatcher
	// tasks are the tasks running in this process.
	tasks taskRegistry
	// remember holds the approvals allowed until mcptray restarts, and
	// who listens for changes of any remembered approval (approvals.go).
	remember remembered
	// passes let the next request of an upstream call through with the
	// desktop's answers of its first (deskpass.go).
	passes deskPasses
	// held are the streams and sessions client tokens hold open
	// (streams.go); calls counts each token's calls in flight (limits.go).
	held  holdings
	calls tokenCounts
	// stopping ends, with errStopping as its cause, every call in flight
	// when the engine shuts down, so each still gets an answer; inflight
	// counts them.
	stopping  context.Context
	stopCalls context.CancelCauseFunc
	inflight  atomic.Int64
}

// scope is one go-sdk server and what has been registered on it.
type scope struct {
	server  *mcp.Server
	allow   []string // nil: every tool
	applied map[string]string
	// listens ends this server's listen streams (gracefully) when the
	// server is retired or the engine shuts down.
	listens     context.Context
	stopListens context.CancelFunc
}

// retire ends what would go stale on a server that is being replaced: its
// listen streams (with their final result; clients listen again) and its
// 2025-11-25 sessions (clients initialize again). Calls in flight finish.
func (sc *scope) retire() {
	sc.stopListens()
	for ss := range sc.server.Sessions() {
		if isLegacy(ss) {
			_ = ss.Close()
		}
	}
}

// New builds an engine and loads the current catalog. The request-state key
// comes from keys, so rounds survive restarts.
func New(ctx context.Context, src Source, keys KeyStore, opts Options) (*Engine, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.KeepAlive <= 0 {
		opts.KeepAlive = 15 * time.Second
	}
	if opts.Tasks == nil {
		opts.Tasks = newMemTasks()
	}
	// No task of an earlier process can still be running.
	if n, err := opts.Tasks.InterruptTasks(ctx, record.InterruptedMessage, interruptedError(), time.Now()); err != nil {
		return nil, fmt.Errorf("recovering the tasks of the last run: %w", err)
	} else if n > 0 {
		opts.Logger.Warn("tasks interrupted by the last stop are now failed", "count", n)
	}
	key, err := keys.Key(ctx, requestStateKeyName, 32)
	if err != nil {
		return nil, fmt.Errorf("loading the request-state key: %w", err)
	}
	s, err := newSealer(key)
	if err != nil {
		return nil, err
	}
	e := &Engine{
		src:        src,
		opts:       opts,
		log:        opts.Logger,
		sdkLog:     sdkLogger(opts.Logger),
		scopes:     map[string]*scope{},
		schemas:    newSchemaPool(),
		serverVars: serverVars(opts),
		tasks:      taskRegistry{runs: map[string]*taskRun{}, subs: map[chan record.Task]struct{}{}},
	}
	e.seal.Store(s)
	e.shutdown, e.stopListens = context.WithCancel(context.Background())
	e.stopping, e.stopCalls = context.WithCancelCause(context.Background())
	e.files = newFileWatcher(opts.FilePollInterval, opts.Logger, e.resourceUpdated)
	if err := e.Sync(ctx); err != nil {
		e.files.stop()
		return nil, err
	}
	e.buildDefault()
	return e, nil
}

func (e *Engine) sealer() *sealer { return e.seal.Load() }

func (e *Engine) currentSettings() catalog.Settings { return *e.settings.Load() }

// Settings returns the settings in force.
func (e *Engine) Settings() catalog.Settings { return e.currentSettings() }

// Watch keeps the engine in sync with its source until ctx ends: it
// subscribes to changes, catches up with any made since New loaded the
// catalog, then resyncs on every signal.
func (e *Engine) Watch(ctx context.Context) {
	changes := e.src.Changes(ctx)
	if err := e.Sync(ctx); err != nil && ctx.Err() == nil {
		e.log.Error("resyncing the catalog", "err", err)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-changes:
			if !ok {
				return
			}
			if err := e.Sync(ctx); err != nil && ctx.Err() == nil {
				e.log.Error("resyncing the catalog", "err", err)
			}
		}
	}
}

// Shutdown answers the calls in flight with an error saying mcptray is
// stopping (their actions are stopped; a task ends failed), ends open
// listen streams with their final result, closes
// 2025-11-25 sessions (whose GET streams would otherwise hold the HTTP
// server open) and stops watching files; call it before shutting the HTTP
// server down. After Shutdown the engine starts no goroutine of its own.
func (e *Engine) Shutdown() {
	e.interruptTasks()
	e.stopCalls(errStopping)
	e.awaitCalls(callsDrain)
	e.stopListens()
	e.remember.subs.Close()
	e.files.stop() // before taking mu: a poll in progress may need it
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, sc := range e.scopes {
		sc.retire()
	}
}

// Sync reloads the catalog and settings and brings every server in line:
// changed entries are re-registered, removed ones unregistered, and the
// go-sdk publishes list_changed to listen streams and legacy sessions.
func (e *Engine) Sync(ctx context.Context) error {
	e.syncMu.Lock()
	defer e.syncMu.Unlock()
	// First, so that no stream of a revoked token hears of this change.
	e.revalidate(ctx)
	cat, err := e.src.Catalog(ctx)
	if err != nil {
		return fmt.Errorf("loading the catalog: %w", err)
	}
	set, err := e.src.Settings(ctx)
	if err != nil {
		return fmt.Errorf("loading settings: %w", err)
	}
	old := e.settings.Load()
	e.settings.Store(&set)
	e.catalog.Store(cat)
	e.templates.Store(&actions.TemplateCache{})
	e.files.set(fileResources(cat))

	e.mu.Lock()
	defer e.mu.Unlock()
	if old != nil && serverIdentityChanged(*old, set) {
		// Name, instructions and page size are fixed when a go-sdk server is
		// made: new requests get fresh servers, and clients holding a stream
		// or session on an old one reconnect and see the new values.
		for _, sc := range e.scopes {
			sc.retire()
		}
		e.scopes = map[string]*scope{}
	}
	for _, sc := range e.scopes {
		e.apply(sc, cat)
	}
	return nil
}

// fileResources maps the URI of each served file resource to its file.
func fileResources(cat *catalog.Catalog) map[string]string {
	out := map[string]string{}
	for _, r := range cat.Resources {
		if !r.Disabled && r.File != "" {
			out[r.URI] = r.File
		}
	}
	return out
}

// resourceUpdated tells every server's subscribers of uri that it changed:
// go-sdk sends notifications/resources/updated to the 2026 listen streams
// whose resourceSubscriptions name it and to the 2025-11-25 sessions that
// subscribed with resources/subscribe.
func (e *Engine) resourceUpdated(ctx context.Context, uri string) {
	e.mu.Lock()
	servers := make([]*mcp.Server, 0, len(e.scopes))
	for _, sc := range e.scopes {
		servers = append(servers, sc.server)
	}
	e.mu.Unlock()
	for _, srv := range servers {
		if err := srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
			e.log.Warn("publishing a resource update", "uri", uri, "err", err)
		}
	}
}

func serverIdentityChanged(a, b catalog.Settings) bool {
	return a.ServerName != b.ServerName || a.ServerTitle != b.ServerTitle || a.Instructions != b.Instructions || a.PageSize != b.PageSize
}

// serverFor returns the server for a principal, making it on first use.
func (e *Engine) serverFor(p record.Principal) *mcp.Server {
	key := "*"
	var allow []string
	if p.Tools != nil {
		// Non-nil even when empty: a token allowed no tools sees none.
		allow = append(make([]string, 0, len(p.Tools)), p.Tools...)
		slices.Sort(allow)
		key = "=" + strings.Join(allow, "\x00")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if sc, ok := e.scopes[key]; ok {
		return sc.server
	}
	sc := &scope{allow: allow, applied: map[string]string{}}
	sc.listens, sc.stopListens = context.WithCancel(e.shutdown)
	sc.server = e.newServer(sc)
	e.apply(sc, e.catalog.Load())
	e.scopes[key] = sc
	return sc.server
}

func (e *Engine) newServer(sc *scope) *mcp.Server {
	set := e.currentSettings()
	restricted := sc.allow != nil
	srv := mcp.NewServer(&mcp.Implementation{Name: set.ServerName, Title: set.ServerTitle, Version: e.opts.Version}, &mcp.ServerOptions{
		Instructions: set.Instructions,
		Logger:       e.sdkLog,
		PageSize:     set.PageSize,
		SchemaCache:  e.schemas.cache,
		Capabilities: &mcp.ServerCapabilities{
			Tools:       &mcp.ToolCapabilities{ListChanged: true},
			Prompts:     &mcp.PromptCapabilities{ListChanged: true},
			Resources:   &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
			Completions: &mcp.CompletionCapabilities{},
			Logging:     &mcp.LoggingCapabilities{},
			Extensions:  map[string]any{TasksExtension: map[string]any{}},
		},
		CompletionHandler:  e.complete,
		SubscribeHandler:   e.subscribe,
		UnsubscribeHandler: e.unsubscribe,
		SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) {
			s := e.currentSettings()
			c.TTLMs, c.CacheScope = s.CacheTTLMs, s.CacheScope
			if restricted {
				// What this token sees differs from what others see.
				c.CacheScope = "private"
			}
		},
	})
	e.addTaskMethods(srv)
	srv.AddReceivingMiddleware(e.middleware(sc))
	return srv
}

// apply registers what changed since the last apply on this scope. Entries
// are fingerprinted by their JSON, so an edit re-registers exactly the
// entries it touched.
func (e *Engine) apply(sc *scope, cat *catalog.Catalog) {
	want := map[string]string{}
	adders := map[string]func() error{}
	add := func(key string, def any, register func() error) {
		fp, _ := json.Marshal(def)
		want[key] = string(fp)
		if sc.applied[key] != string(fp) {
			adders[key] = register
		}
	}
	for _, t := range cat.Tools {
		if t.Disabled || t.Action.Upstream != nil && t.Action.Upstream.Held || (sc.allow != nil && !slices.Contains(sc.allow, t.Name)) {
			continue
		}
		add("tool\x00"+t.Name, t, func() error { return e.addTool(sc.server, t) })
	}
	for _, p := range cat.Prompts {
		if !p.Disabled {
			add("prompt\x00"+p.Name, p, func() error { return e.addPrompt(sc.server, p) })
		}
	}
	for _, r := range cat.Resources {
		if !r.Disabled {
			add("resource\x00"+r.URI, r, func() error { return e.addResource(sc.server, r) })
		}
	}
	for _, t := range cat.ResourceTemplates {
		if !t.Disabled {
			add("template\x00"+t.URITemplate, t, func() error { return e.addTemplate(sc.server, t) })
		}
	}
	for key := range sc.applied {
		if _, ok := want[key]; !ok {
			kind, name, _ := strings.Cut(key, "\x00")
			switch kind {
			case "tool":
				sc.server.RemoveTools(name)
			case "prompt":
				sc.server.RemovePrompts(name)
			case "resource":
				sc.server.RemoveResources(name)
			case "template":
				sc.server.RemoveResourceTemplates(name)
			}
			delete(sc.applied, key)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(adders)) {
		if err := register(adders[key]); err != nil {
			e.log.Error("cannot serve catalog entry", "entry", strings.ReplaceAll(key, "\x00", " "), "err", err)
			continue
		}
		sc.applied[key] = want[key]
	}
}

// register runs a go-sdk registration, turning its panics on bad
// definitions into errors: validation should have caught them, but a bad
// entry must never take the server down.
func register(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("rejected by the MCP SDK: %v", r)
		}
	}()
	return f()
}

// data returns fresh template data for one call. {{secret "name"}} reads
// Options.Secrets with the call's ctx (with no Secrets, a template using a
// secret fails saying no secret store is available), and the data is
// recorded on the request, so the middleware can redact the secret values
// from whatever the request answers.
func (e *Engine) data(ctx context.Context, args map[string]any) *actions.Data {
	if args == nil {
		args = map[string]any{}
	}
	d := &actions.Data{Args: args, Inputs: map[string]any{}, Server: e.serverVars, Templates: e.templates.Load(), Processes: e.opts.Processes}
	if e.opts.Upstreams != nil {
		d.Upstreams = e.opts.Upstreams
	}
	c := callRecordOf(ctx)
	if secrets := e.opts.Secrets; secrets != nil {
		d.Secret = func(name string) (string, error) {
			v, err := secrets.Secret(ctx, name)
			if err == nil && c != nil {
				c.secrets.Store(true)
			}
			return v, err
		}
	}
	if c != nil {
		c.add(d)
	}
	return d
}

// serverVars are what templates see as .server: the mcptray binary and
// database (so a command can drive the mcptray CLI), and the user's home
// (so definitions can name ~/Notes without hard-coding a user).
func serverVars(opts Options) map[string]string {
	home, _ := os.UserHomeDir()
	return map[string]string{"executable": opts.Executable, "db": opts.DBPath, "home": home}
}
