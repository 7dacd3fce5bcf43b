package upstream

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStreamClosedMidCall: a server on a 2025-11-25 session that closes a
// call's stream before the result (SEP-1699 "polling", go-sdk's
// CloseSSEStream, which the conformance suite's server-sse-polling calls
// through test_reconnection). A server that sent an event ID first (an
// event store) is resumed: the result comes on the GET with Last-Event-ID.
// One without an event store closes the stream with a retry field and no
// event ID and drops the result: the call cannot be resumed, and it fails
// with a JSON-RPC internal error saying so, not with a tool error result
// (which would tell the AI app the tool failed, when it may have run); the
// session goes on.
func TestStreamClosedMidCall(t *testing.T) {
	for _, c := range []struct {
		name      string
		resumable bool
	}{{"resumable", true}, {"not resumable", false}} {
		t.Run(c.name, func(t *testing.T) {
			var store mcp.EventStore
			if c.resumable {
				store = mcp.NewMemoryEventStore(nil)
			}
			url, seen := closingServer(t, store)
			m := newManager(t, Config{}, catalog.Upstream{Name: "up", Remote: &catalog.UpstreamRemote{URL: url, Transport: catalog.UpstreamStreamable}})
			res, err := m.CallTool(context.Background(), "up", &mcp.CallToolParams{Name: "close"}, nil)
			// SEP-1699's close exists on 2025-11-25 only: on a later
			// revision the server would not close, and this would test
			// nothing.
			if st := m.Status("up"); st.Protocol != "2025-11-25" {
				t.Fatalf("the session's protocol is %q, want 2025-11-25", st.Protocol)
			}
			if n := seen.ran.Load(); n != 1 {
				t.Errorf("the tool ran %d times, want once", n)
			}
			if c.resumable {
				if n := seen.resumed.Load(); n != 1 {
					t.Errorf("%d GETs with Last-Event-ID, want 1: the result came some other way", n)
				}
				if err != nil {
					t.Fatalf("the resumed call: %v", err)
				}
				if got := resultText(t, res); got != "closed, then done" {
					t.Errorf("result %q", got)
				}
				return
			}
			var je *jsonrpc.Error
			if !errors.As(err, &je) {
				t.Fatalf("got result %v, error %v (%T); want a JSON-RPC error", res, err, err)
			}
			if je.Code != jsonrpc.CodeInternalError {
				t.Errorf("code %d, want %d", je.Code, jsonrpc.CodeInternalError)
			}
			for _, want := range []string{`upstream "up"`, "calling close", "asking to reconnect in 1ms", "no event ID", "the result is lost", "the tool may have run"} {
				if !strings.Contains(je.Message, want) {
					t.Errorf("message %q lacks %q", je.Message, want)
				}
			}
			// Only the call was lost: the session still answers.
			if got := call(t, m, "up", "echo", nil); got != "still here" {
				t.Errorf("echo after the lost call: %q", got)
			}
		})
	}
}

// closingServer serves, on 127.0.0.1 over Streamable HTTP with sessions
// (2025-11-25), a go-sdk server whose tool close closes its call's stream
// before returning its result, and whose tool echo answers. store is the
// server's event store (nil: none).
func closingServer(t *testing.T, store mcp.EventStore) (url string, seen *closerSeen) {
	t.Helper()
	seen = new(closerSeen)
	srv := mcp.NewServer(&mcp.Implementation{Name: "closer", Version: "1"}, nil)
	object := map[string]any{"type": "object"}
	srv.AddTool(&mcp.Tool{Name: "close", InputSchema: object}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		seen.ran.Add(1)
		// The result is written after the close: only an event store
		// keeps it for the client's GET with Last-Event-ID.
		req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: time.Millisecond})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "closed, then done"}}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: object}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "still here"}}}, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{EventStore: store})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") != "" {
			seen.resumed.Add(1)
		}
		h.ServeHTTP(w, r)
	})}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return "http://" + ln.Addr().String() + "/mcp", seen
}

// closerSeen is what closingServer saw: the calls of its tool close, and
// the GETs resuming a stream (with Last-Event-ID).
type closerSeen struct {
	ran, resumed atomic.Int32
}
