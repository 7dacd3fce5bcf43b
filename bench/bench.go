// Package bench measures the overhead of mcptray's MCP endpoint over a bare
// go-sdk server serving the same tool.
//
// It provides the two servers under test — the real mcptray server on a
// SQLite file, assembled as `mcptray serve` assembles it (NewOurs), and a
// plain go-sdk server (NewBare) — plus the client
// load (Load, over HTTP with the official go-sdk client) and a server-only
// in-process replay of one captured tools/call (Capture, Replay).
//
// The entry point is scripts/bench.sh (`make bench`), which runs
// bench/cmd/mcpbench. The Benchmark functions in bench_test.go drive the same
// replay for profiling with `go test -cpuprofile`; plain `go test` skips them.
package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/daemon"
	"github.com/mcptray/mcptray/internal/paths"
)

// ToolName is the name of the benchmarked tool on both servers.
const ToolName = "echo"

// The per-call targets, against the bare go-sdk server as published
// (bench/baseline), measured in the server process.
const (
	// CallKBTarget is the most memory allocated per tools/call, in KB.
	CallKBTarget = 100.0
	// CallCPURatioTarget is the most server CPU per tools/call, as a
	// fraction of the bare server's.
	CallCPURatioTarget = 0.6
)

// Era is the protocol revision a client speaks.
type Era string

// The two eras mcptray serves on one endpoint.
const (
	// Modern is the stateless revision: each POST is a whole request.
	Modern Era = "2026-07-28"
	// Legacy is the session revision: initialize, then Mcp-Session-Id.
	Legacy Era = "2025-11-25"
)

// Eras lists both eras, modern first.
var Eras = []Era{Modern, Legacy}

// EchoTool is the catalog definition of the benchmarked tool: one required
// string parameter "text", answered with a respond action rendering it.
func EchoTool() catalog.Tool {
	return catalog.Tool{
		Name:        ToolName,
		Description: "Echoes its text argument.",
		Params:      []catalog.Param{{Name: "text", Type: "string", Description: "what to echo", Required: true}},
		Action: catalog.Action{Respond: &catalog.Respond{
			Content: []catalog.Content{{Type: "text", Text: "{{.args.text}}"}},
		}},
	}
}

// NewBare returns a bare go-sdk endpoint exposing the same tool as EchoTool
// (same input schema, same result): a plain mcp.Server behind a stateless
// handler for 2026-07-28 and a session handler for 2025-11-25, routed as
// docs/ARCHITECTURE.md ("Era routing") describes, minimally: by session id,
// then the version header, and only when that is absent by peeking the
// body's _meta. It has no auth, no Origin guard and no body limit beyond
// go-sdk's own.
func NewBare() http.Handler {
	srv := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "v0"}, nil)
	tool := EchoTool()
	mcp.AddTool(srv, &mcp.Tool{Name: tool.Name, Description: tool.Description, InputSchema: tool.InputSchemaJSON()},
		func(_ context.Context, _ *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
			text, _ := in["text"].(string)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	get := func(*http.Request) *mcp.Server { return srv }
	modern := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true})
	legacy := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if bareIsModern(r) {
			modern.ServeHTTP(w, r)
		} else {
			legacy.ServeHTTP(w, r)
		}
	})
}

// bareIsModern is the minimal era routing of docs/ARCHITECTURE.md ("Era routing").
func bareIsModern(r *http.Request) bool {
	if r.Header.Get("Mcp-Session-Id") != "" {
		return false
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
		return v >= string(Modern)
	}
	if r.Method != http.MethodPost {
		return false
	}
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return false
	}
	var peek struct {
		Method string `json:"method"`
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &peek)
	_, ok := peek.Params.Meta["io.modelcontextprotocol/protocolVersion"]
	return ok || peek.Method == "server/discover"
}

// Ours is a running mcptray server on its own SQLite file, assembled by
// internal/daemon exactly as `mcptray serve` assembles it: store, secret
// store, activity writer, task store, token auth, engine and listener.
type Ours struct {
	// Handler is the server's whole HTTP handler, for in-process replay.
	Handler http.Handler
	// URL is the MCP endpoint the server itself listens on.
	URL string
	// Token is a valid client token secret; empty when auth is off.
	Token string
	// DBPath is the database file.
	DBPath string

	daemon *daemon.Daemon
}

// NewOurs starts a server on a fresh database in dir, serving a catalog
// holding EchoTool on a free loopback port; with auth it also creates a
// client token. logger nil means the product default, slog.Default().
func NewOurs(ctx context.Context, dir string, auth bool, logger *slog.Logger) (*Ours, error) {
	cat := &catalog.Catalog{Format: catalog.CatalogFormat, Version: catalog.CatalogVersion, Tools: []catalog.Tool{EchoTool()}}
	return startOurs(ctx, dir, cat, auth, logger)
}

// startOurs is NewOurs serving cat.
func startOurs(ctx context.Context, dir string, cat *catalog.Catalog, auth bool, logger *slog.Logger) (*Ours, error) {
	l := paths.Layout{Dir: dir}
	d, err := daemon.Start(ctx, daemon.Config{DB: l.DB(), Addr: "127.0.0.1:0", EndpointFile: l.EndpointFile(),
		Catalog: cat, NoAuth: !auth, Version: "bench", Logger: logger})
	if err != nil {
		return nil, err
	}
	o := &Ours{Handler: d.Handler(), URL: d.URL(), DBPath: d.DB(), daemon: d}
	if auth {
		if o.Token, err = d.Store().CreateToken(ctx, "bench", nil); err != nil {
			d.Stop()
			return nil, err
		}
	}
	return o, nil
}

// Close stops the server.
func (o *Ours) Close() error {
	o.daemon.Stop()
	return nil
}
