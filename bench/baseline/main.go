// Command baseline is the bare go-sdk server `make bench` measures mcptray
// against, built from the unpatched upstream go-sdk: this is its own module,
// without the main module's replace of go-sdk (third_party/go-sdk, see
// docs/go-sdk-patch.md), so the comparison stays honest.
//
// It serves what bench.NewBare serves — the echo tool (its schema as
// bench.EchoTool's), a stateless handler for 2026-07-28 and a session
// handler for 2025-11-25 — and speaks mcpbench's child protocol: it prints
// one JSON line {"url","stats"} on stdout, serves its counters (as
// bench.Stats) at the stats URL, and exits when stdin closes. Being in
// another module it cannot import the bench package; keep the two in step.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// echoSchema is bench.EchoTool().InputSchemaJSON().
const echoSchema = `{"additionalProperties":false,"properties":{"text":{"description":"what to echo","type":"string"}},"required":["text"],"type":"object"}`

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "baseline:", err)
		os.Exit(1)
	}
}

func run() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	sln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	stats := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(readStats())
	})}
	go func() { _ = stats.Serve(sln) }()
	defer stats.Close()
	line, err := json.Marshal(map[string]string{"url": "http://" + ln.Addr().String() + "/mcp", "stats": "http://" + sln.Addr().String() + "/stats"})
	if err != nil {
		return err
	}
	fmt.Println(string(line))
	_, _ = io.Copy(io.Discard, os.Stdin)
	return nil
}

// handler is bench.NewBare.
func handler() http.Handler {
	srv := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echoes its text argument.", InputSchema: json.RawMessage(echoSchema)},
		func(_ context.Context, _ *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
			text, _ := in["text"].(string)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	get := func(*http.Request) *mcp.Server { return srv }
	modern := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true})
	legacy := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isModern(r) {
			modern.ServeHTTP(w, r)
		} else {
			legacy.ServeHTTP(w, r)
		}
	})
}

// isModern is bench's bareIsModern.
func isModern(r *http.Request) bool {
	if r.Header.Get("Mcp-Session-Id") != "" {
		return false
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
		return v >= "2026-07-28"
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

// readStats is bench.ReadStats, with the same JSON names.
func readStats() map[string]any {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	var ru syscall.Rusage
	var cpu time.Duration
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return map[string]any{"mallocs": m.Mallocs, "bytes": m.TotalAlloc, "numGC": m.NumGC, "cpuNs": cpu}
}
