// Copyright 2026 The Go MCP SDK Authors. All rights reserved.
// Use of this source code is governed by an MIT-style
// license that can be found in the LICENSE file.

package mcp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A call whose stream ends before its response, with no event ID to resume
// it from, fails with ErrNoResponse, saying why: the server closed it
// asking the client to reconnect (SEP-1699, without an event store), ended
// it, or the connection broke. The session goes on.
func TestNoResponseWithoutEventID(t *testing.T) {
	ctx := context.Background()
	server := NewServer(testImpl, nil)
	AddTool(server, &Tool{Name: "close"}, func(_ context.Context, req *CallToolRequest, args struct{ RetryMs int }) (*CallToolResult, any, error) {
		req.Extra.CloseSSEStream(CloseSSEStreamArgs{RetryAfter: time.Duration(args.RetryMs) * time.Millisecond})
		return &CallToolResult{Content: []Content{&TextContent{Text: "lost"}}}, nil, nil
	})
	AddTool(server, &Tool{Name: "echo"}, func(context.Context, *CallToolRequest, any) (*CallToolResult, any, error) {
		return &CallToolResult{Content: []Content{&TextContent{Text: "still here"}}}, nil, nil
	})
	handler := NewStreamableHTTPHandler(func(*http.Request) *Server { return server }, nil)
	httpServer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A call of the tool "break" never reaches the server: its
		// stream starts, then the connection drops mid-response.
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"name":"break"`)) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				io.WriteString(w, ": starting\n\n")
				w.(http.Flusher).Flush()
				conn, _, err := w.(http.Hijacker).Hijack()
				if err != nil {
					t.Errorf("hijack: %v", err)
					return
				}
				conn.Close()
				return
			}
		}
		handler.ServeHTTP(w, r)
	}))
	defer httpServer.Close()

	client := NewClient(testImpl, nil)
	cs, err := client.Connect(ctx, &StreamableClientTransport{Endpoint: httpServer.URL}, &ClientSessionOptions{ProtocolVersion: protocolVersion20251125})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	for _, test := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"close", map[string]any{"RetryMs": 10}, "the server closed the stream asking to reconnect in 10ms, but sent no event ID"},
		{"close", map[string]any{"RetryMs": 0}, "the server ended the stream, and sent no event ID"},
		{"break", nil, "the stream broke ("},
	} {
		_, err := cs.CallTool(ctx, &CallToolParams{Name: test.name, Arguments: test.args})
		if !errors.Is(err, ErrNoResponse) {
			t.Errorf("%s %v: got %v, want ErrNoResponse", test.name, test.args, err)
			continue
		}
		if !strings.Contains(err.Error(), test.want) {
			t.Errorf("%s %v: %q lacks %q", test.name, test.args, err, test.want)
		}
		res, err := cs.CallTool(ctx, &CallToolParams{Name: "echo"})
		if err != nil || res.IsError {
			t.Fatalf("echo after %s %v: %v %v", test.name, test.args, res, err)
		}
	}
}
