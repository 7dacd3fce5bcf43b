package daemon

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/gateway"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/storage"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func toolNames(tools []*mcp.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	slices.Sort(out)
	return out
}

// TestUpstreamServedAndPinned: a server mcptray fronts is started with
// mcptray, its tools wait for approval, then are served under its prefix
// through mcptray's own endpoint (token and all). When the server changes
// a tool, that tool leaves tools/list until the person approves the
// change, a client holding a listen stream hears list_changed at each
// step, and the activity log records the change.
func TestUpstreamServedAndPinned(t *testing.T) {
	bin := testutil.Upserver(t)
	d, token := startStarter(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st := d.Store()
	if _, err := st.SaveUpstream(ctx, "", catalog.Upstream{Name: "up", Start: catalog.UpstreamAtStart,
		Command: &catalog.UpstreamCommand{Argv: []string{bin}}}); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the server's tools to wait for approval", func() bool {
		cs, err := st.UpstreamChanges(ctx, "up")
		return err == nil && len(cs) >= 8
	})
	var changed atomic.Int32
	c := mcp.NewClient(&mcp.Implementation{Name: "upstream-test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed.Add(1) },
	})
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: d.URL(), MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list := func() []string {
		t.Helper()
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		return toolNames(res.Tools)
	}
	if got := list(); slices.Contains(got, "up_echo") {
		t.Fatalf("served before approval: %q", got)
	}
	before := changed.Load()
	if _, err := gateway.Approve(ctx, st, "up", nil); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "list_changed after the approval", func() bool { return changed.Load() > before })
	if got := list(); !slices.Contains(got, "up_echo") || !slices.Contains(got, "up_add") {
		t.Fatalf("after approval: %q", got)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "up_echo", Arguments: map[string]any{"text": "hello through mcptray"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "hello through mcptray" {
		t.Fatalf("up_echo: %v %+v", err, res)
	}

	// The server replaces its echo tool: a definition the person did not
	// approve.
	before = changed.Load()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "up_add", Arguments: map[string]any{"name": "echo"}}); err != nil || res.IsError {
		t.Fatalf("up_add: %v %+v", err, res)
	}
	testutil.Eventually(t, "up_echo held back, with list_changed", func() bool {
		return changed.Load() > before && !slices.Contains(list(), "up_echo")
	})
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "up_echo", Arguments: map[string]any{"text": "x"}})
	if err == nil && !res.IsError {
		t.Fatalf("a held-back tool answered: %+v", res)
	}
	waiting, err := st.UpstreamChanges(ctx, "up")
	if err != nil || len(waiting) != 1 || waiting[0].Tool != "echo" || waiting[0].Kind != "changed" {
		t.Fatalf("waiting: %+v %v", waiting, err)
	}
	before = changed.Load()
	if _, err := gateway.Approve(ctx, st, "up", []string{"echo"}); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "up_echo served again, with list_changed", func() bool {
		return changed.Load() > before && slices.Contains(list(), "up_echo")
	})
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "up_echo"})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "echo" {
		t.Fatalf("the approved new echo: %v %+v", err, res)
	}
	testutil.Eventually(t, "the change in the activity log", func() bool {
		if err := d.Activity().Flush(ctx); err != nil {
			return false
		}
		acts, err := st.Activity(ctx, storage.ActivityQuery{Target: "up/echo"})
		if err != nil {
			return false
		}
		for _, a := range acts {
			if strings.Contains(a.Detail, "up's tool echo is changed") {
				return true
			}
		}
		return false
	})
}
