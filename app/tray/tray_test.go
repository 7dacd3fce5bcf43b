package tray

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/app/link"
	"github.com/mcptray/mcptray/app/tryit"
	"github.com/mcptray/mcptray/assets"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testcatalog"
	"github.com/mcptray/mcptray/internal/testserver"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/internal/winlink"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/record"
)

// testCatalog has a destructive tool (its call asks for an approval) and a
// slow one that may run as a task.
var testCatalog = &catalog.Catalog{Format: catalog.CatalogFormat, Version: catalog.CatalogVersion, Tools: []catalog.Tool{
	{
		Name: "files.wipe", Title: "Wipe the files", Description: "Wipes (pretends to).", Hints: &catalog.Hints{Destructive: ptr(true)},
		Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "wiped"}}}},
	},
	testcatalog.SyncTool(),
}}

func ptr[T any](v T) *T { return &v }

// fixture is a tray on a real server (internal/daemon on a temporary
// database), its window processes the stand-ins of windows.
type fixture struct {
	srv  *testserver.Server
	tray *Tray
	win  *windows_
}

// newFixture starts the server, its questions asked through the tray's
// Asker, and builds the tray (with a tray host unless noTray).
func newFixture(t *testing.T, noTray bool) *fixture {
	t.Helper()
	asker := NewAsker()
	srv := testserver.Start(t, testserver.Options{Catalog: testCatalog, Asker: asker})
	w := &windows_{t: t, started: make(chan *window, 8)}
	tr := New(Config{Server: srv.Daemon, Engine: srv.Engine, Store: srv.Store, Activity: srv.Activity, Asker: asker,
		StartWindow: w.start, Host: Host{Present: !noTray, About: "test"}, DB: "test.db", Version: "1.2.3"})
	t.Cleanup(func() {
		for _, rt := range srv.Engine.RunningTasks() {
			_ = srv.Engine.CancelTask(rt.ID)
		}
		w.endAll()
	})
	return &fixture{srv: srv, tray: tr, win: w}
}

// windows_ starts the stand-ins of the window process: each answers on the
// real link, as `mcptray window` would, what its test tells it to. The real
// window process (package app) is tested against this package in
// app/window_test.go.
type windows_ struct {
	t *testing.T
	// quitAnswer is what AskQuit answers.
	quitAnswer atomic.Bool

	mu sync.Mutex
	// problem, when set, is what new windows say of their display: they
	// cannot show windows, and end.
	problem string
	// failStart makes starting fail, as a missing program would.
	failStart error
	// answer answers the questions; nil leaves them waiting.
	answer  func(ctx context.Context, q link.Question) (mcpcore.Answer, error)
	starts  int
	all     []*window
	started chan *window
}

// set changes, under the lock, what the next windows do.
func (f *windows_) set(change func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change()
}

// window is one stand-in window process.
type window struct {
	conn     *winlink.Conn
	received atomic.Int32
	opened   chan link.Window
	asked    chan link.Question
	// withdrawn receives the question whose caller gave up.
	withdrawn chan string
	states    chan link.State
	exited    chan struct{}
	end       func()
	// quitsWhenIdle: it ends once allowed to (the real one does);
	// without, it lingers as a slow one would.
	quitsWhenIdle bool
}

// start is the Starter: a stand-in linked over pipes.
func (f *windows_) start() (Process, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failStart != nil {
		return Process{}, f.failStart
	}
	f.starts++
	inR, inW := io.Pipe()   // the serving process writes the window's stdin
	outR, outW := io.Pipe() // the window writes its stdout
	w := &window{opened: make(chan link.Window, 8), asked: make(chan link.Question, 8), withdrawn: make(chan string, 8),
		states: make(chan link.State, 64), exited: make(chan struct{}), quitsWhenIdle: true}
	var once sync.Once
	w.end = func() {
		once.Do(func() {
			_ = outW.Close()
			_ = inR.Close()
			close(w.exited)
		})
	}
	mux := winlink.NewMux()
	counted := func() { w.received.Add(1) }
	winlink.Handle(mux, link.Open, func(_ context.Context, win link.Window) (link.None, error) {
		counted()
		w.opened <- win
		return link.None{}, nil
	})
	winlink.Handle(mux, link.Ask, func(ctx context.Context, q link.Question) (mcpcore.Answer, error) {
		counted()
		w.asked <- q
		f.mu.Lock()
		answer := f.answer
		f.mu.Unlock()
		if answer == nil {
			<-ctx.Done()
			w.withdrawn <- q.Tool
			return mcpcore.Answer{}, ctx.Err()
		}
		return answer(ctx, q)
	})
	winlink.Handle(mux, link.AskQuit, func(context.Context, link.None) (bool, error) {
		counted()
		return f.quitAnswer.Load(), nil
	})
	winlink.HandleNotice(mux, link.StateChanged, func(_ context.Context, s link.State) {
		select {
		case w.states <- s:
		default:
		}
	})
	winlink.HandleNotice(mux, link.Exit, func(context.Context, link.None) { w.end() })
	w.conn = winlink.New(inR, outW, mux)
	go func() { _ = w.conn.Run(context.Background()); w.end() }()
	problem := f.problem
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), testutil.Patience)
		defer cancel()
		if _, err := link.Hello.Call(ctx, w.conn, link.None{}); err != nil {
			w.end()
			return
		}
		_, _ = link.Ready.Call(ctx, w.conn, link.Readiness{Problem: problem})
		if problem != "" {
			w.end()
		}
	}()
	f.all = append(f.all, w)
	f.started <- w
	return Process{Stdin: inW, Stdout: outR, Wait: func() error { <-w.exited; return nil }, Kill: func() error { w.end(); return nil }}, nil
}

// endAll ends every stand-in still running.
func (f *windows_) endAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, w := range f.all {
		w.end()
	}
}

// count is how many window processes were started.
func (f *windows_) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.starts
}

// next is the next window process started.
func (f *windows_) next(t *testing.T) *window {
	t.Helper()
	select {
	case w := <-f.started:
		return w
	case <-time.After(testutil.Patience):
		t.Fatal("no window process started")
		return nil
	}
}

// idle tells the serving process the window holds nothing, as the real one
// does once its last window closed; it reports whether it may end.
func (w *window) idle(t *testing.T) bool {
	t.Helper()
	ans, err := link.Idle.Call(t.Context(), w.conn, link.Idleness{Received: int(w.received.Load())})
	if err != nil {
		t.Fatal(err)
	}
	if ans.End && w.quitsWhenIdle {
		w.end() // as the real one quits then
	}
	return ans.End
}

// receive waits for a value on ch.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(testutil.Patience):
		t.Fatalf("no %s", what)
	}
	var zero T
	return zero
}

// wipe calls files.wipe with the official go-sdk client, as an AI app
// would; its result comes on the channel.
func (f *fixture) wipe(ctx context.Context, t *testing.T) <-chan string {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "Claude Code", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: f.srv.URL, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan string, 1)
	go func() {
		defer cs.Close()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "files.wipe"})
		switch {
		case err != nil:
			out <- "error: " + err.Error()
		case len(res.Content) == 0:
			out <- "no content"
		default:
			out <- res.Content[0].(*mcp.TextContent).Text
		}
	}()
	return out
}

// item is the tray's item labelled label (its first, shown or not).
func (f *fixture) item(t *testing.T, label string) *Item {
	t.Helper()
	f.tray.mu.Lock()
	defer f.tray.mu.Unlock()
	it := find(f.tray.menu.items, label)
	if it == nil {
		t.Fatalf("no %q in the tray menu: %q", label, shownLabels(f.tray.menu.items))
	}
	return it
}

// shown are the labels of the items not hidden ("" a separator), as the
// tray shows them now.
func (f *fixture) shown() []string {
	f.tray.update()
	f.tray.mu.Lock()
	defer f.tray.mu.Unlock()
	return shownLabels(f.tray.menu.items)
}

func shownLabels(items []*Item) []string {
	var out []string
	for _, it := range items {
		if !it.Hidden {
			out = append(out, it.Label)
		}
	}
	return out
}

func TestTheTrayMenuSaysHowThingsStand(t *testing.T) {
	f := newFixture(t, false)
	url := f.srv.Daemon.URL()
	rest := []string{"", "Open mcptray", "Pause serving", "Connect a client…", "", "Open the task window", "", "Quit"}
	if got, want := f.shown(), append([]string{"Serving on " + url, "Clients: looking…"}, rest...); !slices.Equal(got, want) {
		t.Fatalf("at rest:\n got %q\nwant %q", got, want)
	}
	if f.tray.shown.state() != stateServing {
		t.Errorf("state %v at rest", f.tray.shown.state())
	}

	// Paused: Resume replaces Pause, and each does what it says even when
	// clicked after the other already did it (a stale click on what the
	// host still showed).
	pause, resume := f.item(t, "Pause serving"), f.item(t, "Resume serving")
	pause.Click()
	if !f.srv.Daemon.Paused() || !pause.Hidden || resume.Hidden || f.tray.shown.state() != statePaused {
		t.Fatalf("after Pause: paused %v, shown %q", f.srv.Daemon.Paused(), f.shown())
	}
	pause.action()
	if !f.srv.Daemon.Paused() {
		t.Fatal("a second Pause resumed")
	}
	resume.Click()
	if f.srv.Daemon.Paused() || pause.Hidden || !resume.Hidden {
		t.Fatal("Resume did not resume")
	}

	// A task runs: the status counts it, and its line shows its progress.
	f.srv.StartTask(t, "sync.run", nil)
	testutil.EventuallyShows(t, "the task in the menu", func() (bool, string) {
		got := f.shown()
		return slices.Contains(got, "Sync my folders — 30% · synced 3 of 10 folders") &&
			got[0] == "Serving on "+url+" · 1 task running", fmt.Sprintf("%q", got)
	})

	// Windows that cannot open say why, under the status.
	f.tray.win.mu.Lock()
	f.tray.win.failedWith("no display")
	f.tray.win.mu.Unlock()
	if got := f.shown(); got[1] != "Windows cannot open: no display" {
		t.Errorf("with no windows: %q", got)
	}
}

func TestTaskLines(t *testing.T) {
	m := newMenu(commands{open: func(link.Window) {}, setPaused: func(bool) {}, quit: func() {}})
	lines := func() []string {
		var out []string
		for _, it := range m.taskLines {
			if !it.Hidden {
				out = append(out, it.Label)
			}
		}
		return out
	}
	var tasks []record.Task
	for i := range maxTaskItems + 2 {
		tasks = append(tasks, record.Task{Tool: fmt.Sprintf("t%d", i), Status: record.TaskWorking})
	}
	m.update(menuState{URL: "u", Tasks: tasks[:2]})
	if got := lines(); !slices.Equal(got, []string{"t0 · Running…", "t1 · Running…"}) {
		t.Errorf("two tasks: %q", got)
	}
	m.update(menuState{URL: "u", Tasks: tasks})
	if got := lines(); len(got) != maxTaskItems+1 || got[maxTaskItems] != "and 2 more…" {
		t.Errorf("%d tasks: %q", len(tasks), got)
	}
	m.update(menuState{URL: "u"})
	if got := lines(); len(got) != 0 {
		t.Errorf("none again: %q", got)
	}
	for _, c := range []struct {
		task record.Task
		want string
	}{
		{record.Task{Tool: "sync.run", Title: "Sync my folders", Status: record.TaskWorking, Progress: 1, Total: 4, ProgressMessage: "folder 1"},
			"Sync my folders — 25% · folder 1"},
		{record.Task{Tool: "backup.run", Status: record.TaskWorking}, "backup.run · Running…"},
		{record.Task{Tool: "backup.run", Status: record.TaskWorking, ProgressMessage: strings.Repeat("copying ", 20)},
			string([]rune("backup.run · " + strings.Repeat("copying ", 20))[:maxTaskLine-1]) + "…"},
	} {
		if got := taskLine(c.task); got != c.want {
			t.Errorf("taskLine(%+v) = %q, want %q", c.task, got, c.want)
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

// listToolsAs lists the tools with the official go-sdk client,
// introducing itself as client.
func (f *fixture) listToolsAs(t *testing.T, client string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testutil.Patience)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: client, Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: f.srv.URL, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("%s connecting: %v", client, err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("%s tools/list: %v", client, err)
	}
}

func (f *fixture) flush(t *testing.T) {
	t.Helper()
	if err := f.srv.Activity.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func TestTheTrayListsRecentClients(t *testing.T) {
	f := newFixture(t, false)
	w := f.tray.newWatcher()
	w.round(t.Context())
	if got := f.item(t, "No client in the last 10 minutes"); got.Hidden {
		t.Fatal("the clients line is hidden")
	}
	f.listToolsAs(t, "Claude Code")
	f.listToolsAs(t, tryit.ClientName)
	// A request of the Try it token that names no client (turned away
	// before its clientInfo was read).
	f.srv.Activity.Record(record.Activity{Token: tryit.TokenName, Method: "HTTP POST", Outcome: record.OutcomeError})
	// A client seen long ago.
	f.srv.Activity.Record(record.Activity{Time: time.Now().Add(-time.Hour), Client: "Cursor", Method: "tools/list", Outcome: record.OutcomeOK})
	f.flush(t)
	w.clientsDue = true // as a request from another client makes it
	w.round(t.Context())
	if got := f.shown(); got[1] != "Clients: Claude Code (last 10 min)" {
		t.Errorf("clients line %q", got[1])
	}
}

func TestTheTrayFollowsRequestsQuestionsAndTasksAsTheyCome(t *testing.T) {
	f := newFixture(t, false)
	ctx, stop := context.WithCancel(t.Context())
	watched := make(chan struct{})
	go func() { defer close(watched); f.tray.watch(ctx, f.tray.newWatcher()) }()
	t.Cleanup(func() { stop(); <-watched })
	testutil.EventuallyShows(t, "the first look", func() (bool, string) {
		got := f.shownLocked()
		return got[1] == "No client in the last 10 minutes", got[1]
	})
	// No round runs until something happens: the watcher has no period.
	f.listToolsAs(t, "Claude Code")
	testutil.EventuallyShows(t, "the client, from its request", func() (bool, string) {
		got := f.shownLocked()
		return got[1] == "Clients: Claude Code (last 10 min)", got[1]
	})
	// A question: the attention state, and a line that brings it up.
	qctx, withdraw := context.WithCancel(t.Context())
	defer withdraw()
	result := f.wipe(qctx, t)
	receive(t, f.win.next(t).asked, "question")
	testutil.EventuallyShows(t, "the attention state, from the question", func() (bool, string) {
		f.tray.mu.Lock()
		st := f.tray.shown.state()
		f.tray.mu.Unlock()
		return st == stateAttention, fmt.Sprint(st)
	})
	if got := f.shownLocked(); got[2] != "A question is waiting for you…" {
		t.Errorf("no question line: %q", got)
	}
	withdraw()
	<-result
	testutil.EventuallyShows(t, "the question gone", func() (bool, string) {
		f.tray.mu.Lock()
		st := f.tray.shown.state()
		f.tray.mu.Unlock()
		return st == stateServing, fmt.Sprint(st)
	})
	f.srv.StartTask(t, "sync.run", nil)
	testutil.EventuallyShows(t, "the task, from its start", func() (bool, string) {
		got := f.shownLocked()
		return strings.HasSuffix(got[0], "1 task running"), got[0]
	})
}

// shownLocked are the labels shown, as the watcher last set them.
func (f *fixture) shownLocked() []string {
	f.tray.mu.Lock()
	defer f.tray.mu.Unlock()
	return shownLabels(f.tray.menu.items)
}

func TestTheTrayReadsTheClientsOnlyWhenTheLineWouldChange(t *testing.T) {
	f := newFixture(t, false)
	w := f.tray.newWatcher()
	at := time.Now().Add(-9 * time.Minute).Truncate(time.Millisecond)
	f.srv.Activity.Record(record.Activity{Time: at, Client: "Cursor", Method: "tools/list", Outcome: record.OutcomeOK})
	f.srv.Activity.Record(record.Activity{Time: at.Add(time.Minute), Client: "Claude Code", Method: "tools/list", Outcome: record.OutcomeOK})
	f.flush(t)
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
		a    record.Activity
		read bool
	}{
		{record.Activity{Client: "Claude Code"}, false}, // named first already
		{record.Activity{Client: tryit.ClientName}, false},
		{record.Activity{Token: tryit.TokenName}, false},
		{record.Activity{}, false}, // refused before it said who it was
		{record.Activity{Client: "Cursor"}, true},
		{record.Activity{Token: "laptop"}, true},
	} {
		w.clientsDue = false
		w.heard(c.a)
		if w.clientsDue != c.read {
			t.Errorf("after a request of %+v: read again %v, want %v", c.a, w.clientsDue, c.read)
		}
	}
}

func TestTheTrayOpensTheTaskWindowWhenATaskStartsIfAsked(t *testing.T) {
	f := newFixture(t, false)
	w := f.tray.newWatcher()
	// The preference off (its default): a task starting opens nothing.
	f.srv.StartTask(t, "sync.run", nil)
	w.round(t.Context())
	if n := f.win.count(); n != 0 {
		t.Fatalf("%d window processes started with the preference off", n)
	}
	if err := f.srv.Store.SetState(t.Context(), link.StateOpenTaskWindow, true); err != nil {
		t.Fatal(err)
	}
	w.round(t.Context())
	if n := f.win.count(); n != 0 {
		t.Fatal("the task window opened for a task that was running already")
	}
	f.srv.StartTask(t, "sync.run", nil)
	w.round(t.Context())
	if got := receive(t, f.win.next(t).opened, "window opened"); got.What != link.OpenTasks {
		t.Fatalf("opened %q, want the task window", got.What)
	}
}

func TestTheWindowProcessStartsWhenAskedAndEndsWhenItHoldsNothing(t *testing.T) {
	f := newFixture(t, false)
	f.item(t, "Open mcptray").Click()
	w := f.win.next(t)
	if got := receive(t, w.opened, "window"); got.What != link.OpenManager {
		t.Fatalf("opened %q", got.What)
	}
	// A second click goes to the same process.
	f.item(t, "Connect a client…").Click()
	if got := receive(t, w.opened, "window"); got.What != link.OpenConnect {
		t.Fatalf("opened %q", got.What)
	}
	if n := f.win.count(); n != 1 {
		t.Fatalf("%d window processes for two windows", n)
	}
	// It said what it holds when it started, and hears of changes.
	f.srv.Daemon.SetPaused(true)
	f.tray.refresh()
	testutil.EventuallyShows(t, "the paused state told", func() (bool, string) {
		s := receive(t, w.states, "state")
		return s.Paused, fmt.Sprint(s)
	})
	// Its windows closed: it may end, and the next window starts another.
	if !w.idle(t) {
		t.Fatal("a window process holding nothing, all its calls received, may not end")
	}
	f.item(t, "Open the task window").Click()
	w2 := f.win.next(t)
	if got := receive(t, w2.opened, "window"); got.What != link.OpenTasks || w2 == w {
		t.Fatalf("opened %q in a new process %v", got.What, w2 != w)
	}
}

func TestAWindowProcessDoesNotEndWhileACallIsOnItsWay(t *testing.T) {
	f := newFixture(t, false)
	f.item(t, "Open mcptray").Click()
	w := f.win.next(t)
	receive(t, w.opened, "window")
	// As if the tray's next click were on its way when the window asked.
	p := f.tray.win.current()
	if p == nil {
		t.Fatal("no current window process")
	}
	if w.idle(t) {
		t.Fatal("a window process may end while a call is on its way to it")
	}
	if _, err := link.Open.Call(t.Context(), p.link, link.Window{What: link.OpenTasks}); err != nil {
		t.Fatal(err)
	}
	receive(t, w.opened, "window")
	if !w.idle(t) {
		t.Fatal("every call received, and still not allowed to end")
	}
}

func TestAQuestionIsAskedInTheWindowProcess(t *testing.T) {
	f := newFixture(t, false)
	f.win.set(func() {
		f.win.answer = func(_ context.Context, q link.Question) (mcpcore.Answer, error) {
			if q.Deadline.IsZero() {
				return mcpcore.Answer{}, errors.New("no deadline to count down")
			}
			return mcpcore.Answer{Action: "accept"}, nil
		}
	})
	result := f.wipe(t.Context(), t)
	w := f.win.next(t)
	q := receive(t, w.asked, "question")
	if q.Tool != "files.wipe" || q.Client != "Claude Code" || q.Kind != catalog.StepApproval {
		t.Errorf("asked %+v", q.Question)
	}
	if got := receive(t, result, "result"); got != "wiped" {
		t.Fatalf("allowed, the call gave %q", got)
	}
	if f.tray.cfg.Asker.Pending() != 0 {
		t.Error("the question still counts as waiting")
	}
}

func TestAWithdrawnQuestionIsWithdrawnInTheWindow(t *testing.T) {
	f := newFixture(t, false)
	ctx, cancel := context.WithCancel(t.Context())
	result := f.wipe(ctx, t)
	w := f.win.next(t)
	receive(t, w.asked, "question")
	if n := f.tray.cfg.Asker.Pending(); n != 1 {
		t.Errorf("%d questions waiting", n)
	}
	cancel() // the AI app gave up
	if got := receive(t, w.withdrawn, "withdrawal"); got != "files.wipe" {
		t.Fatalf("withdrew %q", got)
	}
	<-result
}

func TestAWindowProcessThatDiesAnswersNobodyAnswered(t *testing.T) {
	f := newFixture(t, false)
	result := f.wipe(t.Context(), t)
	w := f.win.next(t)
	receive(t, w.asked, "question")
	w.end() // as kill -9 would
	got := receive(t, result, "result")
	if !strings.Contains(got, "Nobody at the computer answered: mcptray's window closed before anyone could") {
		t.Fatalf("the call gave %q", got)
	}
	// The next question starts a new window process.
	f.win.set(func() {
		f.win.answer = func(context.Context, link.Question) (mcpcore.Answer, error) {
			return mcpcore.Answer{Action: "decline"}, nil
		}
	})
	result = f.wipe(t.Context(), t)
	receive(t, f.win.next(t).asked, "question in a new process")
	if got := receive(t, result, "result"); !strings.Contains(got, "denied") {
		t.Fatalf("the next call gave %q", got)
	}
}

func TestWhenNoWindowCanOpenQuestionsSayWhyAtOnce(t *testing.T) {
	f := newFixture(t, false)
	f.win.set(func() {
		f.win.problem = "the display cannot be opened: X11: The DISPLAY environment variable is missing"
	})
	result := f.wipe(t.Context(), t)
	got := receive(t, result, "result")
	receive(t, f.win.next(t).exited, "the window process ending")
	if !strings.Contains(got, "Nobody at the computer could be asked: mcptray's window could not open (the display cannot be opened") {
		t.Fatalf("the call gave %q", got)
	}
	if !f.tray.cfg.Asker.ClientFallback() {
		t.Error("forms and URLs do not go to an AI app that can answer them")
	}
	if got := f.shown(); !strings.HasPrefix(got[1], "Windows cannot open: the display cannot be opened") {
		t.Errorf("the tray does not say why: %q", got)
	}
	// The next question is answered at once, without a new process.
	result = f.wipe(t.Context(), t)
	receive(t, result, "result")
	if n := f.win.count(); n != 1 {
		t.Fatalf("%d window processes started for two questions while none can show", n)
	}
	// A person's click tries again; it can show now.
	f.win.set(func() { f.win.problem = "" })
	f.item(t, "Open mcptray").Click()
	receive(t, f.win.next(t).opened, "window")
	testutil.EventuallyShows(t, "the problem gone", func() (bool, string) {
		return !f.tray.cfg.Asker.ClientFallback(), "still falling back"
	})

	// A program that cannot start at all says why too.
	f.win.set(func() { f.win.failStart = errors.New("exec: no such file") })
	f.tray.win.exit()
	f.tray.win.mu.Lock()
	f.tray.win.cur = nil
	f.tray.win.mu.Unlock()
	got = receive(t, f.wipe(t.Context(), t), "result")
	if !strings.Contains(got, "could not open (starting mcptray window: exec: no such file)") {
		t.Fatalf("the call gave %q", got)
	}
}

func TestQuitAsksTheWindowThenStopsAndEndsIt(t *testing.T) {
	f := newFixture(t, false)
	var stopped atomic.Int32
	f.tray.cfg.BeforeQuit = func() { stopped.Add(1) }
	f.item(t, "Open mcptray").Click()
	w := f.win.next(t)
	receive(t, w.opened, "window")
	// The window keeps an editor's changes: nothing quits.
	f.win.quitAnswer.Store(false)
	if f.tray.win.askQuit() {
		t.Fatal("the window said no, and quitting went on")
	}
	f.win.quitAnswer.Store(true)
	if !f.tray.win.askQuit() {
		t.Fatal("the window said yes, and quitting stopped")
	}
	f.tray.cfg.Host.Present = false // no systray to end in a test
	f.tray.quit()
	if stopped.Load() != 1 {
		t.Fatal("the server was not stopped")
	}
	receive(t, w.exited, "window process ending")
	f.tray.quit()
	if stopped.Load() != 1 {
		t.Fatal("quitting twice stopped the server twice")
	}
}

func TestWithoutATrayTheWindowIsTheApp(t *testing.T) {
	f := newFixture(t, true)
	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan struct{})
	go func() { defer close(ran); f.tray.Run(ctx) }()
	w := f.win.next(t)
	if got := receive(t, w.opened, "window"); got.What != link.OpenManager {
		t.Fatalf("opened %q at start", got.What)
	}
	if w.idle(t) {
		t.Fatal("without a tray the window process may end on its own")
	}
	cancel()
	receive(t, ran, "Run to end")
}

func TestTheTrayIconFollowsTheStateAndThePanel(t *testing.T) {
	f := newFixture(t, false)
	icon := func() string {
		f.tray.mu.Lock()
		defer f.tray.mu.Unlock()
		return f.tray.iconFor(f.tray.shown).Name
	}
	f.tray.update()
	if icon() != assets.Tray(assets.TrayServing, true).Name {
		t.Errorf("at rest: %s", icon())
	}
	f.tray.setDark(false)
	if icon() != assets.Tray(assets.TrayServing, false).Name {
		t.Errorf("light panel: %s", icon())
	}
	f.item(t, "Pause serving").Click()
	if icon() != assets.Tray(assets.TrayPaused, false).Name {
		t.Errorf("paused on a light panel: %s", icon())
	}
}

func TestTheWelcomeGoesWithTheFirstManagerWindow(t *testing.T) {
	f := newFixture(t, false)
	f.tray.win.welcomeDue = true // a first start
	// A question's window first: no manager, no welcome yet.
	f.win.set(func() {
		f.win.answer = func(context.Context, link.Question) (mcpcore.Answer, error) {
			return mcpcore.Answer{Action: "decline"}, nil
		}
	})
	receive(t, f.wipe(t.Context(), t), "result")
	w := f.win.next(t)
	f.item(t, "Open mcptray").Click()
	if got := receive(t, w.opened, "window"); !got.Welcome {
		t.Fatal("the first manager window came without the welcome")
	}
	f.item(t, "Open mcptray").Click()
	if got := receive(t, w.opened, "window"); got.Welcome {
		t.Fatal("the welcome came twice")
	}
}

// TestTheTrayShowsAHaltedServer: the database deleted while serving, the
// status line says so and what to do, the icon shows the error, and
// neither Pause nor Resume is offered (they would not serve again).
func TestTheTrayShowsAHaltedServer(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows does not let an open database be deleted")
	}
	f := newFixture(t, false)
	ctx, stop := context.WithCancel(t.Context())
	watched := make(chan struct{})
	go func() { defer close(watched); f.tray.watch(ctx, f.tray.newWatcher()) }()
	t.Cleanup(func() { stop(); <-watched })
	files, err := filepath.Glob(f.srv.Daemon.DB() + "*")
	if err != nil || len(files) == 0 {
		t.Fatalf("the database's files: %v %v", files, err)
	}
	for _, file := range files {
		if err := os.Remove(file); err != nil {
			t.Fatal(err)
		}
	}
	testutil.EventuallyShows(t, "the status line to say the server halted", func() (bool, string) {
		got := f.shownLocked()
		return strings.HasPrefix(got[0], "Not serving: mcptray's database was deleted or moved while it was running ("+f.srv.Daemon.DB()+")"), got[0]
	})
	got := f.shownLocked()
	if slices.Contains(got, "Pause serving") || slices.Contains(got, "Resume serving") {
		t.Errorf("Pause or Resume offered: %q", got)
	}
	f.tray.mu.Lock()
	st := f.tray.shown.state()
	f.tray.mu.Unlock()
	if st != stateError {
		t.Errorf("icon state %v, want the error state", st)
	}
}

// TestMakeWayLetsTheQuestionBeAnsweredFirst: a newer version asks this
// one to make way while a question waits; the person answers it here, the
// call gets its answer, and only then does this one quit.
func TestMakeWayLetsTheQuestionBeAnsweredFirst(t *testing.T) {
	f := newFixture(t, false)
	f.tray.cfg.Host.Present = false // no systray to end in a test
	stopped := make(chan struct{})
	f.tray.cfg.BeforeQuit = func() { close(stopped) }
	release := make(chan struct{})
	f.win.set(func() {
		f.win.answer = func(ctx context.Context, _ link.Question) (mcpcore.Answer, error) {
			select {
			case <-release:
				return mcpcore.Answer{Action: "accept"}, nil
			case <-ctx.Done():
				return mcpcore.Answer{}, ctx.Err()
			}
		}
	})
	f.win.quitAnswer.Store(true)
	result := f.wipe(t.Context(), t)
	w := f.win.next(t)
	receive(t, w.asked, "question")

	f.tray.MakeWay()
	select {
	case <-stopped:
		t.Fatal("the server stopped while a question waited for an answer")
	case got := <-result:
		t.Fatalf("the call ended while its question waited: %q", got)
	case <-time.After(300 * time.Millisecond): // a while, to see nothing happen
	}
	close(release) // the person answers
	if got := receive(t, result, "result"); got != "wiped" {
		t.Fatalf("the call gave %q", got)
	}
	receive(t, stopped, "the server to stop")
	receive(t, w.exited, "window process ending")
}

// iconStandIn is a tray icon whose loop runs until Quit, noting when it
// ended.
type iconStandIn struct {
	quit  chan struct{}
	order *[]string
	mu    *sync.Mutex
}

func (i iconStandIn) Run(_ string, _ []byte, ready func()) {
	ready()
	<-i.quit
	i.mu.Lock()
	*i.order = append(*i.order, "icon gone")
	i.mu.Unlock()
}
func (i iconStandIn) Add([]*Item)             {}
func (i iconStandIn) Sync()                   {}
func (i iconStandIn) SetIcon([]byte)          {}
func (i iconStandIn) Opened() <-chan struct{} { return nil }
func (i iconStandIn) Quit()                   { close(i.quit) }

// TestQuittingTakesTheIconOutFirst: the icon leaves the tray before the
// server stops, since a newer version starts once the server stopped, and
// two icons must never show.
func TestQuittingTakesTheIconOutFirst(t *testing.T) {
	f := newFixture(t, false)
	var mu sync.Mutex
	var order []string
	f.tray.cfg.Icon = iconStandIn{quit: make(chan struct{}), order: &order, mu: &mu}
	f.tray.cfg.BeforeQuit = func() {
		mu.Lock()
		order = append(order, "server stopped")
		mu.Unlock()
	}
	ran := make(chan struct{})
	go func() { defer close(ran); f.tray.Run(t.Context()) }()
	testutil.Eventually(t, "the icon in the tray", func() bool {
		f.tray.mu.Lock()
		defer f.tray.mu.Unlock()
		return f.tray.shownIn != nil
	})
	f.tray.MakeWay() // no question waits, no window: it quits at once
	receive(t, ran, "Run to end")
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(order, []string{"icon gone", "server stopped"}) {
		t.Fatalf("quitting went %v", order)
	}
}
