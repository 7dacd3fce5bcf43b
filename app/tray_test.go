package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/app/tryit"
	"github.com/mcptray/mcptray/assets"
	"github.com/mcptray/mcptray/internal/daemon"
	"github.com/mcptray/mcptray/internal/testserver"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// loggedServer is a real store and engine behind a real HTTP server, the
// engine writing its activity log through a real ActivityWriter.
type loggedServer struct {
	d   *daemon.Daemon
	st  *storage.Store
	w   *storage.ActivityWriter
	url string
}

func newLoggedServer(t *testing.T) *loggedServer {
	t.Helper()
	s := testserver.Start(t, testserver.Options{})
	return &loggedServer{d: s.Daemon, st: s.Store, w: s.Activity, url: s.URL}
}

// listToolsAs lists the tools with the official go-sdk client, introducing
// itself as client.
func (s *loggedServer) listToolsAs(t *testing.T, client string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testutil.Patience)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: client, Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("%s connecting: %v", client, err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("%s tools/list: %v", client, err)
	}
}

func (s *loggedServer) flush(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testutil.Patience)
	defer cancel()
	if err := s.w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestTrayListsRecentClients(t *testing.T) {
	a := test.NewTempApp(t)
	s := newLoggedServer(t)
	u := New(a, Config{Store: s.st, Server: s.d})
	m := u.menu
	if m.menu.Items[1] != m.clients || !m.clients.Disabled {
		t.Fatal("the clients line is not the menu's second, disabled line")
	}
	if m.clients.Label != "Clients: looking…" {
		t.Errorf("before the first look: %q", m.clients.Label)
	}
	w := m.newWatcher()
	w.round(t.Context())
	if m.clients.Label != "No client in the last 10 minutes" {
		t.Errorf("no request yet: %q", m.clients.Label)
	}

	s.listToolsAs(t, "Claude Code")
	s.listToolsAs(t, tryit.ClientName)
	// A request of the Try it token that names no client (turned away
	// before its clientInfo was read).
	s.w.Record(mcpcore.Activity{Token: tryit.TokenName, Method: "HTTP POST", Outcome: mcpcore.OutcomeError})
	// A client seen long ago.
	s.w.Record(mcpcore.Activity{Time: time.Now().Add(-time.Hour), Client: "Cursor", Method: "tools/list", Outcome: mcpcore.OutcomeOK})
	s.flush(t)

	w.clientsDue = true // as a request from another client makes it
	w.round(t.Context())
	if want := "Clients: Claude Code (last 10 min)"; m.clients.Label != want {
		t.Errorf("clients line %q, want %q", m.clients.Label, want)
	}
}

func TestTrayFollowsRequestsAndQuestionsAsTheyCome(t *testing.T) {
	a := test.NewTempApp(t)
	s := newLoggedServer(t)
	asker := NewAsker(a)
	u := New(a, Config{Store: s.st, Server: s.d, Engine: s.d.Engine(), Asker: asker, Activity: s.w})
	ctx, stop := context.WithCancel(t.Context())
	watched := make(chan struct{})
	go func() { defer close(watched); u.menu.watch(ctx) }()
	t.Cleanup(func() { stop(); <-watched })
	label := func() (string, trayState) {
		var l string
		var st trayState
		fyne.DoAndWait(func() { l, st = u.menu.clients.Label, u.menu.state })
		return l, st
	}
	testutil.EventuallyShows(t, "the first look", func() (bool, string) {
		l, _ := label()
		return l == "No client in the last 10 minutes", l
	})
	// No round runs until something happens: the watcher has no period.
	s.listToolsAs(t, "Claude Code")
	testutil.EventuallyShows(t, "the client, from its request", func() (bool, string) {
		l, _ := label()
		return l == "Clients: Claude Code (last 10 min)", l
	})
	qctx, withdraw := context.WithCancel(t.Context())
	defer withdraw()
	call := ask(qctx, asker, wipeQuestion())
	testutil.EventuallyShows(t, "the attention state, from the question", func() (bool, string) {
		_, st := label()
		return st == stateAttention, fmt.Sprint(st)
	})
	withdraw()
	if _, err := call.wait(t); err == nil {
		t.Fatal("a withdrawn question was answered")
	}
	testutil.EventuallyShows(t, "the question gone", func() (bool, string) {
		_, st := label()
		return st == stateServing, fmt.Sprint(st)
	})
}

func TestTrayReadsTheClientsOnlyWhenTheLineWouldChange(t *testing.T) {
	a := test.NewTempApp(t)
	s := newLoggedServer(t)
	u := New(a, Config{Store: s.st, Server: s.d})
	w := u.menu.newWatcher()
	at := time.Now().Add(-9 * time.Minute).Truncate(time.Millisecond)
	s.w.Record(mcpcore.Activity{Time: at, Client: "Cursor", Method: "tools/list", Outcome: mcpcore.OutcomeOK})
	s.w.Record(mcpcore.Activity{Time: at.Add(time.Minute), Client: "Claude Code", Method: "tools/list", Outcome: mcpcore.OutcomeOK})
	s.flush(t)
	w.round(t.Context())
	if want := []string{"Claude Code", "Cursor"}; !slices.Equal(w.recent, want) {
		t.Fatalf("recent %v, want %v", w.recent, want)
	}
	// Cursor leaves the line first, ten minutes after its request: the
	// watcher wakes then, and at no other time.
	if want := at.Add(recentClientWindow); !w.leaves.Equal(want) {
		t.Errorf("the first client leaves at %v, want %v", w.leaves, want)
	}
	for _, c := range []struct {
		a    mcpcore.Activity
		read bool
	}{
		{mcpcore.Activity{Client: "Claude Code"}, false}, // named first already
		{mcpcore.Activity{Client: tryit.ClientName}, false},
		{mcpcore.Activity{Token: tryit.TokenName}, false},
		{mcpcore.Activity{}, false}, // refused before it said who it was
		{mcpcore.Activity{Client: "Cursor"}, true},
		{mcpcore.Activity{Token: "laptop"}, true},
	} {
		w.clientsDue = false
		w.heard(c.a)
		if w.clientsDue != c.read {
			t.Errorf("after a request of %+v: read again %v, want %v", c.a, w.clientsDue, c.read)
		}
	}
}

func TestClientsLine(t *testing.T) {
	for _, c := range []struct {
		recent []string
		want   string
	}{
		{nil, "Clients: looking…"},
		{[]string{}, "No client in the last 10 minutes"},
		{[]string{"Claude Code", "Cursor"}, "Clients: Claude Code, Cursor (last 10 min)"},
		{[]string{"a", "b", "c", "d", "e"}, "Clients: a, b, c and 2 more (last 10 min)"},
	} {
		if got := clientsLine(c.recent); got != c.want {
			t.Errorf("clientsLine(%q) = %q, want %q", c.recent, got, c.want)
		}
	}
}

func TestTrayOpensTheTaskWindowWhenATaskStarts(t *testing.T) {
	app := newRecordingApp(t)
	env := newTaskEnv(t)
	u := New(app, Config{Engine: env.eng})
	w := u.menu.newWatcher()
	t.Cleanup(func() {
		for _, rt := range env.eng.RunningTasks() {
			_ = env.eng.CancelTask(rt.ID)
		}
		if u.tasks != nil {
			u.tasks.closeAndWait()
		}
	})

	// The preference off (its default): a task starting opens nothing, but
	// the Tasks submenu lists it, with its progress.
	env.startTask(t, "sync.run", nil)
	w.round(t.Context())
	if u.tasks != nil {
		t.Fatal("the task window opened with the preference off")
	}
	want := []string{"Sync my folders — 30% · synced 3 of 10 folders", "", "Open the task window"}
	testutil.Eventually(t, "the task in the Tasks submenu", func() bool {
		var items []string
		fyne.DoAndWait(func() { u.menu.update(); items = u.menu.shownLabels(u.menu.tasks.ChildMenu) })
		return slices.Equal(items, want)
	})

	app.Preferences().SetBool(PrefOpenTaskWindow, true)
	w.round(t.Context())
	if u.tasks != nil {
		t.Fatal("the task window opened for a task that was running already")
	}
	id := env.startTask(t, "sync.run", nil)
	w.round(t.Context())
	if u.tasks == nil || u.tasks.win == nil || !slices.Contains(app.Driver().AllWindows(), u.tasks.win) {
		t.Fatal("a task started with the preference on, and no task window opened")
	}
	testutil.Eventually(t, "the new task in the window", func() bool {
		return onUI(u.tasks, func() bool { return u.tasks.row(id) != nil })
	})

	// Closed, the window opens again, afresh, with the next task.
	tw := u.tasks
	onUI(tw, func() bool { tw.Close(); return true })
	next := env.startTask(t, "sync.run", nil)
	w.round(t.Context())
	if u.tasks != tw || tw.win == nil {
		t.Fatal("the task window did not open again")
	}
	testutil.Eventually(t, "the next task in the reopened window", func() bool {
		return onUI(tw, func() bool { return tw.row(next) != nil })
	})
}

// variantSettings are the test app's settings with a theme variant a test
// sets, calling the listeners as a desktop theme change would.
type variantSettings struct {
	fyne.Settings
	variant   fyne.ThemeVariant
	listeners []func(fyne.Settings)
}

func (s *variantSettings) ThemeVariant() fyne.ThemeVariant   { return s.variant }
func (s *variantSettings) AddListener(l func(fyne.Settings)) { s.listeners = append(s.listeners, l) }
func (s *variantSettings) setVariant(v fyne.ThemeVariant)    { s.variant = v; s.apply() }
func (s *variantSettings) apply() {
	for _, l := range s.listeners {
		l(s)
	}
}

type variantApp struct {
	fyne.App
	settings *variantSettings
}

func (a *variantApp) Settings() fyne.Settings { return a.settings }

func TestTrayIconFollowsTheDesktopTheme(t *testing.T) {
	base := test.NewTempApp(t)
	a := &variantApp{App: base, settings: &variantSettings{Settings: base.Settings(), variant: theme.VariantLight}}
	u := New(a, Config{Server: newServed(t).d})
	m := u.menu
	if m.icon() != assets.Tray(assets.TrayServing, false) {
		t.Errorf("light desktop: icon %s", m.icon().Name())
	}
	a.settings.setVariant(theme.VariantDark)
	if m.icon() != assets.Tray(assets.TrayServing, true) {
		t.Errorf("dark desktop: icon %s", m.icon().Name())
	}
	m.pause.Action()
	if m.icon() != assets.Tray(assets.TrayPaused, true) {
		t.Errorf("paused on a dark desktop: icon %s", m.icon().Name())
	}
}

func TestTrayMenuStates(t *testing.T) {
	a := test.NewTempApp(t)
	s := newServed(t)
	asker := NewAsker(a)
	u := newUI(a, Config{Store: s.st, Engine: s.eng, Server: s.d, Asker: asker}, TrayHost{Present: true, About: "test"})
	m := u.menu
	top := func() []string { return m.shownLabels(m.menu) }
	sees(t, "the tray menu at rest", top(),
		"Serving on "+s.d.URL(), "Clients: looking…", "", "Open mcptray", "Pause serving", "Connect a client", "Tasks", "", "Quit")
	if m.state != stateServing {
		t.Errorf("state %v", m.state)
	}

	// Paused: the Resume item replaces Pause, and each does what it says
	// even when clicked after the other already did it.
	m.pause.Action()
	if !s.d.Paused() || !m.hidden[m.pause] || m.hidden[m.resume] || m.state != statePaused {
		t.Fatalf("after Pause: paused %v, pause hidden %v, resume hidden %v, state %v", s.d.Paused(), m.hidden[m.pause], m.hidden[m.resume], m.state)
	}
	m.pause.Action() // a stale click on the Pause the host still showed
	if !s.d.Paused() {
		t.Fatal("a second Pause resumed")
	}
	m.resume.Action()
	if s.d.Paused() || m.hidden[m.pause] || !m.hidden[m.resume] {
		t.Fatal("Resume did not resume")
	}

	// A question waits: a line that opens it, and the attention icon.
	qctx, withdraw := context.WithCancel(t.Context())
	defer withdraw()
	call := ask(qctx, asker, wipeQuestion())
	p := shownQuestion(t, asker, "files.wipe")
	fyne.DoAndWait(m.update)
	sees(t, "the tray menu with a question", top(),
		"Serving on "+s.d.URL(), "Clients: looking…", "A question is waiting for you…", "", "Open mcptray")
	if m.state != stateAttention {
		t.Errorf("state %v with a question waiting", m.state)
	}
	inUI(asker, func() { p.win.Hide() })
	m.question.Action()
	if !shows(asker, p, "files.wipe") || focused(asker, p) == nil {
		t.Error("the question line did not bring the question back")
	}
	withdraw() // the client gave up: the question goes
	if _, err := call.wait(t); err == nil {
		t.Fatal("a withdrawn question was answered")
	}
	testutil.Eventually(t, "the question line gone", func() bool {
		var hidden bool
		fyne.DoAndWait(func() { m.update(); hidden = m.hidden[m.question] })
		return hidden
	})
	m.question.Action() // a stale click: nothing to raise, nothing happens
}

func TestQuestionLineAndTaskLine(t *testing.T) {
	for n, want := range map[int]string{0: "No question waiting", 1: "A question is waiting for you…", 3: "3 questions are waiting for you…"} {
		if got := questionLine(n); got != want {
			t.Errorf("questionLine(%d) = %q, want %q", n, got, want)
		}
	}
	for _, c := range []struct {
		task mcpcore.Task
		want string
	}{
		{mcpcore.Task{Tool: "sync.run", Title: "Sync my folders", Status: mcpcore.TaskWorking, Progress: 1, Total: 4, ProgressMessage: "folder 1"},
			"Sync my folders — 25% · folder 1"},
		{mcpcore.Task{Tool: "backup.run", Status: mcpcore.TaskWorking}, "backup.run · Running…"},
		{mcpcore.Task{Tool: "backup.run", Status: mcpcore.TaskWorking, ProgressMessage: strings.Repeat("copying ", 20)},
			string([]rune("backup.run · " + strings.Repeat("copying ", 20))[:maxTaskLine-1]) + "…"},
	} {
		if got := taskLine(c.task); got != c.want {
			t.Errorf("taskLine(%+v) = %q, want %q", c.task, got, c.want)
		}
	}
}

func TestTaskLinesFillAndHide(t *testing.T) {
	a := test.NewTempApp(t)
	u := newUI(a, Config{}, TrayHost{})
	m := u.menu
	sub := func() []string { return m.shownLabels(m.tasks.ChildMenu) }
	sees(t, "no task", sub(), "No task running", "", "Open the task window")
	var tasks []mcpcore.Task
	for i := range maxTaskItems + 2 {
		tasks = append(tasks, mcpcore.Task{Tool: fmt.Sprintf("t%d", i), Status: mcpcore.TaskWorking})
	}
	m.setTaskLines(tasks[:2])
	sees(t, "two tasks", sub(), "t0 · Running…", "t1 · Running…", "", "Open the task window")
	m.setTaskLines(tasks)
	got := sub()
	if len(got) != maxTaskItems+3 || got[maxTaskItems] != "and 2 more…" {
		t.Errorf("ten tasks: %q", got)
	}
	m.setTaskLines(nil)
	sees(t, "none again", sub(), "No task running", "", "Open the task window")
}

// shownLabels are the labels of menu's items that are not hidden.
func (m *trayMenu) shownLabels(menu *fyne.Menu) []string {
	var labels []string
	for _, it := range menu.Items {
		if !m.hidden[it] {
			labels = append(labels, it.Label)
		}
	}
	return labels
}

// trayItemString is how systray names an item: its id and its title.
func trayItemString(s *sysTray, fi *fyne.MenuItem) string { return s.items[fi].sys.String() }

func TestSysTrayChangesItemsInPlace(t *testing.T) {
	test.NewTempApp(t)
	ran := make(chan string, 4)
	first := fyne.NewMenuItem("Pause serving", func() { ran <- "first" })
	child := fyne.NewMenuItem("line", func() { ran <- "child" })
	parent := fyne.NewMenuItem("Tasks", nil)
	parent.ChildMenu = fyne.NewMenu("", child)
	menu := fyne.NewMenu("", first, fyne.NewMenuItemSeparator(), parent)
	hidden := map[*fyne.MenuItem]bool{}
	s := newSysTray(menu, func(it *fyne.MenuItem) bool { return hidden[it] })
	before := trayItemString(s, first)
	childBefore := trayItemString(s, child)

	first.Label = "Resume serving"
	first.Action = func() { ran <- "changed" }
	child.Disabled = true
	hidden[child] = true
	s.sync()
	id := func(str string) string { return str[:strings.Index(str, ",")] }
	if after := trayItemString(s, first); id(after) != id(before) || !strings.Contains(after, `"Resume serving"`) {
		t.Errorf("item %s became %s: its id must stay, its title change", before, after)
	}
	if after := trayItemString(s, child); id(after) != id(childBefore) || !s.items[child].sys.Disabled() {
		t.Errorf("submenu item %s became %s (disabled %v)", childBefore, after, s.items[child].sys.Disabled())
	}

	// A click on the item, as the tray host sends it: the action it has now
	// runs; a disabled item runs nothing.
	s.items[first].sys.ClickedCh <- struct{}{}
	s.items[child].sys.ClickedCh <- struct{}{}
	select {
	case got := <-ran:
		if got != "changed" {
			t.Fatalf("the click ran %q", got)
		}
	case <-time.After(testutil.Patience):
		t.Fatal("the click ran nothing")
	}
	select {
	case got := <-ran:
		t.Fatalf("a disabled item ran %q", got)
	case <-time.After(100 * time.Millisecond):
	}
}
