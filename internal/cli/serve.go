package cli

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/daemon"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// serveCmd runs the MCP server headless until ctx ends (Ctrl-C, SIGTERM)
// or a launch of the desktop app takes over.
func serveCmd(ctx context.Context, args []string, env Env) error {
	fs, db := newFlags("serve")
	addr := fs.String("addr", "", fmt.Sprintf("listen address; loopback only (port 0 picks a free port) (default: 127.0.0.1 on the port setting, %d unless changed)", catalog.DefaultPort))
	catalogFile := fs.String("catalog", "", "catalog JSON to import (replacing the catalog) before serving")
	noAuth := fs.Bool("no-auth", false, "accept requests without a client token (tests only)")
	endpointFile := fs.String("endpoint-file", "", "where to publish the endpoint (default: <config dir>/mcptray/endpoint.json)")
	ask := fs.String("ask", "", "how questions meant for the desktop are answered without the desktop app: deny (approvals and desktop forms are declined, saying why) or client-only (desktop forms go to the client when it can answer them; approvals are declined) (default: the askPolicy setting, deny unless changed)")
	pos, err := parseFlags(fs, args, env.Stdout)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("serve takes no arguments (got %q)", pos[0])}
	}
	if *ask != "" && !slices.Contains(catalog.AskPolicies, *ask) {
		return usageError{fmt.Sprintf("--ask %q: must be one of %s", *ask, strings.Join(catalog.AskPolicies, ", "))}
	}
	if err := checkLoopback(*addr); err != nil {
		return err
	}
	cfg := daemon.Config{DB: *db, Addr: *addr, EndpointFile: *endpointFile, NoAuth: *noAuth, AskPolicy: *ask,
		Version: env.Version, Stderr: env.Stderr}
	if *catalogFile != "" {
		// Read and checked before the server starts: a broken file changes
		// nothing and serves nothing.
		if cfg.Catalog, err = storage.ReadCatalogFile(*catalogFile, mcpcore.Validator{}); err != nil {
			return err
		}
	}
	return serve(ctx, cfg)
}

// serve runs a headless server on cfg until ctx ends or it is asked to
// make way.
func serve(ctx context.Context, cfg daemon.Config) error {
	// An older mcptray still serving (its program replaced by an upgrade)
	// makes way for this one.
	if err := daemon.TakeOver(ctx, cfg, cfg.Stderr); err != nil {
		return err
	}
	d, err := daemon.Start(ctx, cfg)
	if err != nil {
		return err
	}
	defer d.Stop()
	return d.Wait(ctx)
}

// checkLoopback refuses a listen address that is not loopback: mcptray
// serves this computer only.
func checkLoopback(addr string) error {
	if addr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usageError{fmt.Sprintf("--addr %q: %v", addr, err)}
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return usageError{fmt.Sprintf("--addr %q: mcptray only listens on a loopback address (127.0.0.1, ::1, localhost)", addr)}
	}
	return nil
}
