package upstream

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEverythingServer: the reference server of the TypeScript SDK, over
// stdio and over its Streamable HTTP mode: its tools listed, a call, its
// progress, a cancellation, and nothing left running.
func TestEverythingServer(t *testing.T) {
	argv := testutil.NPMServers(t, testutil.Everything)[testutil.Everything]
	t.Run("stdio", func(t *testing.T) {
		u := catalog.Upstream{Name: "everything", Command: &catalog.UpstreamCommand{
			Argv: append(argv, "stdio"),
			Env:  map[string]catalog.Template{"MCPTRAY_PROBE": `{{secret "probe"}}`}}}
		g := &groups{}
		m := newManager(t, Config{Processes: g, Expand: secrets(map[string]string{"probe": "seen"})}, u)
		exerciseEverything(t, m)
		if got := everythingText(t, m, "get-env", nil); !strings.Contains(got, `"MCPTRAY_PROBE": "seen"`) {
			t.Errorf("get-env lacks MCPTRAY_PROBE: %.300s", got)
		}
		m.Close()
		if running, added := g.count(); running != 0 || added != 1 {
			t.Errorf("groups: %d running of %d recorded, want 0 of 1", running, added)
		}
	})
	t.Run("streamable HTTP", func(t *testing.T) {
		url := testutil.StartEverythingHTTP(t, argv)
		u := catalog.Upstream{Name: "everything", Remote: &catalog.UpstreamRemote{URL: url}}
		exerciseEverything(t, newManager(t, Config{}, u))
	})
}

// exerciseEverything lists the everything server's tools, calls echo, and
// follows trigger-long-running-operation's progress until it cancels it.
func exerciseEverything(t *testing.T, m *Manager) {
	t.Helper()
	tools, err := m.Tools(context.Background(), "everything")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tool := range tools {
		names[tool.Name] = true
	}
	for _, want := range []string{"echo", "get-sum", "trigger-long-running-operation"} {
		if !names[want] {
			t.Errorf("no tool %s among %d", want, len(tools))
		}
	}
	t.Logf("%d tools, protocol %s", len(tools), m.Status("everything").Protocol)
	if got := everythingText(t, m, "echo", map[string]any{"message": "hi"}); got != "Echo: hi" {
		t.Errorf("echo: %q", got)
	}

	// One step a second for a minute: two steps seen, then cancelled.
	p := &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 60, "steps": 60}}
	p.SetProgressToken(42)
	got := make(chan float64, 60)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := m.CallTool(ctx, "everything", p, func(n *mcp.ProgressNotificationParams) {
			if n.ProgressToken == 42 {
				got <- n.Progress
			}
		})
		done <- err
	}()
	for want := 1.0; want <= 2; want++ {
		select {
		case v := <-got:
			if v != want {
				t.Errorf("progress %v, want %v", v, want)
			}
		case err := <-done:
			t.Fatalf("the long operation ended: %v", err)
		case <-time.After(testutil.Patience):
			t.Fatal("no progress")
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func everythingText(t *testing.T, m *Manager, tool string, args map[string]any) string {
	t.Helper()
	res, err := m.CallTool(context.Background(), "everything", &mcp.CallToolParams{Name: tool, Arguments: args}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) == 0 {
		t.Fatalf("%s: no content", tool)
	}
	text, _ := res.Content[0].(*mcp.TextContent)
	if text == nil {
		t.Fatalf("%s: %T", tool, res.Content[0])
	}
	return text.Text
}
