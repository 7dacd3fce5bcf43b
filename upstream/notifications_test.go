package upstream

//lint:file-ignore SA1019 a server on a 2025-11-25 session still logs, which go-sdk marks deprecated as of 2026-07-28 (SEP-2577).

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestNotificationsBeforeTheResult: what a server sends during a call,
// before its result, has reached the call when CallTool returns: every
// progress notification, and on 2025-11-25 every log message, with the
// call's context (Config.Log). go-sdk's client used to hand them to their
// handlers on a goroutine of its own, which could run after the result
// came back: the progress was dropped, the log message reached the app
// after the result (make conformance-upstream's tools-call-with-logging).
func TestNotificationsBeforeTheResult(t *testing.T) {
	upserver(t)
	type callKey struct{}
	var (
		mu   sync.Mutex
		logs = map[int]int{} // by call
	)
	cfg := Config{Log: func(ctx context.Context, _ string, p *mcp.LoggingMessageParams) {
		if i, ok := ctx.Value(callKey{}).(int); ok && p.Logger == "progress" {
			mu.Lock()
			logs[i]++
			mu.Unlock()
		}
	}}
	cases := []struct {
		name string
		up   func(t *testing.T) catalog.Upstream
		logs bool // the server logs: a 2025-11-25 session, asked to log (askToLog)
	}{
		{"stdio", func(t *testing.T) catalog.Upstream { return command(t, "up") }, false},
		{"streamable sessions", func(t *testing.T) catalog.Upstream {
			return catalog.Upstream{Name: "up", Remote: &catalog.UpstreamRemote{URL: httpServer(t, "-http", "streamable"), Transport: catalog.UpstreamStreamable}}
		}, true},
	}
	// Several calls, each sending several notifications: before the fix,
	// most calls returned with some of theirs still to be handled.
	const calls, steps = 20, 10
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := newManager(t, cfg, c.up(t))
			for i := range calls {
				ctx := context.WithValue(context.Background(), callKey{}, i)
				p := &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{"n": steps, "log": true}}
				var progress atomic.Int32
				res, err := m.CallTool(ctx, "up", p, func(*mcp.ProgressNotificationParams) { progress.Add(1) })
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				if got := resultText(t, res); got != "done" {
					t.Fatalf("call %d: %q", i, got)
				}
				mu.Lock()
				logged := logs[i]
				mu.Unlock()
				if got := progress.Load(); got != steps {
					t.Errorf("call %d returned after %d progress notifications of %d", i, got, steps)
				}
				if want := map[bool]int{true: steps}[c.logs]; logged != want {
					t.Errorf("call %d returned after %d log messages, want %d", i, logged, want)
				}
			}
		})
	}
}
