package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// serverConfig is how a server is assembled: by `mcptray serve` from its
// flags, and by the desktop app from its defaults.
type serverConfig struct {
	db           string // database file; "" is the default one
	addr         string // listen address (loopback); "" is 127.0.0.1 on the port setting
	catalog      string // catalog JSON imported (replacing) before serving
	endpointFile string // where to publish the endpoint; "" is the default file
	noAuth       bool   // accept requests without a client token
	// asker answers desktop questions (the desktop app's); nil answers them
	// by the ask policy: ask, or the askPolicy setting when ask is "".
	asker mcpcore.Asker
	ask   string
}

// server is a running MCP server: the store, the engine kept in sync with
// it, and the HTTP listener. It is the one place where a server is put
// together; `serve` and the desktop app both use it.
type server struct {
	st       *storage.Store
	db       string
	eng      *mcpcore.Engine
	activity *storage.ActivityWriter
	handler  http.Handler
	epPath   string
	// control is the secret of the control endpoint (handover.go); app
	// says the desktop app serves. onShow is what a second launch's show
	// request runs (the app's); leave is closed when a launch of the app
	// asks this headless server to make way (wait returns).
	control  string
	app      bool
	onShow   atomic.Pointer[func()]
	leave    chan struct{}
	leaving  sync.Once
	paused   atomic.Bool
	errc     chan error
	cancel   context.CancelFunc
	stopOnce sync.Once

	// moving serialises SetPort calls and guards stopped; mu guards the
	// listener, which SetPort replaces while requests are served.
	moving  sync.Mutex
	stopped bool
	mu      sync.Mutex
	http    *http.Server
	url     string
	// retiring counts the servers of former ports still finishing their
	// requests; closing the store waits for them.
	retiring sync.WaitGroup
}

// startServer opens the store, builds the engine, listens and publishes the
// endpoint file. The caller must call stop.
func startServer(ctx context.Context, cfg serverConfig, stderr io.Writer) (_ *server, err error) {
	st, db, err := openStore(cfg.db)
	if err != nil {
		return nil, err
	}
	s := &server{st: st, db: db, errc: make(chan error, 1)}
	ctx, s.cancel = context.WithCancel(ctx)
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	if cfg.catalog != "" {
		if err := importFile(ctx, st, cfg.catalog, true); err != nil {
			return nil, err
		}
	}
	// Secret values and the server's keys live in the OS keyring; without
	// one, in a file readable only by the user, which is said on every start.
	sec, err := st.OpenSecrets(ctx)
	if err != nil {
		return nil, err
	}
	if w := sec.Warning(); w != "" {
		fmt.Fprintf(stderr, "mcptray: WARNING: %s\n", w)
	}
	// Closed before the store, once the last calls have been answered and
	// recorded.
	s.activity = st.NewActivityWriter(storage.ActivityWriterOptions{})
	set, err := st.Settings(ctx)
	if err != nil {
		return nil, err
	}
	var asker mcpcore.Asker
	if cfg.asker != nil {
		// Questions still open when the server stops are withdrawn:
		// closing a session waits for its calls, and a call waiting for a
		// person would hold shutdown forever.
		asker = stoppingAsker{cfg.asker, ctx}
	} else {
		// Unwrapped: the engine recognises a PolicyAsker to route desktop
		// forms to the client under client-only, and it never blocks.
		asker = mcpcore.PolicyAsker{Policy: cmp.Or(cfg.ask, set.AskPolicy)}
	}
	exe, _ := os.Executable()
	opts := mcpcore.Options{Version: version, Executable: exe, DBPath: db, Secrets: sec, Activity: s.activity,
		Tasks: st, Asker: asker}
	if !cfg.noAuth {
		opts.Tokens = st
	}
	if s.eng, err = mcpcore.New(ctx, st, sec, opts); err != nil {
		return nil, err
	}
	go s.eng.Watch(ctx)
	if !cfg.noAuth && cfg.endpointFile == "" {
		// The server the stdio shim finds (through the default endpoint
		// file) keeps the shim's token valid, so the shim never has to.
		if tf, err := defaultShimTokenFile(); err == nil {
			if _, err := ensureShimToken(ctx, st, tf, false); err != nil {
				slog.Warn("provisioning the stdio shim's token", "err", err)
			}
		}
	}

	addr, fromSetting := cfg.addr, cfg.addr == ""
	if fromSetting {
		addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(set.ListenPort()))
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, listenError(addr, cfg.endpointFile, fromSetting, err)
	}
	s.app, s.leave = cfg.asker != nil, make(chan struct{})
	if s.control, err = newControlSecret(); err != nil {
		ln.Close()
		return nil, err
	}
	s.handler = s.controlled(s.pausable(s.eng.Handler()))
	if s.epPath = cfg.endpointFile; s.epPath == "" {
		if s.epPath, err = mcpcore.DefaultEndpointFile(); err != nil {
			ln.Close()
			return nil, err
		}
	}
	if err := s.publish(ln); err != nil {
		ln.Close()
		s.epPath = ""
		return nil, err
	}

	fmt.Fprintf(stderr, "mcptray %s: serving MCP on %s (database %s)\n", version, s.URL(), db)
	if cfg.noAuth {
		fmt.Fprintln(stderr, "mcptray: WARNING: --no-auth: any local program can call your tools")
	} else if toks, err := st.ListTokens(ctx); err == nil && len(toks) == 0 {
		fmt.Fprintln(stderr, "mcptray: no client tokens yet; create one with `mcptray token create NAME`")
	}
	s.serveOn(ln)
	return s, nil
}

// publish makes ln the endpoint: its URL is the one URL reports and the
// endpoint file names, so the stdio shim finds it.
func (s *server) publish(ln net.Listener) error {
	url := fmt.Sprintf("http://%s%s", ln.Addr(), mcpcore.EndpointPath)
	if err := mcpcore.WriteEndpoint(s.epPath, mcpcore.Endpoint{URL: url, PID: os.Getpid(), Version: version, DB: s.db,
		App: s.app, Control: s.control}); err != nil {
		return fmt.Errorf("publishing the endpoint %s: %w", url, err)
	}
	s.mu.Lock()
	s.url = url
	s.mu.Unlock()
	return nil
}

// serveOn serves ln with a new http.Server, which becomes the current one.
// Only the current server's failure ends wait: a former port's server
// ends because SetPort retired it.
func (s *server) serveOn(ln net.Listener) *http.Server {
	srv := &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second}
	s.mu.Lock()
	old := s.http
	s.http = srv
	s.mu.Unlock()
	go func() {
		err := srv.Serve(ln)
		s.mu.Lock()
		current := s.http == srv
		s.mu.Unlock()
		if current {
			select {
			case s.errc <- err:
			default:
			}
		}
	}()
	if old != nil {
		s.retire(old)
	}
	return srv
}

// retire stops a former port: it refuses new connections at once and closes
// idle ones; running requests get a few seconds to finish, then their
// connections (long-lived streams among them) are closed. Clients reconnect
// to the new port: the stdio shim through the endpoint file.
func (s *server) retire(srv *http.Server) {
	s.retiring.Add(1)
	go func() {
		defer s.retiring.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			_ = srv.Close()
		}
	}()
}

// pausable answers 503 while the server is paused.
func (s *server) pausable(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.paused.Load() {
			w.Header().Set("Retry-After", "30")
			http.Error(w, "mcptray is paused; resume serving from its tray menu", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// URL is the MCP endpoint.
func (s *server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// Paused says whether requests are refused.
func (s *server) Paused() bool { return s.paused.Load() }

// SetPort moves the endpoint to port (0: mcpcore.DefaultPort) on the same
// loopback host. The new port listens first, so a taken port is an error
// naming it and the old port keeps serving; then the endpoint file names
// the new URL and the old port stops taking connections.
func (s *server) SetPort(port int) error {
	s.moving.Lock()
	defer s.moving.Unlock()
	if s.stopped {
		return errors.New("mcptray has stopped serving")
	}
	if port == 0 {
		port = mcpcore.DefaultPort
	}
	if port < 1 || port > 65535 {
		return fmt.Errorf("port %d: must be between 1 and 65535", port)
	}
	cur, err := neturl.Parse(s.URL())
	if err != nil {
		return fmt.Errorf("the current endpoint %q: %w", s.URL(), err)
	}
	if cur.Port() == strconv.Itoa(port) {
		return nil
	}
	addr := net.JoinHostPort(cur.Hostname(), strconv.Itoa(port))
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("port %d is taken by another program; mcptray keeps serving on port %s", port, cur.Port())
	}
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	if err := s.publish(ln); err != nil {
		ln.Close()
		return err
	}
	s.serveOn(ln)
	return nil
}

// SetPaused pauses or resumes serving.
func (s *server) SetPaused(p bool) { s.paused.Store(p) }

// wait serves until ctx ends or serving fails.
func (s *server) wait(ctx context.Context) error {
	select {
	case err := <-s.errc:
		if errors.Is(err, http.ErrServerClosed) { // stopped
			return nil
		}
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
		return nil
	case <-s.leave:
		return nil
	}
}

// stop shuts the server down gracefully: running calls end, the activity
// log is flushed, the endpoint file removed and the store closed.
// It may be called more than once; the later calls wait for the first.
func (s *server) stop() {
	s.stopOnce.Do(func() {
		slog.Info("shutting down")
		s.close()
	})
}

func (s *server) close() {
	s.cancel() // first: withdraws open desktop questions, stops watching
	s.moving.Lock()
	s.stopped = true // no port moves (and no retiring server) from now on
	s.moving.Unlock()
	if s.eng != nil {
		s.eng.Shutdown()
	}
	s.mu.Lock()
	srv := s.http
	s.mu.Unlock()
	if srv != nil {
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := srv.Shutdown(shutdownCtx); err != nil {
			_ = srv.Close()
		}
		cancel()
	}
	s.retiring.Wait()
	if s.activity != nil {
		if err := s.activity.Close(); err != nil {
			slog.Warn("activity log: the last records may be lost", "err", err)
		}
	}
	if s.epPath != "" {
		os.Remove(s.epPath)
	}
	s.st.Close()
}

// stoppingAsker withdraws its questions when the server's ctx ends.
type stoppingAsker struct {
	mcpcore.Asker
	stop context.Context
}

func (a stoppingAsker) Ask(ctx context.Context, q mcpcore.Question) (mcpcore.Answer, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(a.stop, cancel)()
	return a.Asker.Ask(ctx, q)
}
