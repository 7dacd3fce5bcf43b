package upstream

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStdioServer: a program started on first use answers in the newest
// revision, lists every page of its tools, sees its Env rendered with the
// secrets, and its progress notifications reach the call's callback with
// the caller's own token, in order, before the call returns.
func TestStdioServer(t *testing.T) {
	u := command(t, "up")
	u.Command.Env = map[string]catalog.Template{"GREETING": `hello {{secret "who"}}`}
	m := newManager(t, Config{Expand: secrets(map[string]string{"who": "world"})}, u)
	if st := m.Status("up"); st.State != Stopped {
		t.Fatalf("before any use: %s, want stopped", st.State)
	}
	tools, err := m.Tools(context.Background(), "up")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	if len(tools) != 10 {
		t.Errorf("tools over pages of 3: %v, want 10", names)
	}
	st := m.Status("up")
	if st.State != Running || st.Protocol != "2026-07-28" {
		t.Errorf("status: %s in %q, want running in 2026-07-28", st.State, st.Protocol)
	}
	if got := call(t, m, "up", "env", map[string]any{"name": "GREETING"}); got != "hello world" {
		t.Errorf("GREETING = %q", got)
	}

	seen := progressOf(t, m, "up", 5)
	for i, s := range seen {
		if want := fmt.Sprintf("client-token-7 %d/5 step %d", i+1, i+1); s != want {
			t.Errorf("progress %d: %q, want %q", i, s, want)
		}
	}
}

// progressOf calls the progress tool for n notifications under the token
// "client-token-7", waits for them and cancels the call, which then holds.
// (Waiting for a call's end would not do: go-sdk's client may return
// before it handled the last notifications, which are then dropped, never
// delivered late — docs/go-sdk.md.)
func progressOf(t testing.TB, m *Manager, server string, n int) []string {
	t.Helper()
	p := &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{"n": n, "hold": true}}
	p.SetProgressToken("client-token-7")
	got := make(chan string, n)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := m.CallTool(ctx, server, p, func(n *mcp.ProgressNotificationParams) {
			got <- fmt.Sprintf("%v %v/%v %s", n.ProgressToken, n.Progress, n.Total, n.Message)
		})
		done <- err
	}()
	var seen []string
	for len(seen) < n {
		select {
		case s := <-got:
			seen = append(seen, s)
		case err := <-done:
			t.Fatalf("the call ended after %d notifications: %v", len(seen), err)
		case <-time.After(testutil.Patience):
			t.Fatalf("waited %v for %d notifications; saw %q", testutil.Patience, n, seen)
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the progress call cancelled: %v", err)
	}
	if p.GetProgressToken() != "client-token-7" {
		t.Errorf("the caller's params were changed: token %v", p.GetProgressToken())
	}
	return seen
}

// TestCancellationReachesTheServer: a call given up is cancelled on the
// server (notifications/cancelled), which keeps serving.
func TestCancellationReachesTheServer(t *testing.T) {
	m := newManager(t, Config{}, command(t, "up"))
	if err := startWait(t, m)(); !errors.Is(err, context.Canceled) {
		t.Errorf("the call cancelled: %v", err)
	}
	testutil.Eventually(t, "the server to see the cancellation", func() bool {
		return hasLine(m.Status("up").Stderr, "wait was cancelled")
	})
	if got := call(t, m, "up", "echo", map[string]any{"text": "still here"}); got != "still here" {
		t.Errorf("after: %q", got)
	}
}

// startWait calls the wait tool and returns once the server runs it,
// with what cancels the call and returns how it ended.
func startWait(t testing.TB, m *Manager) (cancel func() error) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := m.CallTool(ctx, "up", &mcp.CallToolParams{Name: "wait"}, nil)
		done <- err
	}()
	testutil.Eventually(t, "the server to run the call", func() bool { return hasLine(m.Status("up").Stderr, "waiting") })
	return func() error {
		stop()
		return <-done
	}
}

func hasLine(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}

// TestCrashRestartsWithBackoff: a server started with mcptray that ends
// by itself is said to have, with its exit status and last words; calls
// meanwhile fail at once saying when it starts again; it is started again
// after 1 s, then after 2 s when it crashes again at once.
func TestCrashRestartsWithBackoff(t *testing.T) {
	u := command(t, "up")
	u.Start = catalog.UpstreamAtStart
	m := newManager(t, Config{}, u)
	waitState(t, m, "up", Running)
	first := pidOf(t, m, "up")

	delays := []time.Duration{}
	for range 2 {
		_, err := m.CallTool(context.Background(), "up", &mcp.CallToolParams{Name: "crash", Arguments: map[string]any{"n": 3}}, nil)
		if err == nil {
			t.Fatal("the crash call succeeded")
		}
		st := waitState(t, m, "up", BackingOff)
		for _, want := range []string{"ended by itself (exit status 3)", "crashing now"} {
			if !strings.Contains(st.LastError, want) {
				t.Errorf("LastError %q lacks %q", st.LastError, want)
			}
		}
		delays = append(delays, st.RetryAt.Sub(st.Since).Round(100*time.Millisecond))
		_, err = m.Tools(context.Background(), "up")
		if time.Now().Before(st.RetryAt) && (err == nil || !strings.Contains(err.Error(), "tries it again at")) {
			// (On a machine so slow that the delay is over, the use may start
			// it.)
			t.Errorf("a use while backing off: %v", err)
		}
		waitState(t, m, "up", Running)
	}
	if delays[0] != time.Second || delays[1] != 2*time.Second {
		t.Errorf("delays %v, want 1 s then 2 s", delays)
	}
	if pid := pidOf(t, m, "up"); pid == first {
		t.Error("the same process after two crashes")
	}
	gone(t, "the first process", first)
}

// TestIdleStop: an unused server stops after its idle time, and starts
// again on its next use. No timer runs once it stopped.
func TestIdleStop(t *testing.T) {
	u := command(t, "up")
	u.IdleStopMs = 300
	m := newManager(t, Config{}, u)
	pid := pidOf(t, m, "up")
	waitState(t, m, "up", Stopped)
	gone(t, "the idle server", pid)
	if again := pidOf(t, m, "up"); again == pid {
		t.Error("the same pid after an idle stop")
	}
}

// TestIdleStopWaitsForCalls: a server is not stopped under a running
// call, however long it runs.
func TestIdleStopWaitsForCalls(t *testing.T) {
	u := command(t, "up")
	u.IdleStopMs = 100
	m := newManager(t, Config{}, u)
	// A use just before arms the idle stop; the call must disarm it.
	call(t, m, "up", "echo", map[string]any{"text": "armed"})
	cancel := startWait(t, m)
	// Five idle times pass under the call: a stop would end it with "was
	// stopped" rather than the cancellation.
	time.Sleep(5 * u.IdleStop())
	if err := cancel(); !errors.Is(err, context.Canceled) {
		t.Errorf("the call under the idle time: %v", err)
	}
	waitState(t, m, "up", Stopped)
}

// TestRenewWaitsForCalls: a server told to renew (a secret it reads
// changed) keeps its session for the calls under way, ends it when the
// last one ends, and reads its settings again at its next start; one
// started with mcptray starts again at once, one idle ends at once.
func TestRenewWaitsForCalls(t *testing.T) {
	var mu sync.Mutex
	key := "one"
	expand := func(ctx context.Context, tpl catalog.Template) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		return secrets(map[string]string{"k": key})(ctx, tpl)
	}
	setKey := func(v string) {
		mu.Lock()
		defer mu.Unlock()
		key = v
	}
	u := command(t, "up")
	u.Command.Env = map[string]catalog.Template{"UP_KEY": `{{secret "k"}}`}
	m := newManager(t, Config{Expand: expand}, u)
	env := func() string { return call(t, m, "up", "env", map[string]any{"name": "UP_KEY"}) }
	if got := env(); got != "one" {
		t.Fatalf("UP_KEY at first: %q", got)
	}
	first := pidOf(t, m, "up")

	cancel := startWait(t, m)
	setKey("two")
	m.Renew("up", "the secret k it reads changed")
	if got, pid := env(), pidOf(t, m, "up"); got != "one" || pid != first {
		t.Errorf("under a running call: UP_KEY %q, pid %d (was %d); want the same session", got, pid, first)
	}
	if err := cancel(); !errors.Is(err, context.Canceled) {
		t.Errorf("the call under way was ended by the renewal: %v", err)
	}
	gone(t, "the server, once its last call ended", first)
	if got := env(); got != "two" {
		t.Errorf("UP_KEY after the renewal: %q", got)
	}

	// Idle, started with mcptray: it ends and starts again by itself.
	u.Start = catalog.UpstreamAtStart
	m.Set([]catalog.Upstream{u})
	second := pidOf(t, m, "up")
	setKey("three")
	m.Renew("up", "the secret k it reads changed")
	gone(t, "the idle server", second)
	waitState(t, m, "up", Running)
	if got := env(); got != "three" {
		t.Errorf("UP_KEY after the idle renewal: %q", got)
	}
}

// TestStartFailuresInWords: the failures people meet most, said so that
// they know what to do.
func TestStartFailuresInWords(t *testing.T) {
	bin := upserver(t)
	cases := []struct {
		name string
		u    catalog.Upstream
		want []string
	}{
		{"exits at once", catalog.Upstream{Command: &catalog.UpstreamCommand{Argv: []string{bin, "-exit", "2"}}},
			[]string{"ended before answering (exit status 2)", "error: the setting TOKEN is missing"}},
		{"not MCP", catalog.Upstream{Command: &catalog.UpstreamCommand{Argv: []string{bin, "-garbage"}}},
			[]string{`does not speak MCP on its standard output: it wrote "hello, I am not an MCP server"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { testFails(t, c.u, c.want...) })
	}
}

// testFails checks that Test of u fails saying each of want.
func testFails(t *testing.T, u catalog.Upstream, want ...string) {
	t.Helper()
	u.Name = "up"
	// The server that speaks no MCP is given up after this.
	_, err := Test(context.Background(), u, Config{StartTimeout: time.Second})
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q lacks %q", err, w)
		}
	}
}

// TestProgramNotFoundInWords: a program that is not there is said so,
// with what to install for the usual ones, before anything starts.
func TestProgramNotFoundInWords(t *testing.T) {
	noPath := map[string]catalog.Template{"PATH": catalog.Template(t.TempDir())}
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"npx", "-y", "x"}, `"npx" was not found: install Node.js, or give the full path to npx`},
		{[]string{"uvx", "mcp-server-git"}, `"uvx" was not found: install uv (docs.astral.sh/uv), or give the full path to uvx`},
		{[]string{"docker", "run", "-i", "x"}, `"docker" was not found: install Docker, or give the full path to docker`},
		{[]string{"no-such-program-here"}, `"no-such-program-here" was not found: install it, or give its full path`},
	} {
		testFails(t, catalog.Upstream{Command: &catalog.UpstreamCommand{Argv: c.argv, Env: noPath}}, c.want)
	}
	testFails(t, catalog.Upstream{Command: &catalog.UpstreamCommand{Argv: []string{"sh"}, Dir: "/no/such/folder"}},
		"the working folder /no/such/folder does not exist")
}

// TestBannerOnStdoutIsSkipped: a server printing a line that is not MCP
// on its standard output before serving still works (as with the
// reference client), and the line shows with its standard error.
func TestBannerOnStdoutIsSkipped(t *testing.T) {
	m := newManager(t, Config{}, command(t, "up", "-banner", "Server running on stdio"))
	if got := call(t, m, "up", "echo", map[string]any{"text": "hi"}); got != "hi" {
		t.Errorf("echo: %q", got)
	}
	if st := m.Status("up"); !hasLine(st.Stderr, "(standard output) Server running on stdio") {
		t.Errorf("stderr: %q", st.Stderr)
	}
}

// TestStderrKeepsTheLast200Lines: a server writing much on standard
// error costs at most 200 lines.
func TestStderrKeepsTheLast200Lines(t *testing.T) {
	m := newManager(t, Config{}, command(t, "up", "-stderr", "5000"))
	call(t, m, "up", "echo", map[string]any{"text": "hi"})
	var st Status
	testutil.EventuallyShows(t, "the last noise line", func() (bool, string) {
		st = m.Status("up")
		return len(st.Stderr) > 0 && st.Stderr[len(st.Stderr)-1] == "noise line 4999", fmt.Sprint(len(st.Stderr))
	})
	if len(st.Stderr) != 200 || st.Stderr[0] != "noise line 4800" {
		t.Errorf("%d lines from %q", len(st.Stderr), st.Stderr[0])
	}
}

// TestListChanged: a server's list_changed reaches OnListChanged, and the
// next listing shows the new tool (go-sdk's cache of 2026-07-28 lists is
// dropped with it).
func TestListChanged(t *testing.T) {
	var mu sync.Mutex
	n := 0
	m := newManager(t, Config{OnListChanged: func(s string) {
		mu.Lock()
		n++
		mu.Unlock()
	}}, command(t, "up"))
	before, err := m.Tools(context.Background(), "up")
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	connected := n
	mu.Unlock()
	if connected == 0 {
		t.Error("no OnListChanged at the connection")
	}
	call(t, m, "up", "add", map[string]any{"name": "fresh"})
	testutil.Eventually(t, "OnListChanged after list_changed", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return n > connected
	})
	after, err := m.Tools(context.Background(), "up")
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before)+1 {
		t.Errorf("%d tools after adding one to %d", len(after), len(before))
	}
}

// TestSetReconciles: a changed command line restarts the server, a
// disabled one stops and refuses calls, a removed one stops and is
// unknown.
func TestSetReconciles(t *testing.T) {
	a, b := command(t, "a"), command(t, "b")
	m := newManager(t, Config{}, a, b)
	pa, pb := pidOf(t, m, "a"), pidOf(t, m, "b")

	a2 := command(t, "a", "-stderr", "1")
	b.Disabled = true
	m.Set([]catalog.Upstream{a2, b})
	gone(t, "the changed and the disabled server", pa, pb)
	if pid := pidOf(t, m, "a"); pid == pa {
		t.Error("a changed server kept its process")
	}
	if _, err := m.Tools(context.Background(), "b"); err == nil || !strings.Contains(err.Error(), "turned off") {
		t.Errorf("a disabled server: %v", err)
	}

	b.Disabled = false
	m.Set([]catalog.Upstream{b})
	if _, err := m.Tools(context.Background(), "a"); err == nil || !strings.Contains(err.Error(), "no upstream server is named") {
		t.Errorf("a removed server: %v", err)
	}
	if st := m.Status("b"); st.State != Stopped {
		t.Errorf("b enabled again, not used yet: %s", st.State)
	}
}

// TestServerQuestions: a server's question during a call on a 2026-07-28
// session comes back as the call's input_required result (only the AI
// client can answer it: go-sdk's client must not answer it itself), and a
// call with the answers gets the server's answer; on a 2025-11-25 session
// the server asks with elicitation/create, which reaches Config.Elicit with
// the server's name; without Elicit it is refused.
func TestServerQuestions(t *testing.T) {
	var asked []string
	elicit := Config{Elicit: func(_ context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		asked = append(asked, server+": "+p.Message)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	}}
	m := newManager(t, elicit, command(t, "up"))
	p := &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"text": "Who are you?"}}
	res, err := m.CallTool(context.Background(), "up", p, nil)
	if err != nil {
		t.Fatal(err)
	}
	q, ok := res.InputRequests["who"].(*mcp.ElicitParams)
	if !res.NeedsInput() || !ok || q.Message != "Who are you?" {
		t.Fatalf("the question: %s", testutil.MustJSON(t, res))
	}
	p.InputResponses = mcp.InputResponseMap{"who": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Grace"}}}
	res, err = m.CallTool(context.Background(), "up", p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(t, res); got != "accept Grace" {
		t.Errorf("answered: %q", got)
	}
	if len(asked) != 0 {
		t.Errorf("Config.Elicit asked on 2026-07-28: %q", asked)
	}

	web := func(t *testing.T) catalog.Upstream {
		return catalog.Upstream{Name: "web", Remote: &catalog.UpstreamRemote{URL: httpServer(t, "-http", "streamable"), Transport: catalog.UpstreamStreamable}}
	}
	m = newManager(t, elicit, web(t))
	if got := call(t, m, "web", "ask", map[string]any{"text": "Who are you?"}); got != "accept Ada" {
		t.Errorf("answer: %q", got)
	}
	if len(asked) != 1 || asked[0] != "web: Who are you?" {
		t.Errorf("asked: %q", asked)
	}
	bare := newManager(t, Config{}, web(t))
	res, err = bare.CallTool(context.Background(), "web", &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"text": "?"}}, nil)
	if err == nil && !res.IsError {
		t.Errorf("without Elicit: %s", testutil.MustJSON(t, res))
	}
}

// TestStopAsksBeforeKilling: a server that outlives the end of its input
// is asked to end (SIGTERM) before it is killed, as MCP's stdio shutdown
// says.
func TestStopAsksBeforeKilling(t *testing.T) {
	upserver(t)
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	u := command(t, "up", "-linger")
	m := newManager(t, Config{}, u)
	pid := pidOf(t, m, "up")
	u.Disabled = true
	m.Set([]catalog.Upstream{u})
	testutil.EventuallyShows(t, "the server to be asked to end", func() (bool, string) {
		st := m.Status("up").Stderr
		return hasLine(st, "got SIGTERM"), strings.Join(st, " | ")
	})
	gone(t, "the server", pid)
}
