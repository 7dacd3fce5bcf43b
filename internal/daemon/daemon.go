// Package daemon is the one place where mcptray's server is assembled and
// run: the instance lock, the store, the secret store, the activity writer,
// the task store, the engine kept in sync with the catalog, the listener,
// the endpoint file, the control endpoint, the hand-over between a
// headless server and the desktop app, and the graceful stop. `mcptray
// serve`, the desktop app, the benchmark and the tests' test server all
// start the server through Start, so each of them runs what users run.
package daemon

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/gofrs/flock"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/mcptray/mcptray/storage"
)

// Config says how a server is assembled: `mcptray serve` fills it from its
// flags, the desktop app from its defaults, the benchmark and the tests
// with temporary files.
type Config struct {
	// DB is the database file; "" is the user's default database.
	DB string
	// Addr is the listen address, loopback only; "" is 127.0.0.1 on the
	// port setting, a fixed port so client configs stay valid across
	// restarts.
	Addr string
	// Catalog, when set, replaces the stored catalog before serving.
	Catalog *catalog.Catalog
	// EndpointFile is where the endpoint is published; "" is the default
	// file, which the stdio shim reads. Only a server publishing there keeps
	// the shim's token valid.
	EndpointFile string
	// NoAuth accepts requests without a client token (tests only).
	NoAuth bool
	// Asker answers the questions meant for the desktop: the desktop app's.
	// A server with an Asker is the app's (the endpoint file says so, and a
	// second launch asks it to show its window). Without one, questions are
	// answered by AskPolicy, or by the askPolicy setting when that is "".
	Asker     mcpcore.Asker
	AskPolicy string
	// Version is mcptray's version, reported to clients and in the
	// endpoint file.
	Version string
	// Logger receives the engine's diagnostics; nil is slog.Default().
	Logger *slog.Logger
	// Stderr receives what a person starting the server must read: where
	// it serves, and warnings (no keyring, no auth). nil discards it.
	Stderr io.Writer
	// Secrets adjust how the secret store is opened (tests: another
	// keyring service or fallback file).
	Secrets []storage.SecretsOption
}

// Daemon is a running server. Its methods are safe for concurrent use.
type Daemon struct {
	cfg      Config
	db       string
	lock     *flock.Flock
	st       *storage.Store
	sec      *storage.Secrets
	eng      *mcpcore.Engine
	activity *storage.ActivityWriter
	// procs records the commands' process groups (leftovers.go).
	procs    *actions.Reaper
	handler  http.Handler
	epPath   string
	seeded   bool
	cancel   context.CancelFunc
	stopOnce sync.Once
	errc     chan error

	// control is the secret of the control endpoint (control.go); onShow
	// is what a second launch's show request runs (the app's); leave is
	// closed when a launch of the app asks this headless server to make
	// way (Wait returns).
	control string
	onShow  atomic.Pointer[func()]
	// onLeave is what the app runs when a newer version asks it to make
	// way (SetOnLeave).
	onLeave atomic.Pointer[func()]
	leave   chan struct{}
	leaving sync.Once
	paused  atomic.Bool

	// moving serialises port moves and guards stopped; mu guards the
	// listener's server and URL, which a port move replaces while requests
	// are served.
	moving  sync.Mutex
	stopped bool
	mu      sync.Mutex
	http    *http.Server
	url     string
	// retiring counts the servers of former ports still finishing their
	// requests; closing the store waits for them.
	retiring sync.WaitGroup
	// conns caps the connections of every port together (connlimit.go).
	conns *connLimit
	// ups runs the other MCP servers the catalog holds (upstreams.go).
	ups *upstreams
}

// Start assembles a server and starts serving. Its first act is to take
// the database's instance lock, before anything reads or changes shared
// state (the engine marks the tasks of a former run interrupted; a second
// server on the same database must not). The caller must call Stop.
func Start(ctx context.Context, cfg Config) (_ *Daemon, err error) {
	d := &Daemon{cfg: cfg, errc: make(chan error, 1), leave: make(chan struct{})}
	if d.db, err = resolveDB(cfg.DB); err != nil {
		return nil, err
	}
	if d.epPath = cfg.EndpointFile; d.epPath == "" {
		if d.epPath, err = paths.EndpointFile(); err != nil {
			return nil, err
		}
	}
	if d.lock, err = instanceLock(d.db, d.epPath); err != nil {
		return nil, err
	}
	ctx, d.cancel = context.WithCancel(ctx)
	published := false
	defer func() {
		if err != nil {
			d.close(published)
		}
	}()
	if d.st, err = storage.Open(d.db, mcpcore.Validator{}); err != nil {
		return nil, err
	}
	// What a crashed run left running dies before anything runs again.
	d.guardCommands(ctx)
	// The user's database gets the starter catalog on the first start of
	// any server on it (seed.go).
	if d.seeded, err = d.seed(ctx); err != nil {
		return nil, err
	}
	if d.seeded {
		d.say("added a few example tools to %s; see them with `mcptray export`", d.db)
	}
	if cfg.Catalog != nil {
		if err := d.st.Import(ctx, cfg.Catalog, true); err != nil {
			return nil, fmt.Errorf("importing the catalog: %w", err)
		}
	}
	// Secret values and the server's keys live in the OS keyring; without
	// one, in a file readable only by the user, which is said on every start.
	if d.sec, err = d.st.OpenSecrets(ctx, cfg.Secrets...); err != nil {
		return nil, err
	}
	if w := d.sec.Warning(); w != "" {
		d.say("WARNING: %s", w)
	}
	set, err := d.st.Settings(ctx)
	if err != nil {
		return nil, err
	}
	// Closed after the listener, once the last calls are answered and
	// recorded.
	d.activity = d.st.NewActivityWriter(storage.ActivityWriterOptions{})
	d.ups = d.startUpstreams()
	if d.eng, err = mcpcore.New(ctx, d.st, d.sec, d.engineOptions(ctx, set)); err != nil {
		return nil, err
	}
	go d.eng.Watch(ctx)
	go d.ups.follow(ctx)
	go d.logHalt(ctx)
	if !cfg.NoAuth && cfg.EndpointFile == "" {
		// The server the stdio shim finds keeps the shim's token valid, so
		// the shim never has to.
		if tf, err := paths.ShimTokenFile(); err == nil {
			if _, err := EnsureShimToken(ctx, d.st, tf, false); err != nil {
				slog.Warn("provisioning the stdio shim's token", "err", err)
			}
		}
	}
	addr, fromSetting := cfg.Addr, cfg.Addr == ""
	if fromSetting {
		addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(set.ListenPort()))
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, d.listenError(addr, fromSetting, err)
	}
	if d.control, err = newControlSecret(); err != nil {
		ln.Close()
		return nil, err
	}
	d.handler = d.controlled(d.haltable(d.pausable(d.eng.Handler())))
	if err := d.publish(ln); err != nil {
		ln.Close()
		return nil, err
	}
	published = true
	if cfg.Stderr != nil {
		fmt.Fprintf(cfg.Stderr, "mcptray %s: serving MCP on %s (database %s)\n", cfg.Version, d.URL(), d.db)
	}
	if cfg.NoAuth {
		d.say("WARNING: --no-auth: any local program can call your tools")
	} else if toks, err := d.st.ListTokens(ctx); err == nil && len(toks) == 0 {
		d.say("no client tokens yet; create one with `mcptray token create NAME`")
	}
	d.serveOn(ln)
	// What the start parsed, imported and checked is garbage now: given
	// back to the system at once rather than over minutes, so that a big
	// catalog's server settles at its live size (make bench: 10,000
	// tools).
	debug.FreeOSMemory()
	return d, nil
}

// resolveDB makes db absolute, "" being the default database.
func resolveDB(db string) (string, error) {
	if db == "" {
		return paths.DefaultDB()
	}
	abs, err := filepath.Abs(db)
	if err != nil {
		return "", fmt.Errorf("database path: %w", err)
	}
	return abs, nil
}

// engineOptions wires the engine to the store (tasks, remembered
// approvals), the secret store, the activity writer and the asker.
func (d *Daemon) engineOptions(ctx context.Context, set catalog.Settings) mcpcore.Options {
	exe, _ := os.Executable()
	opts := mcpcore.Options{Version: d.cfg.Version, Logger: d.cfg.Logger, Executable: exe, DBPath: d.db,
		Secrets: d.sec, Activity: d.activity, Tasks: d.st, Approvals: d.st, Processes: d.procs, Upstreams: d.ups.gw}
	if !d.cfg.NoAuth {
		opts.Tokens = d.st
	}
	if d.cfg.Asker != nil {
		opts.Asker = stoppingAsker{d.cfg.Asker, ctx}
	} else {
		// Unwrapped: it never blocks, so nothing is left to withdraw.
		opts.Asker = mcpcore.PolicyAsker{Policy: cmp.Or(d.cfg.AskPolicy, set.AskPolicy)}
	}
	return opts
}

// say tells the person who started the server.
func (d *Daemon) say(format string, args ...any) {
	if d.cfg.Stderr != nil {
		fmt.Fprintf(d.cfg.Stderr, "mcptray: "+format+"\n", args...)
	}
}

// Store is the server's database.
func (d *Daemon) Store() *storage.Store { return d.st }

// Secrets is the server's secret store: the one the engine resolves
// templates with, so the app manages secrets without opening (and probing
// the keyring for) a second one.
func (d *Daemon) Secrets() *storage.Secrets { return d.sec }

// Engine is the MCP engine.
func (d *Daemon) Engine() *mcpcore.Engine { return d.eng }

// Activity is the activity writer every request is recorded through.
func (d *Daemon) Activity() *storage.ActivityWriter { return d.activity }

// Seeded says this start gave the user's database the starter catalog.
func (d *Daemon) Seeded() bool { return d.seeded }

// DB is the database file's absolute path.
func (d *Daemon) DB() string { return d.db }

// Handler is the whole HTTP handler the listener serves: the control
// endpoint, the pause switch and the engine's MCP endpoint.
func (d *Daemon) Handler() http.Handler { return d.handler }

// Wait serves until ctx ends, serving fails, or a launch of the desktop
// app asks this headless server to make way.
func (d *Daemon) Wait(ctx context.Context) error {
	select {
	case err := <-d.errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
		return nil
	case <-d.leave:
		return nil
	}
}

// Stop shuts the server down gracefully: questions are withdrawn, running
// calls end, the activity log is flushed, the endpoint file is removed,
// the store closed and the instance lock released. It may be called more
// than once; later calls wait for the first.
func (d *Daemon) Stop() {
	d.stopOnce.Do(func() {
		slog.Info("shutting down")
		d.close(true)
	})
}

// close releases what Start took, in reverse order; published says the
// endpoint file names this server.
func (d *Daemon) close(published bool) {
	if d.cancel != nil {
		d.cancel() // first: withdraws open desktop questions, stops watching
	}
	d.moving.Lock()
	d.stopped = true // no port moves (and no retiring server) from now on
	d.moving.Unlock()
	if d.eng != nil {
		d.eng.Shutdown()
	}
	d.mu.Lock()
	srv := d.http
	d.mu.Unlock()
	if srv != nil {
		shutdown(srv)
	}
	d.retiring.Wait()
	if d.ups != nil {
		// After the last call: stops the servers before their groups'
		// watcher goes.
		d.ups.close()
	}
	if d.procs != nil {
		// Every call has ended: the watcher has nothing left to kill.
		_ = d.procs.Close()
	}
	if d.activity != nil {
		if err := d.activity.Close(); err != nil {
			slog.Warn("activity log: the last records may be lost", "err", err)
		}
	}
	if published {
		d.unpublish()
	}
	if d.st != nil {
		if err := d.st.Close(); err != nil {
			slog.Warn("closing the database", "err", err)
		}
	}
	// Last: a server waiting for the database may start once it is closed.
	if d.lock != nil {
		_ = d.lock.Close()
	}
}
