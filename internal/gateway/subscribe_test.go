package gateway

import (
	"context"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSubscriptionsCounted: a server's resource is subscribed to once for
// any number of AI clients, and unsubscribed from after the last.
func TestSubscriptionsCounted(t *testing.T) {
	subs, unsubs := make(chan string, 8), make(chan string, 8)
	srv := mcp.NewServer(&mcp.Implementation{Name: "fake-upstream", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler:   func(_ context.Context, r *mcp.SubscribeRequest) error { subs <- r.Params.URI; return nil },
		UnsubscribeHandler: func(_ context.Context, r *mcp.UnsubscribeRequest) error { unsubs <- r.Params.URI; return nil },
	})
	srv.AddResource(&mcp.Resource{URI: "x://r", Name: "r"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "x://r", Text: "r"}}}, nil
	})
	g := New(connectLive(t, srv), openStore(t))
	g.SetUpstreams([]catalog.Upstream{{Name: "up", Command: &catalog.UpstreamCommand{Argv: []string{"x"}}}})
	g.SubscribeUpstream("up", "x://r")
	g.SubscribeUpstream("up", "x://r")
	if got := receive(t, subs, "the server subscribed to"); got != "x://r" {
		t.Errorf("subscribed to %q", got)
	}
	g.UnsubscribeUpstream("up", "x://r")
	g.mu.Lock()
	left := g.subscribers["up"]["x://r"]
	g.mu.Unlock()
	if left != 1 {
		t.Errorf("after one of two clients unsubscribed, %d subscribers counted, want 1", left)
	}
	g.UnsubscribeUpstream("up", "x://r")
	if got := receive(t, unsubs, "the server unsubscribed from"); got != "x://r" {
		t.Errorf("unsubscribed from %q", got)
	}
	if len(subs) != 0 {
		t.Errorf("the server was subscribed to again: %d more", len(subs))
	}
}

// receive waits for what ch brings.
func receive(t *testing.T, ch <-chan string, what string) string {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(testutil.Patience):
		t.Fatalf("waited %v for %s", testutil.Patience, what)
		return ""
	}
}
