// Package testserver runs mcptray's real server for the tests of other
// packages: the server `mcptray serve` runs, assembled by internal/daemon,
// on a config folder of its own (a temporary one, never the user's),
// listening on a free port of 127.0.0.1. Its secret store is go-keyring's in-memory mock. Everything
// stops when the test ends.
package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/zalando/go-keyring"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/daemon"
	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// mockKeyring puts go-keyring's mock in place once per test binary: a
// second MockInit would drop what the first servers of a test stored.
var mockKeyring sync.Once

// Options adjust the server.
type Options struct {
	// Auth turns bearer-token auth on: the store verifies the tokens.
	Auth bool
	// Catalog, when set, replaces the catalog before the engine starts.
	Catalog *catalog.Catalog
	// Asker answers the questions meant for the desktop; nil declines them
	// as a headless mcptray serve does.
	Asker mcpcore.Asker
}

// Server is a running server.
type Server struct {
	// Daemon is the server itself.
	Daemon *daemon.Daemon
	// Store, Engine and Activity are the daemon's.
	Store    *storage.Store
	Engine   *mcpcore.Engine
	Activity *storage.ActivityWriter
	// URL is the MCP endpoint the server started on.
	URL string
	// EndpointFile is where it publishes its endpoint.
	EndpointFile string
}

// Start starts a server for t; it stops when t ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	mockKeyring.Do(keyring.MockInit)
	l := paths.Layout{Dir: t.TempDir()}
	ep := l.EndpointFile()
	d, err := daemon.Start(context.Background(), daemon.Config{
		DB: l.DB(), Addr: "127.0.0.1:0", EndpointFile: ep,
		Catalog: opts.Catalog, NoAuth: !opts.Auth, Asker: opts.Asker, Version: "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
	return &Server{Daemon: d, Store: d.Store(), Engine: d.Engine(), Activity: d.Activity(), URL: d.URL(), EndpointFile: ep}
}

// StartTask calls tool with args over HTTP as a 2026-07-28 client that
// declares the tasks extension, and returns the id of the task the server
// created. The server must run without auth.
func (s *Server) StartTask(t testing.TB, tool string, args map[string]any) string {
	t.Helper()
	const version = "2026-07-28"
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
		"name": tool, "arguments": args,
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    version,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{mcpcore.TasksExtension: map[string]any{}}},
		},
	}})
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", version)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	// The answer is JSON or one SSE event.
	text := string(raw)
	if i := strings.Index(text, "data: "); i >= 0 {
		text = strings.TrimSpace(text[i+len("data: "):])
	}
	var msg struct {
		Result struct {
			ResultType string `json:"resultType"`
			TaskID     string `json:"taskId"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(text), &msg); err != nil || msg.Result.ResultType != "task" || msg.Result.TaskID == "" {
		t.Fatalf("want a task, got HTTP %d %s", resp.StatusCode, raw)
	}
	return msg.Result.TaskID
}
