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
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// defaultAddr is where mcptray listens unless told otherwise: loopback only,
// on a fixed port so client configs stay valid across restarts.
const defaultAddr = "127.0.0.1:8731"

// serve runs the MCP server until ctx ends.
func serve(ctx context.Context, args []string, stderr io.Writer) error {
	fs, dbPath := newFlags("serve")
	addr := fs.String("addr", defaultAddr, "listen address; loopback only (port 0 picks a free port)")
	catalog := fs.String("catalog", "", "catalog JSON to import (replacing the catalog) before serving")
	noAuth := fs.Bool("no-auth", false, "accept requests without a client token (tests only)")
	endpointFile := fs.String("endpoint-file", "", "where to publish the endpoint (default: <config dir>/mcptray/endpoint.json)")
	ask := fs.String("ask", mcpcore.AskDeny, "how questions meant for the desktop are answered without the desktop app: deny (approvals and desktop forms are declined, saying why) or client-only (desktop forms go to the client when it can answer them; approvals are declined)")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if !slices.Contains(mcpcore.AskPolicies, *ask) {
		return usageError{fmt.Sprintf("--ask %q: must be one of %s", *ask, strings.Join(mcpcore.AskPolicies, ", "))}
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return usageError{fmt.Sprintf("--addr %q: %v", *addr, err)}
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return usageError{fmt.Sprintf("--addr %q: mcptray only listens on a loopback address (127.0.0.1, ::1, localhost)", *addr)}
	}

	st, db, err := openStore(*dbPath)
	if err != nil {
		return err
	}
	defer st.Close()
	if *catalog != "" {
		if err := importFile(ctx, st, *catalog, true); err != nil {
			return err
		}
	}
	// Secret values and the server's keys live in the OS keyring; without
	// one, in a file readable only by the user, which is said on every start.
	sec, err := st.OpenSecrets(ctx)
	if err != nil {
		return err
	}
	if w := sec.Warning(); w != "" {
		fmt.Fprintf(stderr, "mcptray: WARNING: %s\n", w)
	}
	// Closed before the store (deferred after it), and explicitly on
	// shutdown, once the last calls have been answered and recorded.
	activity := st.NewActivityWriter(storage.ActivityWriterOptions{})
	defer activity.Close()
	exe, _ := os.Executable()
	opts := mcpcore.Options{Version: version, Executable: exe, DBPath: db, Secrets: sec, Activity: activity,
		Tasks: st, Asker: mcpcore.PolicyAsker{Policy: *ask}}
	if !*noAuth {
		opts.Tokens = st
	}
	eng, err := mcpcore.New(ctx, st, sec, opts)
	if err != nil {
		return err
	}
	go eng.Watch(ctx)
	if !*noAuth && *endpointFile == "" {
		// The server the stdio shim finds (through the default endpoint
		// file) keeps the shim's token valid, so the shim never has to.
		if tf, err := defaultShimTokenFile(); err == nil {
			if _, err := ensureShimToken(ctx, st, tf, false); err != nil {
				slog.Warn("provisioning the stdio shim's token", "err", err)
			}
		}
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return listenError(*addr, *endpointFile, err)
	}
	url := fmt.Sprintf("http://%s%s", ln.Addr(), mcpcore.EndpointPath)
	srv := &http.Server{Handler: eng.Handler(), ReadHeaderTimeout: 10 * time.Second}

	epPath := *endpointFile
	if epPath == "" {
		if epPath, err = mcpcore.DefaultEndpointFile(); err != nil {
			return err
		}
	}
	if err := mcpcore.WriteEndpoint(epPath, mcpcore.Endpoint{URL: url, PID: os.Getpid(), Version: version, DB: db}); err != nil {
		return err
	}
	defer os.Remove(epPath)

	fmt.Fprintf(stderr, "mcptray %s: serving MCP on %s (database %s)\n", version, url, db)
	if *noAuth {
		fmt.Fprintln(stderr, "mcptray: WARNING: --no-auth: any local program can call your tools")
	} else if toks, err := st.ListTokens(ctx); err == nil && len(toks) == 0 {
		fmt.Fprintln(stderr, "mcptray: no client tokens yet; create one with `mcptray token create NAME`")
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	slog.Info("shutting down")
	eng.Shutdown()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		_ = srv.Close()
	}
	if err := activity.Close(); err != nil {
		slog.Warn("activity log: the last records may be lost", "err", err)
	}
	return nil
}

// listenError explains a failed listen, naming a running mcptray when that
// is what holds the port.
func listenError(addr, endpointFile string, err error) error {
	if !errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	if endpointFile == "" {
		endpointFile, _ = mcpcore.DefaultEndpointFile()
	}
	if ep, rerr := mcpcore.ReadEndpoint(endpointFile); rerr == nil && processAlive(ep.PID) {
		return fmt.Errorf("mcptray is already running (pid %d) at %s", ep.PID, ep.URL)
	}
	return fmt.Errorf("port %s is taken by another program; choose another with --addr 127.0.0.1:PORT", addr)
}

func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}
