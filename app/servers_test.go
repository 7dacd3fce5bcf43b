package app

import (
	"bufio"
	"context"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/gateway"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/upstream"
	"github.com/mcptray/mcptray/upstream/oauthtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serversManager is a manager window on the real server s, showing its
// Servers tab, at a laptop's size. The tab reads how the servers run only
// when the test asks (readStatuses), not on its timer.
func serversManager(t *testing.T, a fyne.App, s *uitest.Served) *Manager {
	t.Helper()
	m := NewManager(a, Config{Store: s.St, Approvals: s.Eng, Secrets: s.D.Secrets(), Upstreams: s})
	t.Cleanup(m.win.Close)
	m.win.Resize(fyne.NewSize(1366, 768))
	m.win.Show()
	m.tabs.SelectIndex(3)
	if got := m.tabs.Selected().Text; got != "Servers" {
		t.Fatalf("tab 4 is %s", got)
	}
	m.servers.watch(false)
	return m
}

// statusShows reads how the servers run until the open server's status
// line says want.
func statusShows(t *testing.T, m *Manager, want string) {
	t.Helper()
	testutil.EventuallyShows(t, "the server's status to say "+want, func() (bool, string) {
		m.servers.readStatuses()
		m.servers.reads.Wait()
		var got string
		fyne.DoAndWait(func() { got = m.servers.detail.state.Text })
		return strings.Contains(got, want), got
	})
}

// changesShow says whether the open server's changes show text, and what
// they show. The change feed reloads them on its goroutine, which the test
// driver runs fyne.Do on: the tab's lock keeps the two apart.
func changesShow(m *Manager, text string) (bool, string) {
	m.servers.mu.Lock()
	defer m.servers.mu.Unlock()
	d := m.servers.detail
	return uitest.HasText(d.changes, text), strings.Join(uitest.Seen(d.changes), "; ")
}

// addServer fills in the Add form with a command line and environment
// values.
func addServer(m *Manager, name, command, env string) *serverForm {
	m.servers.ShowAdd()
	f := m.servers.form
	test.Type(f.name, name)
	test.Type(f.command, command)
	if env != "" {
		test.Type(f.env, env)
	}
	return f
}

// TestServersAddTestAndServe: the Add form tests the real server (a
// program built from upstream/testdata/upserver) off the GUI thread and
// lists the tools it offers; Save stores it, puts the credential in the
// secret store, and its tools are served through mcptray at once. The tab
// then shows it running, what it wrote on standard error, a tool it adds
// as a change waiting for approval (worded by gateway.Explain), which
// Approve serves; "Ask me first" is stored on the tool, which stays a
// tool of that server.
func TestServersAddTestAndServe(t *testing.T) {
	bin := testutil.Upserver(t)
	a := uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	m := serversManager(t, a, s)
	ctx := context.Background()

	f := addServer(m, "up", bin+" -stderr 3", "API_TOKEN=sekrit\nMODE=fast")
	if got := f.prefix.Text; got != "up_" {
		t.Errorf("the prefix follows the name: %q", got)
	}
	test.Tap(f.testBtn)
	f.work.Wait()
	uitest.Sees(t, "the tested form", uitest.Seen(f.content),
		"label: It works: up offers 10 tools. Save serves them to your AI apps, as they are now: {success}",
		"re:(?s)label: up_add  —  adds a tool\n.*up_echo  —  says text back\n.*up_wait  —  waits until cancelled")
	if _, err := s.St.Upstream(ctx, "up"); err == nil {
		t.Fatal("Test stored the server")
	}

	test.Tap(f.saveBtn)
	f.work.Wait()
	u, err := s.St.Upstream(ctx, "up")
	if err != nil {
		t.Fatalf("Save stored nothing: %v; the form says %q", err, f.result.Text)
	}
	if got := u.Command.Env["API_TOKEN"]; got != `{{secret "up_api_token"}}` {
		t.Errorf("the token is stored as %q, not read from the secret store", got)
	}
	if got := u.Command.Env["MODE"]; got != "fast" {
		t.Errorf("MODE is stored as %q", got)
	}
	if v, err := s.D.Secrets().Secret(ctx, "up_api_token"); err != nil || v != "sekrit" {
		t.Errorf("the secret store holds %q (%v)", v, err)
	}
	if names := s.ToolNames(t); !slices.Contains(names, "up_echo") || !slices.Contains(names, "up_env") {
		t.Fatalf("served after Save: %v", names)
	}
	// The secret reaches the server's program through the serving
	// process, which redacts it from the result.
	if got := s.CallText(t, "up_env", map[string]any{"name": "API_TOKEN"}); got != "[secret:up_api_token]" {
		t.Errorf("the server's API_TOKEN is %q", got)
	}

	if m.servers.open != "up" || m.servers.detail == nil {
		t.Fatalf("Save did not open the server (open %q)", m.servers.open)
	}
	statusShows(t, m, "Running since")
	d := m.servers.detail
	uitest.Sees(t, "the server", uitest.Seen(m.servers.Content()),
		"check: [x]", "label: up  ·  10 tools served", "re:label: Runs .*upserver -stderr 3", "re:label: Running since .* \\{success\\}",
		"button: Refresh", "re:label: Runs .*upserver -stderr 3\nIt starts when an AI app first uses one of its tools. Its tools are served as up_NAME.",
		"label: Nothing waits for your approval: its tools are served as you approved them.",
		"label: Its tools", "check: [x]", "label: up_add   (its name: add)", "check: [ ] Ask me first",
		"re:textgrid: noise line 0\nnoise line 1\nnoise line 2(.|\n)*", "button: Remove… {danger}")

	// The server adds a tool: held back, waiting for the person.
	if got := s.CallText(t, "up_add", map[string]any{"name": "extra"}); got != "added" {
		t.Fatalf("add: %q", got)
	}
	testutil.EventuallyShows(t, "the new tool to wait for approval", func() (bool, string) {
		fyne.DoAndWait(m.servers.Reload)
		return changesShow(m, "extra: new, served as up_extra")
	})
	uitest.Sees(t, "the change waiting", uitest.Seen(m.servers.Content()),
		"label: up  ·  10 tools served, 1 change waits for you",
		"label: 1 change waits for your approval", "button: Approve all {high}",
		"label: extra: new, served as up_extra\n  description: (the server gives this tool no description)", "button: Approve")
	if slices.Contains(s.ToolNames(t), "up_extra") {
		t.Fatal("a tool not approved is served")
	}
	test.Tap(labelledIn[*widget.Button](t, d.changes, "Approve"))
	if cs, _ := s.St.UpstreamChanges(ctx, "up"); len(cs) != 0 {
		t.Errorf("still waiting after Approve: %v", cs)
	}
	testutil.Eventually(t, "the approved tool to be served", func() bool { return slices.Contains(s.ToolNames(t), "up_extra") })
	if ok, _ := changesShow(m, "Nothing waits for your approval"); !ok {
		t.Errorf("the changes still show: %v", uitest.Seen(d.changes))
	}

	// Ask me first, on a tool of the server.
	before, err := s.St.Tool(ctx, "up_echo")
	if err != nil {
		t.Fatal(err)
	}
	test.Tap(labelledIn[*widget.Check](t, rowOf(t, d.tools, "up_echo"), "Ask me first"))
	after, err := s.St.Tool(ctx, "up_echo")
	if err != nil {
		t.Fatal(err)
	}
	if after.Approval != catalog.ApprovalAlways || after.Action.Upstream == nil || *after.Action.Upstream != *before.Action.Upstream {
		t.Errorf("after Ask me first: approval %q, action %+v", after.Approval, after.Action)
	}

	// Off, then removed.
	m.servers.setEnabled("up", false)
	if got, _ := s.St.Upstream(ctx, "up"); !got.Disabled {
		t.Error("the server is still on")
	}
	uitest.Sees(t, "the server off", uitest.Seen(m.servers.list), "check: [ ]", "label: Off: not started, and its tools are not served {low}")
	test.Tap(labelledIn[*widget.Button](t, d.content, "Remove…"))
	test.Tap(uitest.OverlayButton(t, m.win, "Yes"))
	if _, err := s.St.Upstream(ctx, "up"); err == nil {
		t.Error("Remove left the server")
	}
	if tools, _ := s.St.UpstreamTools(ctx, "up"); len(tools) != 0 {
		t.Errorf("Remove left its tools: %d", len(tools))
	}
	if m.servers.open != "" || len(m.servers.rows) != 0 {
		t.Errorf("the tab still shows %q (%d listed)", m.servers.open, len(m.servers.rows))
	}
}

// TestServersTestFailsInWords: a Test of a program that is not there says
// why in red, and Save stores nothing; a command line the shell would be
// needed for is refused at once, saying so.
func TestServersTestFailsInWords(t *testing.T) {
	a := uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	m := serversManager(t, a, s)

	f := addServer(m, "gone", "/nonexistent/mcp-server --stdio", "")
	test.Tap(f.testBtn)
	f.work.Wait()
	uitest.Sees(t, "the failed test", uitest.Seen(f.content),
		`re:label: It did not work: .*"/nonexistent/mcp-server" was not found.* \{danger\}`)
	test.Tap(f.saveBtn)
	f.work.Wait()
	if _, err := s.St.Upstream(context.Background(), "gone"); err == nil {
		t.Error("a server that does not start was stored")
	}

	f.command.SetText("my-server | tee log")
	test.Tap(f.testBtn)
	if !f.problems.Visible() || !strings.Contains(f.problems.Text, "command line:") {
		t.Errorf("a pipe in the command line: %q", f.problems.Text)
	}
	if f.work.Busy() {
		t.Error("a command line with a problem was tested")
	}
}

// servedUpstream stores a server with one tool approved as a server
// offering tool would offer it, through gateway, as Add does; nothing
// runs.
func servedUpstream(t *testing.T, s *uitest.Served, name string, tool *mcp.Tool) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.St.SaveUpstream(ctx, "", catalog.Upstream{Name: name, Command: &catalog.UpstreamCommand{Argv: []string{"never-started"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := gateway.Sync(ctx, s.St, offeredTools{tool}, name); err != nil {
		t.Fatal(err)
	}
	if _, err := gateway.Approve(ctx, s.St, name, nil); err != nil {
		t.Fatal(err)
	}
}

// TestUpstreamToolOpensReadOnly: in the Tools tab, a tool of another
// server opens as what it is, not in the tool editor (whose Save would
// store it as a tool that only responds): its server, its name there, its
// description and schemas, read-only; on/off and "Ask me first" are
// stored on it, which stays that server's tool, pinned as approved;
// File ▸ Save has nothing to save; the link opens the server.
func TestUpstreamToolOpensReadOnly(t *testing.T) {
	a := uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	ctx := context.Background()
	servedUpstream(t, s, "notes", &mcp.Tool{Name: "search", Description: "Searches the notes.",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}})
	stored, err := s.St.Tool(ctx, "notes_search")
	if err != nil {
		t.Fatal(err)
	}
	m := NewManager(a, Config{Store: s.St, Approvals: s.Eng, Upstreams: s})
	t.Cleanup(m.win.Close)
	m.win.Resize(fyne.NewSize(1366, 768))
	m.win.Show()
	selectEntry(t, m.tools, "notes_search")
	if m.Editor() != nil {
		t.Fatal("the tool editor opened a tool of another server")
	}
	uitest.Sees(t, "the tool of another server", uitest.Seen(m.tools.host),
		"label: notes_search",
		"re:label: A tool of the server notes, another AI tool server you use: .*cannot be edited here.",
		"text: Open the server notes in the Servers tab",
		"label: Server", "label: notes", "label: Its name there", "label: search", "label: What it does", "label: Searches the notes.",
		"check: [x] On: served to your AI apps", "check: [ ] Ask me first: mcptray asks you, on this computer, before each call",
		"label: What it takes (input schema)", "re:label: \\{\n  \"properties\": (.|\n)*")
	uitest.SeesNone(t, "the tool of another server", uitest.Seen(m.tools.host), "entry:", "button: Save", "Respond", "Try it")

	test.Tap(labelledIn[*widget.Check](t, m.tools.host, "Ask me first: mcptray asks you, on this computer, before each call"))
	test.Tap(labelledIn[*widget.Check](t, m.tools.host, "On: served to your AI apps"))
	m.saveOpenEditor() // File ▸ Save: nothing to save here
	got, err := s.St.Tool(ctx, "notes_search")
	if err != nil {
		t.Fatal(err)
	}
	if got.Approval != catalog.ApprovalAlways || !got.Disabled {
		t.Errorf("approval %q, disabled %v", got.Approval, got.Disabled)
	}
	if got.Action.Respond != nil || got.Action.Command != nil || got.Action.HTTP != nil ||
		got.Action.Upstream == nil || *got.Action.Upstream != *stored.Action.Upstream || got.Description != stored.Description {
		t.Errorf("the tool changed kind: %s", testutil.MustJSON(t, got))
	}

	var link *widget.Hyperlink
	uitest.Walk(m.tools.host, func(o fyne.CanvasObject) {
		if h, ok := o.(*widget.Hyperlink); ok {
			link = h
		}
	})
	test.TapAt(link, fyne.NewPos(20, link.Size().Height/2)) // on its words

	if m.tabs.Selected().Text != "Servers" || m.servers.open != "notes" {
		t.Fatalf("the link shows %s, server %q", m.tabs.Selected().Text, m.servers.open)
	}
	uitest.Sees(t, "the server", uitest.Seen(m.servers.detail.tools), "check: [ ]", "label: notes_search   (its name: search) {low}", "check: [x] Ask me first")
}

// labelledIn is the widget of type W labelled text under o (a button, a
// check).
func labelledIn[W interface {
	*widget.Button | *widget.Check
}](t *testing.T, o fyne.CanvasObject, text string) W {
	t.Helper()
	var found W
	uitest.Walk(o, func(x fyne.CanvasObject) {
		w, ok := x.(W)
		if !ok || found != nil {
			return
		}
		switch v := any(w).(type) {
		case *widget.Button:
			ok = v.Text == text
		case *widget.Check:
			ok = v.Text == text
		}
		if ok {
			found = w
		}
	})
	if found == nil {
		t.Fatalf("no %T labelled %q", found, text)
	}
	return found
}

// rowOf is the row of the tool served as name in a server's tool list.
func rowOf(t *testing.T, tools *fyne.Container, name string) fyne.CanvasObject {
	t.Helper()
	for _, o := range tools.Objects {
		if uitest.HasText(o, name+"   ") {
			return o
		}
	}
	t.Fatalf("no row for %s", name)
	return nil
}

// TestChangesRead: a change's values read as written, not escaped, and
// what nobody can see is written out.
func TestChangesRead(t *testing.T) {
	got := readable([]string{"echo (served as up_echo) changed:",
		`  input schema was: "{\"type\":\"object\"}"`,
		`  description now: "says\u202e back"… (12 more bytes)`})
	want := "echo (served as up_echo) changed:\n  input schema was: {\"type\":\"object\"}\n  description now: says[hidden U+202E] back… (12 more bytes)"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestServerStatusWords: each state of a server in words, with its colour.
func TestServerStatusWords(t *testing.T) {
	onUse := catalog.Upstream{Name: "a"}
	atStart := catalog.Upstream{Name: "b", Start: catalog.UpstreamAtStart}
	for _, c := range []struct {
		u     catalog.Upstream
		st    upstream.Status
		known bool
		want  string
		imp   widget.Importance
	}{
		{catalog.Upstream{Disabled: true}, upstream.Status{State: upstream.Running}, true, "Off: not started, and its tools are not served", widget.LowImportance},
		{onUse, upstream.Status{}, false, "Asking mcptray how it runs…", widget.LowImportance},
		{onUse, upstream.Status{State: upstream.Stopped}, true, "Not running: it starts when an AI app first uses one of its tools", widget.MediumImportance},
		{atStart, upstream.Status{State: upstream.Stopped}, true, "Stopped: mcptray starts it again", widget.MediumImportance},
		{onUse, upstream.Status{State: upstream.Starting}, true, "Starting…", widget.MediumImportance},
		{onUse, upstream.Status{State: upstream.Failed, LastError: `"npx" was not found: install Node.js`}, true, `Failed: "npx" was not found: install Node.js`, widget.DangerImportance},
	} {
		got, imp := statusWords(c.u, c.st, c.known)
		if got != c.want || imp != c.imp {
			t.Errorf("%s %+v: %q (%v), want %q (%v)", c.u.Name, c.st, got, imp, c.want, c.imp)
		}
	}
	if got := countsWords(0, 2); got != "no tools served, 2 changes wait for you" {
		t.Errorf("counts: %q", got)
	}
}

// TestServersAddAWebServer: a server reached at a web address, with a
// sign-in header: the Test sends it, Save keeps the token in the secret
// store (the Bearer scheme stays written), and mcptray's own endpoint
// serves the server's tools through it.
func TestServersAddAWebServer(t *testing.T) {
	bin := testutil.Upserver(t)
	cmd := exec.Command(bin, "-http", "streamable", "-token", "tok-123")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the web server's address: %v", err)
	}
	a := uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	m := serversManager(t, a, s)
	ctx := context.Background()

	m.servers.ShowAdd()
	f := m.servers.form
	test.Type(f.name, "web")
	f.kind.SetSelected(runsWeb)
	test.Type(f.url, strings.TrimSpace(addr))
	test.Tap(f.testBtn)
	f.work.Wait()
	uitest.Sees(t, "a test without the token", uitest.Seen(f.content),
		`re:label: It did not work: the server refused the sign-in \(HTTP 401\).* \{danger\}`)

	test.Type(f.headers, "Authorization: Bearer tok-123")
	test.Tap(f.testBtn)
	f.work.Wait()
	uitest.Sees(t, "a test with the token", uitest.Seen(f.content), "label: It works: web offers 10 tools. Save serves them to your AI apps, as they are now: {success}")
	test.Tap(f.saveBtn)
	f.work.Wait()
	u, err := s.St.Upstream(ctx, "web")
	if err != nil {
		t.Fatalf("Save stored nothing: %v (%s)", err, f.result.Text)
	}
	if got := u.Remote.Headers["Authorization"]; got != `Bearer {{secret "web_authorization"}}` {
		t.Errorf("the header is stored as %q", got)
	}
	if got := s.CallText(t, "web_echo", map[string]any{"text": "through mcptray"}); got != "through mcptray" {
		t.Errorf("web_echo: %q", got)
	}
}

// TestSignInFromTheWindow: a server behind a sign-in (OAuth) is added in
// the window: its Test opens the sign-in page in the browser, shows the
// page's link meanwhile, and lists the tools once signed in; after Save,
// the serving process reaches the server with the sign-in kept.
func TestSignInFromTheWindow(t *testing.T) {
	w := oauthtest.New(t)
	a := uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	m := serversManager(t, a, s)
	var shown string
	signInWith(m, w, func(u *url.URL) {
		shown = m.servers.form.result.Text
		if !m.servers.form.signIn.link.Visible() || m.servers.form.signIn.link.URL.String() != u.String() {
			t.Errorf("the sign-in page's link is not shown: %v %v", m.servers.form.signIn.link.Visible(), m.servers.form.signIn.link.URL)
		}
	})
	f := testCloud(m, w)
	if want := "Sign in to cloud in your browser: mcptray waits for you here. If no browser page opened:"; shown != want {
		t.Errorf("while signing in the form said %q, want %q", shown, want)
	}
	uitest.Sees(t, "the test, signed in", uitest.Seen(f.content), `re:label: It works: cloud offers \d+ tools?\. .* \{success\}`)
	if f.signIn.link.Visible() {
		t.Error("the sign-in page's link is still shown")
	}
	test.Tap(f.saveBtn)
	f.work.Wait()
	if _, err := s.St.Upstream(context.Background(), "cloud"); err != nil {
		t.Fatalf("Save stored nothing: %v (%s)", err, f.result.Text)
	}
	if got := s.CallText(t, "cloud_echo", map[string]any{"text": "signed in"}); got != "signed in" {
		t.Errorf("cloud_echo: %q", got)
	}

	// Signing in again, from the server's page.
	fyne.DoAndWait(func() { m.servers.Show("cloud") })
	d := m.servers.detail
	shown = ""
	signInWith(m, w, func(*url.URL) { shown = d.signIn.says.Text })
	if !d.signInBtn.Visible() {
		t.Fatal("a server on the web has no Sign in again button")
	}
	test.Tap(d.signInBtn)
	d.work.Wait()
	if want := "Sign in to cloud in your browser: mcptray waits for you here. If no browser page opened:"; shown != want {
		t.Errorf("while signing in again the page said %q, want %q", shown, want)
	}
	if want := "Signed in to cloud, which offers 1 tool. mcptray uses the new sign-in from the server's next start."; d.signIn.says.Text != want {
		t.Errorf("after signing in again: %q, want %q", d.signIn.says.Text, want)
	}
	if n := w.Counts().Opened; n != 2 {
		t.Errorf("the sign-in page was opened %d times, want 2", n)
	}
}

// signInWith has w's browser sign in when the window opens a sign-in
// page, after seen sees what the window shows meanwhile.
func signInWith(m *Manager, w *oauthtest.World, seen func(*url.URL)) {
	browser := w.Browser(nil)
	m.servers.openURL = func(u *url.URL) error {
		// Once the window's fyne.Do has run.
		fyne.DoAndWait(func() {})
		seen(u)
		return browser(u.String())
	}
}

// testCloud tests, in the Add form, the server w protects as "cloud".
func testCloud(m *Manager, w *oauthtest.World) *serverForm {
	m.servers.ShowAdd()
	f := m.servers.form
	test.Type(f.name, "cloud")
	f.kind.SetSelected(runsWeb)
	test.Type(f.url, w.MCPURL)
	test.Tap(f.testBtn)
	f.work.Wait()
	return f
}

// TestEditAServer: a stored server's Edit… opens the form filled in with
// how it runs, its name fixed; a changed command line and environment are
// tested and saved, what the form does not show is kept, and the tools
// approved stay served.
func TestEditAServer(t *testing.T) {
	bin := testutil.Upserver(t)
	a := uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	m := serversManager(t, a, s)
	ctx := context.Background()
	f := addServer(m, "up", bin, "UP_MODE=a")
	test.Tap(f.saveBtn)
	f.work.Wait()
	u, err := s.St.Upstream(ctx, "up")
	if err != nil {
		t.Fatalf("Save stored nothing: %v (%s)", err, f.result.Text)
	}
	u.IdleStopMs = 12345
	if _, err := s.St.SaveUpstream(ctx, "up", u); err != nil {
		t.Fatal(err)
	}

	fyne.DoAndWait(func() { m.servers.Show("up") })
	fyne.DoAndWait(m.servers.Reload)
	test.Tap(labelledIn[*widget.Button](t, m.servers.detail.content, "Edit…"))
	f = m.servers.form
	if f.title.Text != "Edit up" || f.name.Text != "up" || !f.name.Disabled() || f.command.Text != bin || f.env.Text != "UP_MODE=a" || f.prefix.Text != "up_" {
		t.Fatalf("the form, filled in: %q %q disabled %v, %q %q %q", f.title.Text, f.name.Text, f.name.Disabled(), f.command.Text, f.env.Text, f.prefix.Text)
	}
	f.command.SetText(bin + " -stderr 2")
	f.env.SetText("UP_MODE=b\nUP_MORE=c")
	test.Tap(f.saveBtn)
	f.work.Wait()
	got, err := s.St.Upstream(ctx, "up")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Command.Argv, []string{bin, "-stderr", "2"}) || got.Command.Env["UP_MODE"] != "b" || got.Command.Env["UP_MORE"] != "c" || got.IdleStopMs != 12345 {
		t.Errorf("saved: %+v %+v", got, got.Command)
	}
	if m.servers.open != "up" {
		t.Errorf("after Save the tab shows %q, not the server", m.servers.open)
	}
	if got := s.CallText(t, "up_echo", map[string]any{"text": "still served"}); got != "still served" {
		t.Errorf("up_echo: %q", got)
	}
}
