package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// serverConfig is how a server is assembled: by `mcptray serve` from its
// flags, and by the desktop app from its defaults.
type serverConfig struct {
	db           string // database file; "" is the default one
	addr         string // listen address (loopback)
	catalog      string // catalog JSON imported (replacing) before serving
	endpointFile string // where to publish the endpoint; "" is the default file
	noAuth       bool   // accept requests without a client token
	asker        mcpcore.Asker
}

// server is a running MCP server: the store, the engine kept in sync with
// it, and the HTTP listener. It is the one place where a server is put
// together; `serve` and the desktop app both use it.
type server struct {
	st       *storage.Store
	db       string
	eng      *mcpcore.Engine
	activity *storage.ActivityWriter
	http     *http.Server
	url      string
	epPath   string
	paused   atomic.Bool
	errc     chan error
	cancel   context.CancelFunc
	stopOnce sync.Once
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
	var asker mcpcore.Asker = mcpcore.PolicyAsker{Policy: mcpcore.AskDeny}
	if cfg.asker != nil {
		// Questions still open when the server stops are withdrawn:
		// closing a session waits for its calls, and a call waiting for a
		// person would hold shutdown forever.
		asker = stoppingAsker{cfg.asker, ctx}
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

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return nil, listenError(cfg.addr, cfg.endpointFile, err)
	}
	s.url = fmt.Sprintf("http://%s%s", ln.Addr(), mcpcore.EndpointPath)
	s.http = &http.Server{Handler: s.pausable(s.eng.Handler()), ReadHeaderTimeout: 10 * time.Second}
	if s.epPath = cfg.endpointFile; s.epPath == "" {
		if s.epPath, err = mcpcore.DefaultEndpointFile(); err != nil {
			ln.Close()
			return nil, err
		}
	}
	if err := mcpcore.WriteEndpoint(s.epPath, mcpcore.Endpoint{URL: s.url, PID: os.Getpid(), Version: version, DB: db}); err != nil {
		ln.Close()
		s.epPath = ""
		return nil, err
	}

	fmt.Fprintf(stderr, "mcptray %s: serving MCP on %s (database %s)\n", version, s.url, db)
	if cfg.noAuth {
		fmt.Fprintln(stderr, "mcptray: WARNING: --no-auth: any local program can call your tools")
	} else if toks, err := st.ListTokens(ctx); err == nil && len(toks) == 0 {
		fmt.Fprintln(stderr, "mcptray: no client tokens yet; create one with `mcptray token create NAME`")
	}
	go func() { s.errc <- s.http.Serve(ln) }()
	return s, nil
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
func (s *server) URL() string { return s.url }

// Paused says whether requests are refused.
func (s *server) Paused() bool { return s.paused.Load() }

// SetPort moves the endpoint to another port (not yet: see issue 6).
func (s *server) SetPort(int) error {
	return errors.New("changing the port while running is not supported yet")
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
	if s.eng != nil {
		s.eng.Shutdown()
	}
	if s.http != nil {
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := s.http.Shutdown(shutdownCtx); err != nil {
			_ = s.http.Close()
		}
		cancel()
	}
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
