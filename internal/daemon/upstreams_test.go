package daemon

//lint:file-ignore SA1019 a server fronted on 2025-11-25 still logs, which go-sdk marks deprecated as of 2026-07-28 (SEP-2577).

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/gateway"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/storage"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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
	cs := aiClient(ctx, t, d, token, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed.Add(1) },
	}, "")
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

// TestUpstreamPromptsAndResources: a server's prompt (under its prefix),
// resource and resource template are served through mcptray as the
// server offers them, their arguments completed by the server; what the
// server answers is redacted of the secrets it was started with.
func TestUpstreamPromptsAndResources(t *testing.T) {
	bin := testutil.Upserver(t)
	d, token := startStarter(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st := d.Store()
	if err := d.Secrets().SetSecret(ctx, "up_key", "s3cr3t-value-123"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SaveUpstream(ctx, "", catalog.Upstream{Name: "up", Start: catalog.UpstreamAtStart,
		Command: &catalog.UpstreamCommand{Argv: []string{bin}, Env: map[string]catalog.Template{"UP_KEY": `{{secret "up_key"}}`}}}); err != nil {
		t.Fatal(err)
	}
	cs := aiClient(ctx, t, d, token, nil, "")
	testutil.Eventually(t, "the server's prompt served", func() bool {
		res, err := cs.ListPrompts(ctx, nil)
		return err == nil && slices.ContainsFunc(res.Prompts, func(p *mcp.Prompt) bool { return p.Name == "up_greet" })
	})
	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "up_greet", Arguments: map[string]string{"name": "Ada"}})
	if err != nil || len(p.Messages) != 1 || p.Messages[0].Content.(*mcp.TextContent).Text != "Say hello to Ada" {
		t.Fatalf("up_greet: %v %+v", err, p)
	}
	r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "upserver://hello"})
	if err != nil || r.Contents[0].Text != "hello from upserver" {
		t.Fatalf("the server's resource: %v %+v", err, r)
	}
	r, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "upserver://env/UP_KEY"})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Contents[0].Text; strings.Contains(got, "s3cr3t-value-123") || !strings.HasPrefix(got, "UP_KEY=") {
		t.Fatalf("the server's secret was not redacted from its resource: %q", got)
	}
	for _, version := range []string{"", "2025-11-25"} {
		cs := aiClient(ctx, t, d, token, nil, version)
		for _, c := range []struct {
			ref   *mcp.CompleteReference
			typed string
			want  []string
		}{
			{&mcp.CompleteReference{Type: "ref/prompt", Name: "up_greet"}, "a", []string{"Ada", "Alan"}},
			{&mcp.CompleteReference{Type: "ref/resource", URI: "upserver://env/{name}"}, "u", []string{"UP_KEY"}},
		} {
			res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: c.ref, Argument: mcp.CompleteParamsArgument{Name: "name", Value: c.typed}})
			if err != nil || !slices.Equal(res.Completion.Values, c.want) {
				t.Errorf("protocol %q (\"\": the newest): completing %+v from %q: %v %+v, want %v", version, c.ref, c.typed, err, res, c.want)
			}
		}
	}
}

// frontApproved has d front u (the test server, named "up") with its tools
// approved, and returns what connects an AI client to d with opts, at a
// protocol version ("" for the newest).
func frontApproved(ctx context.Context, t *testing.T, d *Daemon, token string, u catalog.Upstream) func(opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	return frontApprovedOnce(ctx, t, d, token, u, 8)
}

// frontApprovedOnce is frontApproved of any server u (started with d),
// whose tools are approved once at least tools of them wait for approval.
func frontApprovedOnce(ctx context.Context, t *testing.T, d *Daemon, token string, u catalog.Upstream, tools int) func(opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	st := d.Store()
	if _, err := st.SaveUpstream(ctx, "", u); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, u.Name+"'s tools to wait for approval", func() bool {
		cs, err := st.UpstreamChanges(ctx, u.Name)
		return err == nil && len(cs) >= tools
	})
	if _, err := gateway.Approve(ctx, st, u.Name, nil); err != nil {
		t.Fatal(err)
	}
	return func(opts *mcp.ClientOptions, version string) *mcp.ClientSession {
		t.Helper()
		return aiClient(ctx, t, d, token, opts, version)
	}
}

// aiClient connects a go-sdk client to d's endpoint with token and opts,
// at a protocol version ("" for the newest); it closes when t ends.
func aiClient(ctx context.Context, t *testing.T, d *Daemon, token string, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	var so *mcp.ClientSessionOptions
	if version != "" {
		so = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "upstream-test", Version: "1"}, opts).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: d.URL(), MaxRetries: -1, HTTPClient: &http.Client{Transport: bearer{token}}}, so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestUpstreamQuestionsPassedOn: a server's question during a call or a
// prompts/get reaches the AI client. On 2026-07-28 it is an input_required
// round of mcptray's, whose requestState is mcptray's sealed one (a
// tampered one is refused, never passed to the server); on 2025-11-25 it
// is an elicitation/create on the client's session. The server sees the
// client's capabilities: a client that declared no elicitation gets the
// server's -32021 as it is, not a tool error. A secret the server was
// started with is redacted from its questions.
func TestUpstreamQuestionsPassedOn(t *testing.T) {
	bin := testutil.Upserver(t)
	d, token := startStarter(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := d.Secrets().SetSecret(ctx, "up_key", "s3cr3t-value-123"); err != nil {
		t.Fatal(err)
	}
	connect := frontApproved(ctx, t, d, token, catalog.Upstream{Name: "up", Start: catalog.UpstreamAtStart,
		Command: &catalog.UpstreamCommand{Argv: []string{bin}, Env: map[string]catalog.Template{"UP_KEY": `{{secret "up_key"}}`}}})
	text := func(res *mcp.CallToolResult, err error) string {
		t.Helper()
		if err != nil || res.IsError || len(res.Content) != 1 {
			t.Fatalf("up_ask: %v %s", err, testutil.MustJSON(t, res))
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	grace := mcp.InputResponseMap{"who": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Grace"}}}

	// 2026-07-28, the rounds by hand.
	modern := connect(&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}, "")
	testutil.Eventually(t, "up_ask served", func() bool {
		res, err := modern.ListTools(ctx, nil)
		return err == nil && slices.Contains(toolNames(res.Tools), "up_ask")
	})
	// go-sdk's client writes its capabilities into the params it sends:
	// each call gets its own.
	ask := func() *mcp.CallToolParams {
		return &mcp.CallToolParams{Name: "up_ask", Arguments: map[string]any{"text": "Who are you?"}}
	}
	p := ask()
	res, err := modern.CallTool(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if q, ok := res.InputRequests["who"].(*mcp.ElicitParams); !res.NeedsInput() || !ok || q.Message != "Who are you?" || !strings.HasPrefix(res.RequestState, "v1.") {
		t.Fatalf("the server's question: %s", testutil.MustJSON(t, res))
	}
	leak, err := modern.CallTool(ctx, &mcp.CallToolParams{Name: "up_ask", Arguments: map[string]any{"text": "Is your key $UP_KEY?"}})
	if q, ok := leak.InputRequests["who"].(*mcp.ElicitParams); err != nil || !ok || strings.Contains(q.Message, "s3cr3t-value-123") || !strings.HasPrefix(q.Message, "Is your key ") {
		t.Fatalf("the server's secret was not redacted from its question: %v %s", err, testutil.MustJSON(t, leak))
	}
	answer := *p
	answer.InputResponses, answer.RequestState = grace, res.RequestState+"x"
	var je *jsonrpc.Error
	if _, err := modern.CallTool(ctx, &answer); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("a tampered requestState: %v", err)
	}
	answer.RequestState = res.RequestState
	if got := text(modern.CallTool(ctx, &answer)); got != "accept Grace" {
		t.Errorf("answered: %q", got)
	}
	pp := &mcp.GetPromptParams{Name: "up_greet_asked"}
	pr, err := modern.GetPrompt(ctx, pp)
	if err != nil || !pr.NeedsInput() || pr.InputRequests["who"] == nil {
		t.Fatalf("the prompt's question: %v %s", err, testutil.MustJSON(t, pr))
	}
	pp.InputResponses, pp.RequestState = grace, pr.RequestState
	if pr, err = modern.GetPrompt(ctx, pp); err != nil || len(pr.Messages) != 1 || pr.Messages[0].Content.(*mcp.TextContent).Text != "Say hello to Grace" {
		t.Fatalf("the prompt answered: %v %s", err, testutil.MustJSON(t, pr))
	}

	bare := connect(nil, "")
	if _, err := bare.CallTool(ctx, ask()); !errors.As(err, &je) || je.Code != mcp.CodeMissingRequiredClientCapabilities {
		t.Errorf("no elicitation declared: %v", err)
	}

	// 2025-11-25: the session's client is asked while the call waits.
	var asked atomic.Int32
	legacy := connect(&mcp.ClientOptions{ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked.Add(1)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	}}, "2025-11-25")
	if got := text(legacy.CallTool(ctx, ask())); got != "accept Ada" {
		t.Errorf("on 2025-11-25: %q", got)
	}
	if pr, err = legacy.GetPrompt(ctx, &mcp.GetPromptParams{Name: "up_greet_asked"}); err != nil || len(pr.Messages) != 1 || pr.Messages[0].Content.(*mcp.TextContent).Text != "Say hello to Ada" {
		t.Fatalf("the prompt on 2025-11-25: %v %s", err, testutil.MustJSON(t, pr))
	}
	if n := asked.Load(); n != 2 {
		t.Errorf("the 2025-11-25 client was asked %d times, want 2", n)
	}
}

// TestUpstreamSessionRequestsRouted: a server on a 2025-11-25 session of
// its own (Streamable HTTP with sessions) asks with elicitation/create and
// logs with notifications/message during a call: both reach the AI app
// that made the call, on its 2025-11-25 session (the log filtered by the
// level it chose). A 2026-07-28 app cannot be asked so: the call fails
// saying why, and nobody else is asked.
func TestUpstreamSessionRequestsRouted(t *testing.T) {
	url := upserverHTTP(t)
	d, token := startStarter(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	connect := frontApproved(ctx, t, d, token, catalog.Upstream{Name: "up", Start: catalog.UpstreamAtStart,
		Remote: &catalog.UpstreamRemote{URL: url, Transport: catalog.UpstreamStreamable}})
	var (
		mu    sync.Mutex
		asked []string
		logs  = make(chan string, 10)
	)
	legacy := connect(&mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, r.Params.Message)
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) { logs <- fmt.Sprint(r.Params.Data) },
	}, "2025-11-25")
	if err := legacy.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "up_ask served", func() bool {
		res, err := legacy.ListTools(ctx, nil)
		return err == nil && slices.Contains(toolNames(res.Tools), "up_ask")
	})
	res, err := legacy.CallTool(ctx, &mcp.CallToolParams{Name: "up_ask", Arguments: map[string]any{"text": "Who are you?"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "accept Ada" {
		t.Fatalf("up_ask: %v %s", err, testutil.MustJSON(t, res))
	}
	select {
	case got := <-logs:
		if got != "asking: Who are you?" {
			t.Errorf("the server's log message: %q", got)
		}
	case <-ctx.Done():
		t.Fatal("the server's log message never came")
	}
	mu.Lock()
	if len(asked) != 1 || asked[0] != "Who are you?" {
		t.Errorf("asked: %q", asked)
	}
	mu.Unlock()

	modern := connect(&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}}}, "")
	res, err = modern.CallTool(ctx, &mcp.CallToolParams{Name: "up_ask", Arguments: map[string]any{"text": "And you?"}})
	if err == nil && !res.IsError {
		t.Fatalf("a 2026-07-28 app asked on a session: %s", testutil.MustJSON(t, res))
	}
	if msg := fmt.Sprint(err, testutil.MustJSON(t, res)); !strings.Contains(msg, "2026-07-28") {
		t.Errorf("why the question could not be passed on: %s", msg)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 {
		t.Errorf("the 2025-11-25 app was asked the 2026-07-28 app's question: %q", asked)
	}
}

// TestUpstreamResourceSubscriptions: an AI client subscribed to a server's
// resource through mcptray, in either revision, hears when the server
// says it changed.
func TestUpstreamResourceSubscriptions(t *testing.T) {
	bin := testutil.Upserver(t)
	d, token := startStarter(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	connect := frontApproved(ctx, t, d, token, catalog.Upstream{Name: "up", Start: catalog.UpstreamAtStart,
		Command: &catalog.UpstreamCommand{Argv: []string{bin}}})
	const uri = "upserver://hello"
	for _, version := range []string{"", "2025-11-25"} {
		updated := make(chan string, 64)
		cs := connect(&mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			updated <- r.Params.URI
		}}, version)
		testutil.Eventually(t, "the server's resource and up_echo served", func() bool {
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err != nil {
				return false
			}
			res, err := cs.ListTools(ctx, nil)
			return err == nil && slices.Contains(toolNames(res.Tools), "up_echo")
		})
		// On 2026-07-28 a subscription is a listen stream, open until
		// Unsubscribe.
		subscribed := make(chan error, 1)
		go func() { subscribed <- cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}) }()
		// The server is subscribed in the background: the first changes
		// may come before it is.
		testutil.Eventually(t, "an update of the server's resource", func() bool {
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "up_echo", Arguments: map[string]any{"text": "touch"}}); err != nil {
				t.Fatalf("protocol %q: changing the resource: %v", version, err)
			}
			select {
			case got := <-updated:
				if got != uri {
					t.Fatalf("protocol %q: an update of %q, want %q", version, got, uri)
				}
				return true
			default:
				return false
			}
		})
		if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
			t.Fatalf("protocol %q: unsubscribing: %v", version, err)
		}
		if version == "" {
			if err := <-subscribed; err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("the listen stream ended with %v", err)
			}
		}
	}
}

// upserverHTTP starts the test server over Streamable HTTP with sessions
// (2025-11-25), with env added to its environment, and returns its
// address; it stops when t ends.
func upserverHTTP(t *testing.T, env ...string) string {
	t.Helper()
	url, _ := upserverHTTPCalls(t, env...)
	return url
}

// upserverHTTPCalls is upserverHTTP writing each call, and each request
// cancelled, on its standard error, which it returns too.
func upserverHTTPCalls(t *testing.T, env ...string) (string, *testutil.SyncBuffer) {
	t.Helper()
	srv := exec.Command(testutil.Upserver(t), "-http", "streamable", "-calls")
	srv.Env = append(os.Environ(), env...)
	stderr := &testutil.SyncBuffer{}
	srv.Stderr = stderr
	out, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the server's address: %v", err)
	}
	return strings.TrimSpace(line), stderr
}

// TestSecretChangeRestartsServer: a secret a server's environment reads,
// set again, restarts that server (and not one that does not read it), so
// that it runs with the new value; a server started before read the old one.
func TestSecretChangeRestartsServer(t *testing.T) {
	bin := testutil.Upserver(t)
	d, token := startStarter(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sec := d.Secrets()
	for name, value := range map[string]string{"up_key": "first-value-1", "other_key": "other-value-1"} {
		if err := sec.SetSecret(ctx, name, value); err != nil {
			t.Fatal(err)
		}
	}
	other := catalog.Upstream{Name: "other", Start: catalog.UpstreamAtStart,
		Command: &catalog.UpstreamCommand{Argv: []string{bin}, Env: map[string]catalog.Template{"OTHER_KEY": `{{secret "other_key"}}`}}}
	if _, err := d.Store().SaveUpstream(ctx, "", other); err != nil {
		t.Fatal(err)
	}
	cs := frontApproved(ctx, t, d, token, catalog.Upstream{Name: "up", Start: catalog.UpstreamAtStart,
		Command: &catalog.UpstreamCommand{Argv: []string{bin}, Env: map[string]catalog.Template{"UP_KEY": `{{secret "up_key"}}`}}})(nil, "")
	pid := func(server string) int {
		t.Helper()
		res, err := d.ups.run.CallTool(ctx, server, &mcp.CallToolParams{Name: "pid"}, nil)
		if err != nil || len(res.Content) != 1 {
			t.Fatalf("%s's pid: %v %s", server, err, testutil.MustJSON(t, res))
		}
		n, err := strconv.Atoi(res.Content[0].(*mcp.TextContent).Text)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	environ := func(pid int) string {
		t.Helper()
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	first, otherPid := pid("up"), pid("other")
	if !strings.Contains(environ(first), "UP_KEY=first-value-1\x00") {
		t.Fatal("the server did not start with its secret")
	}

	if err := sec.SetSecret(ctx, "up_key", "second-value-2"); err != nil {
		t.Fatal(err)
	}
	var now int
	testutil.Eventually(t, "the server to start again", func() bool {
		now = pid("up")
		return now != first
	})
	if env := environ(now); !strings.Contains(env, "UP_KEY=second-value-2\x00") {
		t.Error("the server started again without the new value of its secret")
	}
	if pid("other") != otherPid {
		t.Error("a server that does not read the secret was restarted")
	}
	// The AI app's session goes on through the restart.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "up_echo", Arguments: map[string]any{"text": "still here"}})
	if err != nil || res.IsError {
		t.Fatalf("a call after the restart: %v %s", err, testutil.MustJSON(t, res))
	}
}
