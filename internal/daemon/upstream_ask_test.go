package daemon

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/gateway"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/record"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// desk is the person at the desktop in these tests: it answers each
// question with the answer set last, and keeps the questions.
type desk struct {
	mu        sync.Mutex
	answer    mcpcore.Answer
	questions []mcpcore.Question
}

func (d *desk) Ask(_ context.Context, q mcpcore.Question) (mcpcore.Answer, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.questions = append(d.questions, q)
	return d.answer, nil
}

// will sets the answer to the questions from now on.
func (d *desk) will(a mcpcore.Answer) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.answer = a
}

// asked are the questions asked so far.
func (d *desk) asked() []mcpcore.Question {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.questions)
}

// TestUpstreamAskFirst: a server's tool set to ask first asks on the
// desktop exactly once per call — on 2026-07-28 too, where a server asking
// the AI app for input makes the call several requests — naming the
// server and showing the arguments. A refusal reaches the AI app in words
// and the server never sees the call. "Allow until I revoke it" lets later
// calls run unasked, until it is revoked, or until the server changes the
// tool and the person approves the change. All of it through mcptray's
// HTTP endpoint, with go-sdk's client, in both revisions, on a real
// database and a real server process.
func TestUpstreamAskFirst(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	d, person, seen := frontAskFirst(ctx, t)
	st := d.Store()
	eras := []string{"2026-07-28", "2025-11-25"}
	// Each era's app has a token of its own: approvals are kept per app.
	apps := map[string]*aiApp{}
	for _, era := range eras {
		token, err := st.CreateToken(ctx, "app-"+era, nil)
		if err != nil {
			t.Fatal(err)
		}
		apps[era] = &aiApp{d: d, person: person, token: token, era: era}
	}

	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			app := apps[era]
			app.connect(ctx, t)

			// Allowed once: asked once, though the server asked the AI app
			// in between (a second request on 2026-07-28).
			person.will(mcpcore.Answer{Action: "accept"})
			if n := app.asks(ctx, t, "up_ask", map[string]any{"text": "Who are you, " + era + "?"}, "accept Ada"); n != 1 {
				t.Errorf("allowed once: asked %d times in one call, want 1", n)
			}
			if n := app.elicited.Load(); n != 1 {
				t.Errorf("the AI app was asked the server's question %d times, want 1", n)
			}
			q := person.asked()[len(person.asked())-1]
			if q.Server != "up" || q.Tool != "up_ask" || q.Kind != catalog.StepApproval ||
				!strings.Contains(q.Arguments, `"text": "Who are you, `+era+`?"`) || !strings.Contains(q.Runs, `server "up"`) {
				t.Errorf("the question asked on the desktop: %s", testutil.MustJSON(t, q))
			}

			// Denied: the AI app reads why, and the server never sees it.
			person.will(mcpcore.Answer{Action: "decline", Reason: "not today"})
			before := len(person.asked())
			denied := "denied-" + era
			res, text := app.call(ctx, t, "up_ask", map[string]any{"text": denied})
			if !res.IsError || text != `The person at the computer denied running "up_ask": not today.` {
				t.Errorf("denied: %s", testutil.MustJSON(t, res))
			}
			if n := len(person.asked()) - before; n != 1 {
				t.Errorf("denied: asked %d times, want 1", n)
			}
			// The server writes each call as it gets it, in order: once a
			// later call shows, the denied one would have shown before.
			mark := "after-" + era
			if _, text := app.call(ctx, t, "up_env", map[string]any{"name": mark}); text != "" {
				t.Fatalf("up_env: %q", text)
			}
			testutil.Eventually(t, "the later call on the server's standard error", func() bool { return seen("env", mark) })
			if seen("ask", denied) {
				t.Errorf("the server got the denied call: %q", d.UpstreamStatus("up").Stderr)
			}

			// Allowed until revoked: asked once, then no more.
			person.will(mcpcore.Answer{Action: "accept", Remember: record.RememberUntilRevoked})
			if n := app.asks(ctx, t, "up_ask", map[string]any{"text": "first"}, "accept Ada"); n != 1 {
				t.Errorf("allowing until revoked: asked %d times, want 1", n)
			}
			person.will(mcpcore.Answer{Action: "decline", Reason: "should not be asked"})
			for _, text := range []string{"second", "third"} {
				if n := app.asks(ctx, t, "up_ask", map[string]any{"text": text}, "accept Ada"); n != 0 {
					t.Errorf("allowed until revoked, yet asked %d times", n)
				}
			}

			// Revoked as the Settings tab does: asked again.
			kept := remembered(ctx, t, d, "app-"+era, "up_ask")
			if !kept.Matches {
				t.Errorf("the kept approval does not match the tool: %+v", kept)
			}
			if err := d.Engine().ForgetApproval(ctx, kept.ApprovalKey); err != nil {
				t.Fatal(err)
			}
			person.will(mcpcore.Answer{Action: "accept"})
			if n := app.asks(ctx, t, "up_ask", map[string]any{"text": "revoked"}, "accept Ada"); n != 1 {
				t.Errorf("after revoking: asked %d times, want 1", n)
			}

			// up_echo allowed until revoked, for the change below.
			person.will(mcpcore.Answer{Action: "accept", Remember: record.RememberUntilRevoked})
			if n := app.asks(ctx, t, "up_echo", map[string]any{"text": "hi"}, "hi"); n != 1 {
				t.Errorf("up_echo: asked %d times, want 1", n)
			}
			if n := app.asks(ctx, t, "up_echo", map[string]any{"text": "again"}, "again"); n != 0 {
				t.Errorf("up_echo allowed until revoked, yet asked %d times", n)
			}
		})
	}

	// The server replaces echo (no description, another schema); the
	// person approves the change. Each app's kept approval no longer
	// matches the tool, and each app's next call asks again.
	for _, era := range eras {
		apps[era].connect(ctx, t)
	}
	if res, text := apps[eras[0]].call(ctx, t, "up_add", map[string]any{"name": "echo"}); res.IsError {
		t.Fatalf("up_add: %s", text)
	}
	testutil.Eventually(t, "the change to echo waiting", func() bool {
		w, err := st.UpstreamChanges(ctx, "up")
		return err == nil && len(w) == 1 && w[0].Tool == "echo"
	})
	if _, err := gateway.Approve(ctx, st, "up", []string{"echo"}); err != nil {
		t.Fatal(err)
	}
	if err := d.Engine().Sync(ctx); err != nil {
		t.Fatal(err)
	}
	for _, era := range eras {
		app := apps[era]
		if kept := remembered(ctx, t, d, "app-"+era, "up_echo"); kept.Matches {
			t.Errorf("%s: the kept approval still matches the changed tool: %+v", era, kept)
		}
		person.will(mcpcore.Answer{Action: "accept", Remember: record.RememberUntilRevoked})
		if n := app.asks(ctx, t, "up_echo", nil, "echo"); n != 1 {
			t.Errorf("%s: after the change, asked %d times, want 1", era, n)
		}
		if n := app.asks(ctx, t, "up_echo", nil, "echo"); n != 0 {
			t.Errorf("%s: the changed tool allowed until revoked, yet asked %d times", era, n)
		}
	}
}

// frontAskFirst starts mcptray with person at the desktop, fronting the
// test server (named "up") with its tools approved and up_ask and up_echo
// set to ask first. seen reports whether the server's standard error
// shows a call of tool whose arguments hold text.
func frontAskFirst(ctx context.Context, t *testing.T) (d *Daemon, person *desk, seen func(tool, text string) bool) {
	t.Helper()
	bin := testutil.Upserver(t)
	person = &desk{}
	cfg := testConfig(t.TempDir())
	cfg.Asker = person
	d = start(t, cfg)
	st := d.Store()
	frontApproved(ctx, t, d, "", catalog.Upstream{Name: "up", Start: catalog.UpstreamAtStart,
		Command: &catalog.UpstreamCommand{Argv: []string{bin, "-calls"}}})
	for _, name := range []string{"up_ask", "up_echo"} {
		tool, err := st.Tool(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		tool.Approval = catalog.ApprovalAlways
		if err := st.PutTool(ctx, tool); err != nil {
			t.Fatal(err)
		}
	}
	// Served as set, before the first call.
	if err := d.Engine().Sync(ctx); err != nil {
		t.Fatal(err)
	}
	seen = func(tool, text string) bool {
		return slices.ContainsFunc(d.UpstreamStatus("up").Stderr, func(l string) bool {
			return strings.HasPrefix(l, "called "+tool+" ") && strings.Contains(l, text)
		})
	}
	return d, person, seen
}

// TestUpstreamApprovalNotReplayed: on 2026-07-28 the request that answers
// a server's question carries the person's approval in mcptray's sealed
// state, once: the same request sent again is asked about again, and, the
// person refusing, the server does not get it.
func TestUpstreamApprovalNotReplayed(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	d, person, seen := frontAskFirst(ctx, t)
	token, err := d.Store().CreateToken(ctx, "app", nil)
	if err != nil {
		t.Fatal(err)
	}
	cs := aiClient(ctx, t, d, token, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}, "")
	person.will(mcpcore.Answer{Action: "accept"})
	p := &mcp.CallToolParams{Name: "up_ask", Arguments: map[string]any{"text": "replayed"}}
	res, err := cs.CallTool(ctx, p)
	if err != nil || !res.NeedsInput() {
		t.Fatalf("the server's question: %v %s", err, testutil.MustJSON(t, res))
	}
	answer := *p
	answer.InputResponses = mcp.InputResponseMap{"who": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Grace"}}}
	answer.RequestState = res.RequestState
	again := answer
	if res, err = cs.CallTool(ctx, &answer); err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "accept Grace" {
		t.Fatalf("answered: %v %s", err, testutil.MustJSON(t, res))
	}
	if n := len(person.asked()); n != 1 {
		t.Errorf("one call asked %d times, want 1", n)
	}

	person.will(mcpcore.Answer{Action: "decline"})
	res, err = cs.CallTool(ctx, &again)
	if err != nil || !res.IsError || res.Content[0].(*mcp.TextContent).Text != `The person at the computer denied running "up_ask".` {
		t.Fatalf("the answer sent again: %v %s", err, testutil.MustJSON(t, res))
	}
	if n := len(person.asked()); n != 2 {
		t.Errorf("the answer sent again: asked %d times in all, want 2", n)
	}
	// The server writes each call as it gets it, in order.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "up_env", Arguments: map[string]any{"name": "MARK"}}); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the later call on the server's standard error", func() bool { return seen("env", "MARK") })
	calls := 0
	for _, l := range d.UpstreamStatus("up").Stderr {
		if strings.HasPrefix(l, "called ask ") && strings.Contains(l, "replayed") {
			calls++
		}
	}
	if calls != 2 {
		t.Errorf("the server got %d requests of the call, want 2 (its question, and the answer once)", calls)
	}
}

// aiApp is an AI app of TestUpstreamAskFirst: go-sdk's client on one
// protocol revision, with a token of its own, answering a server's
// questions itself ("Ada").
type aiApp struct {
	d        *Daemon
	person   *desk
	token    string
	era      string
	cs       *mcp.ClientSession
	elicited atomic.Int32
}

// connect connects the app (again): the same name and token, so the same
// app for its kept approvals.
func (a *aiApp) connect(ctx context.Context, t *testing.T) {
	t.Helper()
	a.cs = aiClient(ctx, t, a.d, a.token, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			a.elicited.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
	}, a.era)
	if got := a.cs.InitializeResult().ProtocolVersion; got != a.era {
		t.Fatalf("connected on %s, want %s", got, a.era)
	}
}

// call calls tool and returns its result and its text.
func (a *aiApp) call(ctx context.Context, t *testing.T, tool string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s on %s: %v", tool, a.era, err)
	}
	text := ""
	if len(res.Content) == 1 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			text = tc.Text
		}
	}
	return res, text
}

// asks calls tool, which must answer want, and says how many questions
// the call asked on the desktop.
func (a *aiApp) asks(ctx context.Context, t *testing.T, tool string, args map[string]any, want string) int {
	t.Helper()
	before := len(a.person.asked())
	res, text := a.call(ctx, t, tool, args)
	if res.IsError || text != want {
		t.Fatalf("%s(%v) on %s: %s, want %q", tool, args, a.era, testutil.MustJSON(t, res), want)
	}
	return len(a.person.asked()) - before
}

// remembered is the approval kept for token's app and tool.
func remembered(ctx context.Context, t *testing.T, d *Daemon, token, tool string) record.RememberedApproval {
	t.Helper()
	all, err := d.Engine().RememberedApprovals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range all {
		if a.Token == token && a.Tool == tool {
			return a
		}
	}
	t.Fatalf("no approval of %s kept for %s: %+v", tool, token, all)
	return record.RememberedApproval{}
}
