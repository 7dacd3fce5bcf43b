package daemon

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestUpstreamFormOnTheDesktop: a server's form during a call from an AI
// app that shows no forms is filled in at the computer, in either
// revision, and the call goes on with the answer; an app that shows forms
// is asked itself (TestUpstreamQuestionsPassedOn), the desktop not.
func TestUpstreamFormOnTheDesktop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	asker, connect := frontedWithDesk(ctx, t, catalog.Upstream{Name: "up", Start: catalog.UpstreamAtStart,
		Command: &catalog.UpstreamCommand{Argv: []string{testutil.Upserver(t)}}}, nil)
	for i, version := range []string{"", "2025-11-25"} {
		cs := connect(nil, version)
		testutil.Eventually(t, "up_ask served", func() bool {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "up_echo", Arguments: map[string]any{"text": "x"}})
			return err == nil
		})
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "up_ask", Arguments: map[string]any{"text": "Who are you?"}})
		if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "accept Grace" {
			t.Fatalf("protocol %q: the call, its form filled in on the desktop: %v %s", version, err, testutil.MustJSON(t, res))
		}
		qs := asker.asked()
		if len(qs) != i+1 {
			t.Fatalf("protocol %q: %d questions on the desktop, want %d", version, len(qs), i+1)
		}
		q := qs[i]
		var schema map[string]any
		if q.Kind != catalog.StepForm || q.Message != "Who are you?" || q.Tool != "up_ask" || q.Server != "up" || json.Unmarshal(q.Schema, &schema) != nil || schema["properties"] == nil {
			t.Errorf("protocol %q: the desktop's question: %+v", version, q)
		}
	}
	// An app that shows forms answers them itself.
	cs := connect(&mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	}}, "2025-11-25")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "up_ask", Arguments: map[string]any{"text": "Who are you?"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "accept Ada" {
		t.Fatalf("the app's own answer: %v %s", err, testutil.MustJSON(t, res))
	}
	if n := len(asker.asked()); n != 2 {
		t.Errorf("%d questions on the desktop in all, want 2", n)
	}
}

// TestUpstreamSessionFormOnTheDesktop: a server on a 2025-11-25 session of
// its own asks for a form (elicitation/create) during a call from an AI
// app that cannot show it — one on 2026-07-28, or on 2025-11-25 without
// forms — and the person at the computer fills it in, told the call and
// the server, the server's secret blacked out of its question.
func TestUpstreamSessionFormOnTheDesktop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	asker, connect := frontedWithDesk(ctx, t, catalog.Upstream{Name: "up", Start: catalog.UpstreamAtStart,
		Remote: &catalog.UpstreamRemote{URL: upserverHTTP(t, "UP_KEY=s3cr3t-value-123"), Transport: catalog.UpstreamStreamable,
			Headers: map[string]catalog.Template{"X-Key": `{{secret "up_key"}}`}}}, map[string]string{"up_key": "s3cr3t-value-123"})
	for i, version := range []string{"", "2025-11-25"} {
		cs := connect(nil, version)
		testutil.Eventually(t, "up_ask served", func() bool {
			res, err := cs.ListTools(ctx, nil)
			return err == nil && slices.Contains(toolNames(res.Tools), "up_ask")
		})
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "up_ask", Arguments: map[string]any{"text": "Who are you? Is your key $UP_KEY?"}})
		if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "accept Grace" {
			t.Fatalf("protocol %q: the call, its form filled in on the desktop: %v %s", version, err, testutil.MustJSON(t, res))
		}
		qs := asker.asked()
		if len(qs) != i+1 {
			t.Fatalf("protocol %q: %d questions on the desktop, want %d", version, len(qs), i+1)
		}
		if q := qs[i]; q.Kind != catalog.StepForm || !strings.HasPrefix(q.Message, "Who are you? Is your key ") || strings.Contains(q.Message, "s3cr3t-value-123") ||
			q.Tool != "up_ask" || q.Server != "up" || !strings.Contains(q.Arguments, "Who are you?") {
			t.Errorf("protocol %q: the desktop's question (the server's secret blacked out): %+v", version, q)
		}
	}
}

// frontedWithDesk starts mcptray with a person at the desktop who fills in
// every form with name Grace, and secrets, fronting u with its tools
// approved; it
// returns that person and what connects an AI client (frontApproved).
func frontedWithDesk(ctx context.Context, t *testing.T, u catalog.Upstream, secrets map[string]string) (*desk, func(*mcp.ClientOptions, string) *mcp.ClientSession) {
	t.Helper()
	asker := &desk{answer: mcpcore.Answer{Action: "accept", Content: map[string]any{"name": "Grace"}}}
	cfg := testConfig(t.TempDir())
	cfg.Asker = asker
	d := start(t, cfg)
	for name, value := range secrets {
		if err := d.Secrets().SetSecret(ctx, name, value); err != nil {
			t.Fatal(err)
		}
	}
	token, err := d.Store().CreateToken(ctx, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	return asker, frontApproved(ctx, t, d, token, u)
}
