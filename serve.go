package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"syscall"

	"github.com/mcptray/mcptray/internal/process"
	"github.com/mcptray/mcptray/mcpcore"
)

// defaultAddr is the --addr of a run that names none: empty, meaning
// 127.0.0.1 on the port setting (mcpcore.DefaultPort unless changed), a
// fixed port so client configs stay valid across restarts.
const defaultAddr = ""

// serve runs the MCP server until ctx ends.
func serve(ctx context.Context, args []string, stderr io.Writer) error {
	fs, dbPath := newFlags("serve")
	addr := fs.String("addr", defaultAddr, fmt.Sprintf("listen address; loopback only (port 0 picks a free port) (default: 127.0.0.1 on the port setting, %d unless changed)", mcpcore.DefaultPort))
	catalog := fs.String("catalog", "", "catalog JSON to import (replacing the catalog) before serving")
	noAuth := fs.Bool("no-auth", false, "accept requests without a client token (tests only)")
	endpointFile := fs.String("endpoint-file", "", "where to publish the endpoint (default: <config dir>/mcptray/endpoint.json)")
	ask := fs.String("ask", "", "how questions meant for the desktop are answered without the desktop app: deny (approvals and desktop forms are declined, saying why) or client-only (desktop forms go to the client when it can answer them; approvals are declined) (default: the askPolicy setting, deny unless changed)")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *ask != "" && !slices.Contains(mcpcore.AskPolicies, *ask) {
		return usageError{fmt.Sprintf("--ask %q: must be one of %s", *ask, strings.Join(mcpcore.AskPolicies, ", "))}
	}
	if *addr != "" {
		host, _, err := net.SplitHostPort(*addr)
		if err != nil {
			return usageError{fmt.Sprintf("--addr %q: %v", *addr, err)}
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return usageError{fmt.Sprintf("--addr %q: mcptray only listens on a loopback address (127.0.0.1, ::1, localhost)", *addr)}
		}
	}

	s, err := startServer(ctx, serverConfig{db: *dbPath, addr: *addr, catalog: *catalog,
		endpointFile: *endpointFile, noAuth: *noAuth, ask: *ask}, stderr)
	if err != nil {
		return err
	}
	defer s.stop()
	return s.wait(ctx)
}

// listenError explains a failed listen, naming a running mcptray when that
// is what holds the port; fromSetting says the port came from the port
// setting rather than --addr.
func listenError(addr, endpointFile string, fromSetting bool, err error) error {
	if !errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	if endpointFile == "" {
		endpointFile, _ = mcpcore.DefaultEndpointFile()
	}
	if ep, rerr := mcpcore.ReadEndpoint(endpointFile); rerr == nil && process.Alive(ep.PID) {
		return fmt.Errorf("mcptray is already running (pid %d) at %s", ep.PID, ep.URL)
	}
	if fromSetting {
		return fmt.Errorf("%s is taken by another program; choose another port with `mcptray settings set port=PORT` (or --addr 127.0.0.1:PORT for one run)", addr)
	}
	return fmt.Errorf("%s is taken by another program; choose another with --addr 127.0.0.1:PORT", addr)
}
