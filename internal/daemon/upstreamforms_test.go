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
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/storage"
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

// TestUpstreamPromptFormOnTheDesktop: a server's form while an AI app that
// shows no forms gets its prompt is filled in at the computer, in either
// revision of the app's, whether the server asks within its result
// (2026-07-28) or on its own session (2025-11-25); the desktop is told the
// prompt and the server, the server's secret blacked out of its question.
// An app that shows forms is asked itself, on its 2025-11-25 session too
// (on 2026-07-28: TestUpstreamQuestionsPassedOn). Each get is in the
// activity log, as having answered.
func TestUpstreamPromptFormOnTheDesktop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	f := frontedTwice(ctx, t)
	for _, server := range []string{"up", "web"} {
		prompt := server + "_greet_asked"
		get := func(cs *mcp.ClientSession, version string) string {
			t.Helper()
			res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: prompt, Arguments: map[string]string{"question": "Whom to greet? Not $UP_KEY."}})
			if err != nil || len(res.Messages) != 1 {
				t.Fatalf("%s, protocol %q: %v %s", prompt, version, err, testutil.MustJSON(t, res))
			}
			return res.Messages[0].Content.(*mcp.TextContent).Text
		}
		for _, version := range []string{"", "2025-11-25"} {
			cs := f.connect(nil, version)
			testutil.Eventually(t, prompt+" served", func() bool {
				res, err := cs.ListPrompts(ctx, nil)
				return err == nil && slices.ContainsFunc(res.Prompts, func(p *mcp.Prompt) bool { return p.Name == prompt })
			})
			before := len(f.person.asked())
			if got := get(cs, version); got != "Say hello to Grace" {
				t.Errorf("%s, protocol %q, its form filled in on the desktop: %q", prompt, version, got)
			}
			qs := f.person.asked()[before:]
			if len(qs) != 1 {
				t.Fatalf("%s, protocol %q: %d questions on the desktop, want 1", prompt, version, len(qs))
			}
			if q := qs[0]; q.Kind != catalog.StepForm || q.Prompt != prompt || q.Tool != "" || q.Server != server || q.Client != "upstream-test" ||
				!strings.HasPrefix(q.Message, "Whom to greet? Not ") || strings.Contains(q.Message, upSecret) || !strings.Contains(q.Arguments, "Whom to greet?") {
				t.Errorf("%s, protocol %q: the desktop's question (the server's secret blacked out): %s", prompt, version, testutil.MustJSON(t, q))
			}
		}
		// An app that shows forms answers them itself.
		before := len(f.person.asked())
		cs := f.connect(&mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		}}, "2025-11-25")
		if got := get(cs, "2025-11-25"); got != "Say hello to Ada" {
			t.Errorf("%s, the app's own answer: %q", prompt, got)
		}
		if n := len(f.person.asked()) - before; n != 0 {
			t.Errorf("%s: the desktop was asked %d times what the app answers", prompt, n)
		}
		if err := f.d.Activity().Flush(ctx); err != nil {
			t.Fatal(err)
		}
		acts, err := f.d.Store().Activity(ctx, storage.ActivityQuery{Method: "prompts/get", Target: prompt})
		if err != nil {
			t.Fatal(err)
		}
		if len(acts) != 3 || slices.ContainsFunc(acts, func(a storage.ActivityRecord) bool { return a.Outcome != record.OutcomeOK }) {
			t.Errorf("%s: the activity log: %s", prompt, testutil.MustJSON(t, acts))
		}
	}
}

// frontedWithDesk starts mcptray with a person at the desktop who fills in
// every form with name Grace, and secrets, fronting u with its tools
// approved; it returns that person and what connects an AI client
// (frontApproved).
func frontedWithDesk(ctx context.Context, t *testing.T, u catalog.Upstream, secrets map[string]string) (*desk, func(*mcp.ClientOptions, string) *mcp.ClientSession) {
	t.Helper()
	d, asker, token := startWithDesk(ctx, t, secrets)
	return asker, frontApproved(ctx, t, d, token, u)
}

// startWithDesk starts mcptray with a person at the desktop who fills in
// every form with name Grace, and secrets; it returns the server, that
// person and a client token.
func startWithDesk(ctx context.Context, t *testing.T, secrets map[string]string) (*Daemon, *desk, string) {
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
	return d, asker, token
}

// upSecret is the secret both servers of frontedTwice are started with.
const upSecret = "s3cr3t-value-123"

// twice is mcptray fronting the test server twice (frontedTwice).
type twice struct {
	d      *Daemon
	person *desk
	token  string
	// connect connects an AI client (frontApproved).
	connect func(*mcp.ClientOptions, string) *mcp.ClientSession
	// stderr is what a server wrote on its standard error so far, by line.
	stderr func(server string) []string
}

// count counts the lines of server's standard error that start with prefix
// and hold text.
func (f *twice) count(server, prefix, text string) int {
	n := 0
	for _, l := range f.stderr(server) {
		if strings.HasPrefix(l, prefix) && strings.Contains(l, text) {
			n++
		}
	}
	return n
}

// frontedTwice starts mcptray with a person at the desktop who fills in
// every form with name Grace, fronting the test server twice, with its
// tools approved and writing each call on its standard error: "up", a
// program on 2026-07-28, which asks with input_required results, and
// "web", over Streamable HTTP with sessions, on 2025-11-25, which asks on
// its own session. Each holds upSecret as UP_KEY, which mcptray knows as
// the secret up_key.
func frontedTwice(ctx context.Context, t *testing.T) *twice {
	t.Helper()
	d, person, token := startWithDesk(ctx, t, map[string]string{"up_key": upSecret})
	key := map[string]catalog.Template{"UP_KEY": `{{secret "up_key"}}`}
	connect := frontApproved(ctx, t, d, token, catalog.Upstream{Name: "up", Start: catalog.UpstreamAtStart,
		Command: &catalog.UpstreamCommand{Argv: []string{testutil.Upserver(t), "-calls"}, Env: key}})
	url, webErr := upserverHTTPCalls(t, "UP_KEY="+upSecret)
	frontApproved(ctx, t, d, token, catalog.Upstream{Name: "web", Start: catalog.UpstreamAtStart,
		Remote: &catalog.UpstreamRemote{URL: url, Transport: catalog.UpstreamStreamable, Headers: map[string]catalog.Template{"X-Key": key["UP_KEY"]}}})
	stderr := func(server string) []string {
		if server == "web" {
			return strings.Split(webErr.String(), "\n")
		}
		return d.UpstreamStatus(server).Stderr
	}
	return &twice{d: d, person: person, token: token, connect: connect, stderr: stderr}
}
