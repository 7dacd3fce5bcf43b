// Command mcptray-stdio is the stdio face of mcptray: an AI client launches
// it as a stdio MCP server and it bridges every message to the running
// mcptray over HTTP, in both protocol eras (2026-07-28 one POST per request;
// 2025-11-25 sessions with Mcp-Session-Id and the GET stream).
//
// It takes no arguments (but --version) and needs no secrets on its command line: it finds
// mcptray through the endpoint file in the user's config dir and reads its
// own client token from <config dir>/mcptray/shim-token (0600), which
// `mcptray shim-token` provisions. If mcptray is not running it starts it in
// the background. Stdout carries only protocol messages; diagnostics go to
// stderr. It never exits on its own while stdin is open; once stdin ends it
// answers the requests it has read (waiting up to 30 s for them), then exits.
//
// Environment (for tests and unusual setups):
//
//	MCPTRAY_ENDPOINT_FILE    the endpoint file (default <config dir>/mcptray/endpoint.json)
//	MCPTRAY_SHIM_TOKEN_FILE  the token file (default <config dir>/mcptray/shim-token)
//	MCPTRAY_BIN              the mcptray executable to start (default: next to this one, else PATH)
//	MCPTRAY_START_ARGS       extra arguments for the started server, space separated
//	MCPTRAY_START_TIMEOUT    how long to wait for a started server (Go duration, default 10s)
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// version is stamped at build time with -ldflags "-X main.version=…"
// (scripts/build.sh), from FyneApp.toml: the one place it is written. A
// build without the stamp (go build, go run) says it is "dev".
var version = "dev"

func main() {
	if len(os.Args) == 2 && (os.Args[1] == "--version" || os.Args[1] == "version") {
		fmt.Println("mcptray-stdio", version)
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := configFromEnv()
	if err != nil {
		// Still serve: every request gets this error.
		fmt.Fprintf(os.Stderr, "mcptray-stdio: %v\n", err)
	}
	if st, err := os.Stdin.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		fmt.Fprintln(os.Stderr, "mcptray-stdio: AI clients start this program and speak MCP (JSON-RPC lines) on its stdin/stdout; `mcptray config CLIENT` sets a client up. Waiting for messages (Ctrl-D ends).")
	}
	b := newBridge(cfg, err, os.Stdout, os.Stderr)
	b.run(ctx, os.Stdin)
}
