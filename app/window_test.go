package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/app/link"
	"github.com/mcptray/mcptray/app/tray"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testcatalog"
	"github.com/mcptray/mcptray/internal/testserver"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/upstream"
)

// twoProcesses is the desktop app's two processes in one test: the serving
// process (app/tray on a real server) and the window processes it starts,
// each this package's windows on Fyne's test driver, linked over pipes as
// `mcptray window` is over its stdin and stdout.
type twoProcesses struct {
	t   *testing.T
	srv *uitest.Served
	// server is the same server, to start tasks on.
	server *testserver.Server
	tray   *tray.Tray
	// quits counts the serving process's quits (BeforeQuit).
	quits   chan struct{}
	started chan *windowProcess

	mu    sync.Mutex
	procs []*windowProcess
}

// windowProcess is one window process of a test.
type windowProcess struct {
	u *UI
	a fyne.App
	// exited is closed once the process ended: its app quit, or the
	// serving process went.
	exited chan struct{}
	// serving is the serving process's end of the pipes, which its death
	// closes.
	serving io.Closer
}

// processApp is a window process's Fyne app: its Quit ends the process.
type processApp struct {
	fyne.App
	exit func()
}

func (a *processApp) Quit() { a.exit() }

// newDesktop starts the server (the tools echo and wipe, the prompt greet,
// and a slow tool run as a task) and the tray, with a tray host.
func newDesktop(t *testing.T) *twoProcesses {
	t.Helper()
	wipe := testcatalog.RespondTool("wipe", "wiped")
	wipe.Title, wipe.Hints = "Wipe old files", &catalog.Hints{Destructive: &yes}
	cat := &catalog.Catalog{Format: catalog.CatalogFormat, Version: catalog.CatalogVersion,
		Tools: []catalog.Tool{testcatalog.RespondTool("echo", "hi"), wipe, taskCatalog.Tools[1]},
		Prompts: []catalog.Prompt{{Name: "greet", Description: "Says hello.",
			Messages: []catalog.PromptMessage{{Role: "user", Content: catalog.Content{Type: "text", Text: "hello"}}}}}}
	asker := tray.NewAsker()
	s := testserver.Start(t, testserver.Options{Catalog: cat, Asker: asker})
	d := &twoProcesses{t: t, srv: uitest.ServedBy(s), server: s, quits: make(chan struct{}, 4), started: make(chan *windowProcess, 4)}
	sec := s.Daemon.Secrets()
	d.tray = tray.New(tray.Config{Server: s.Daemon, Upstreams: s.Daemon, Engine: s.Engine, Store: s.Store, Activity: s.Activity, Asker: asker,
		StartWindow: d.start, Host: tray.Host{Present: true, About: "test tray"}, DB: s.Store.Path(), Version: "1.2.3",
		Secrets:    link.SecretStore{Kind: sec.Backend(), Reason: sec.Reason(), Service: sec.Service(), File: sec.File()},
		BeforeQuit: func() { d.quits <- struct{}{} }})
	t.Cleanup(func() {
		for _, rt := range s.Engine.RunningTasks() {
			_ = s.Engine.CancelTask(rt.ID)
		}
		// The windows a test left open go, and all they follow with them.
		d.mu.Lock()
		defer d.mu.Unlock()
		for _, w := range d.procs {
			fyne.DoAndWait(func() {
				if w.u != nil && w.u.manager != nil {
					w.u.manager.close()
				}
			})
			_ = w.serving.Close()
		}
	})
	return d
}

// start is the tray's Starter: a window process of this test.
func (d *twoProcesses) start() (tray.Process, error) {
	inR, inW := io.Pipe()   // its stdin
	outR, outW := io.Pipe() // its stdout
	w := &windowProcess{exited: make(chan struct{}), serving: inW}
	var once sync.Once
	exit := func() {
		once.Do(func() {
			_ = outW.Close()
			_ = inR.Close()
			close(w.exited)
		})
	}
	w.a = &processApp{App: uitest.NewTestApp(d.t), exit: exit}
	d.mu.Lock()
	d.procs = append(d.procs, w)
	d.mu.Unlock()
	p := newParentLink(inR, outW)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_ = p.run(ctx)
		cancel()
		// The serving process gone: the windows go with it (RunWindow).
		if u := p.ui.Load(); u != nil {
			fyne.Do(u.quitApp)
		}
		exit()
	}()
	go func() {
		u, done, err := p.open(ctx, w.a, nil)
		if err != nil {
			d.t.Errorf("the window process: %v", err)
			exit()
			return
		}
		defer done()
		w.u = u
		go u.followQuestions(ctx)
		p.ready(ctx) // what the app's start does
		d.started <- w
		<-w.exited
	}()
	return tray.Process{Stdin: inW, Stdout: outR, Wait: func() error { <-w.exited; return nil }, Kill: func() error { exit(); return nil }}, nil
}

// next is the window process started next.
func (d *twoProcesses) next() *windowProcess {
	d.t.Helper()
	select {
	case w := <-d.started:
		return w
	case <-time.After(testutil.Patience):
		d.t.Fatal("no window process started")
		return nil
	}
}

// openManager opens the manager window from the tray, and returns its
// window process once the window shows.
func (d *twoProcesses) openManager() *windowProcess {
	d.t.Helper()
	d.tray.Open(link.Window{What: link.OpenManager})
	w := d.next()
	testutil.Eventually(d.t, "the manager window", func() bool {
		var open bool
		fyne.DoAndWait(func() { open = w.u.manager != nil })
		return open && w.u.busy.Load() == 0 // the Open answered: all done
	})
	return w
}

// openTasks opens the task window from the tray and returns it, in the
// window process started for it.
func (d *twoProcesses) openTasks() (*windowProcess, *TaskWindow) {
	d.t.Helper()
	d.tray.Open(link.Window{What: link.OpenTasks})
	w := d.next()
	var tw *TaskWindow
	testutil.Eventually(d.t, "the task window", func() bool {
		fyne.DoAndWait(func() { tw = w.u.tasks })
		return tw != nil
	})
	return w, tw
}

// ended waits until w's process has ended.
func (w *windowProcess) ended(t *testing.T) {
	t.Helper()
	select {
	case <-w.exited:
	case <-time.After(testutil.Patience):
		t.Fatal("the window process did not end")
	}
}

// selectEntry opens the entry keyed key in p, as a click in its list does.
func selectEntry(t *testing.T, p *entryPane, key string) {
	t.Helper()
	for i, e := range p.shown {
		if e.key == key {
			p.list.Select(i)
			return
		}
	}
	t.Fatalf("%q is not listed", key)
}

// TestTheWindowProcessAsksHowAnUpstreamRuns: only the serving process runs
// the other MCP servers; the window's Servers tab asks it over the link
// (link.UpstreamStatus) and shows the failure in words, in red.
func TestTheWindowProcessAsksHowAnUpstreamRuns(t *testing.T) {
	d := newDesktop(t)
	s := d.srv
	if _, err := s.St.SaveUpstream(t.Context(), "", catalog.Upstream{Name: "broken", Start: catalog.UpstreamAtStart,
		Command: &catalog.UpstreamCommand{Argv: []string{"/nonexistent/mcp-server"}}}); err != nil {
		t.Fatal(err)
	}
	w := d.openManager()
	testutil.EventuallyShows(t, "the window to hear that the server failed", func() (bool, string) {
		st, err := w.u.cfg.Upstreams.UpstreamStatus(t.Context(), "broken")
		return err == nil && st.State == upstream.BackingOff && strings.Contains(st.LastError, "was not found"), fmt.Sprint(st, err)
	})
	m := w.u.manager
	fyne.DoAndWait(func() {
		m.ShowServer("broken")
		m.servers.watch(false)
	})
	m.servers.readStatuses()
	m.servers.reads.Wait()
	var seen []string
	fyne.DoAndWait(func() { seen = uitest.Seen(m.servers.Content()) })
	uitest.Sees(t, "the Servers tab", seen, `re:label: broken  ·  no tools served`, `re:label: Failed: "/nonexistent/mcp-server" was not found: install it, or give its full path \{danger\}`)
}

func TestTheWindowProcessShowsTheServersState(t *testing.T) {
	d := newDesktop(t)
	w := d.openManager()
	u, s := w.u, d.srv
	if got, want := u.cfg.Server.URL(), s.D.URL(); got != want {
		t.Errorf("the window shows the address %q, want the server's %q", got, want)
	}
	if u.cfg.Secrets == nil || u.cfg.Secrets.Backend() != s.D.Secrets().Backend() {
		t.Errorf("the window's secrets: %v; want the server's backend %q", u.cfg.Secrets, s.D.Secrets().Backend())
	}

	// Opening again raises this window: no second process.
	d.tray.Open(link.Window{What: link.OpenManager})
	select {
	case <-d.started:
		t.Fatal("opening the open window started another process")
	case <-time.After(100 * time.Millisecond):
	}

	// Pausing in the window pauses the server; resuming from the tray
	// shows in the window.
	fyne.DoAndWait(u.winMenu.togglePause)
	if !s.D.Paused() {
		t.Fatal("Pause serving in the window did not pause the server")
	}
	var resume *tray.Item
	for _, it := range d.tray.Menu() {
		if it.Label == "Resume serving" {
			resume = it
		}
	}
	resume.Click()
	testutil.Eventually(t, "the window shows serving resumed", func() bool {
		var label string
		fyne.DoAndWait(func() { label = u.winMenu.pause.Label })
		return label == "Pause serving"
	})

	// Settings that do not validate come back as the problem, field and
	// all, for the form's red label.
	set, err := s.St.Settings(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	set.PageSize = 0
	_, err = u.cfg.Server.SaveSettings(t.Context(), set, false)
	var ve *catalog.ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 1 || ve.Problems[0].Field != "pageSize" {
		t.Fatalf("saving a page size of 0: %v; want a validation error about pageSize", err)
	}
}

func TestClosingTheWindowEndsItsProcessAndTheNextOpensWhereLeft(t *testing.T) {
	d := newDesktop(t)
	w := d.openManager()
	m := w.u.manager
	fyne.DoAndWait(func() {
		m.tabs.SelectIndex(2) // Prompts
		test.Type(m.prompts.search, "gre")
		selectEntry(t, m.prompts, "greet")
		m.closeWindow()
	})
	w.ended(t)
	n := d.openManager().u.manager
	if tab := n.tabs.Selected(); tab == nil || tab.Text != "Prompts" {
		t.Errorf("reopened on tab %v, want Prompts", tab)
	}
	if n.prompts.open.key != "greet" || n.prompts.search.Text != "gre" {
		t.Errorf("the prompts tab came back with %q open and search %q, want greet and %q", n.prompts.open.key, n.prompts.search.Text, "gre")
	}
}

func TestAnEntryDeletedWhileTheWindowWasClosedIsNotOpened(t *testing.T) {
	d := newDesktop(t)
	w := d.openManager()
	m := w.u.manager
	fyne.DoAndWait(func() {
		selectEntry(t, m.tools, "wipe")
		m.closeWindow()
	})
	w.ended(t)
	if err := d.srv.St.DeleteTool(t.Context(), "wipe"); err != nil {
		t.Fatal(err)
	}
	n := d.openManager().u.manager
	if n.editor != nil {
		t.Errorf("the editor of the deleted tool %q opened", n.editor.Orig.Name)
	}
	if n.win.Canvas().Overlays().Top() != nil {
		t.Error("reopening showed a dialog (an error about the deleted tool?)")
	}
}

func TestClosingAWindowThatHoldsWorkHidesItAndKeepsItsProcess(t *testing.T) {
	for name, leave := range map[string]func(*testing.T, *Manager){
		"an unsaved tool": func(t *testing.T, m *Manager) {
			selectEntry(t, m.tools, "echo")
			test.Type(m.editor.Description, " More.")
		},
		"unsaved settings": func(t *testing.T, m *Manager) {
			m.tabs.SelectIndex(5)
			test.Type(m.settings.title, "My tools")
		},
		"a dialog": func(t *testing.T, m *Manager) {
			m.showGallery()
		},
	} {
		t.Run(name, func(t *testing.T) {
			d := newDesktop(t)
			w := d.openManager()
			m := w.u.manager
			fyne.DoAndWait(func() {
				leave(t, m)
				if m.work() == "" {
					t.Fatal("the window says it holds nothing")
				}
				m.closeWindow()
			})
			if w.u.manager != m || !windowOpen(w.a, m.win) {
				t.Fatal("the window was closed, and its work with it")
			}
			select {
			case <-w.exited:
				t.Fatal("the process ended with work in its hidden window")
			case <-time.After(200 * time.Millisecond):
			}
			d.tray.Open(link.Window{What: link.OpenManager})
			testutil.Eventually(t, "the work back", func() bool {
				var work string
				fyne.DoAndWait(func() { work = m.work() })
				return work != ""
			})
		})
	}
}

func TestAClosedWindowStopsFollowing(t *testing.T) {
	d := newDesktop(t)
	w := d.openManager()
	m := w.u.manager
	fyne.DoAndWait(func() {
		m.tabs.SelectIndex(4) // Activity: follows the log
		m.closeWindow()
	})
	w.ended(t)
	testutil.EventuallyShows(t, "no goroutine of the closed window", func() (bool, string) {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		for _, f := range []string{"(*approvalsSection).follow", "(*ActivityTab).follow"} {
			if strings.Contains(stacks, f) {
				return false, f + " still runs"
			}
		}
		return true, ""
	})
}

// callWipe calls wipe with the official go-sdk client, as an AI app
// would; its result's text comes on the channel.
func (d *twoProcesses) callWipe(ctx context.Context) <-chan string {
	d.t.Helper()
	cs := d.srv.Connect(ctx, d.t)
	out := make(chan string, 1)
	go func() {
		defer cs.Close()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wipe"})
		if err != nil {
			out <- "error: " + err.Error()
			return
		}
		out <- uitest.ResultText(res)
	}()
	return out
}

func TestAQuestionOpensAWindowProcessAndItsAnswerReachesTheAIApp(t *testing.T) {
	d := newDesktop(t)
	result := d.callWipe(t.Context())
	w := d.next()
	p := shownQuestion(t, w.u.Asker, "wipe")
	if !shows(w.u.Asker, p, "Wipe old files") {
		t.Error("the question does not name the tool")
	}
	test.Tap(p.approval.untilRevoked)
	select {
	case got := <-result:
		if got != "wiped" {
			t.Fatalf("allowed, the call gave %q", got)
		}
	case <-time.After(testutil.Patience):
		t.Fatal("the AI app got no answer")
	}
	// Its one window answered, the process ends.
	w.ended(t)

	// The approval is the server's, listed and revoked from a window.
	w = d.openManager()
	keeper := w.u.cfg.Approvals
	got, err := keeper.RememberedApprovals(t.Context())
	if err != nil || len(got) != 1 || got[0].Tool != "wipe" {
		t.Fatalf("the window lists %v, %v; want the server's approval of wipe", got, err)
	}
	changed := keeper.SubscribeApprovals(t.Context())
	if err := keeper.ForgetApproval(t.Context(), got[0].ApprovalKey); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(testutil.Patience):
		t.Fatal("the window was not told that an approval went")
	}
	if left, err := d.srv.Eng.RememberedApprovals(t.Context()); err != nil || len(left) != 0 {
		t.Fatalf("the server still remembers %v, %v", left, err)
	}
}

func TestAWithdrawnQuestionClosesItsWindow(t *testing.T) {
	d := newDesktop(t)
	ctx, cancel := context.WithCancel(t.Context())
	result := d.callWipe(ctx)
	w := d.next()
	p := shownQuestion(t, w.u.Asker, "wipe")
	cancel() // the AI app gave up
	<-result
	testutil.Eventually(t, "the question window closed", func() bool {
		var closed bool
		inUI(w.u.Asker, func() { closed = p.closed })
		return closed
	})
	w.ended(t)
}

func TestQuitInTheTrayAsksTheWindowAboutUnsavedChanges(t *testing.T) {
	for _, discard := range []bool{false, true} {
		d := newDesktop(t)
		w := d.openManager()
		m := w.u.manager
		asked := make(chan string, 1)
		fyne.DoAndWait(func() {
			selectEntry(t, m.tools, "echo")
			test.Type(m.editor.Description, " More.")
			m.ask = func(title, _ string, answer func(bool)) { asked <- title; answer(discard) }
		})
		d.tray.Quit()
		select {
		case title := <-asked:
			if title != "Quit mcptray?" {
				t.Errorf("the window asked %q", title)
			}
		case <-time.After(testutil.Patience):
			t.Fatal("Quit in the tray did not ask about the unsaved tool")
		}
		select {
		case <-d.quits:
			if !discard {
				t.Fatal("kept the changes, and mcptray quit")
			}
			w.ended(t)
		case <-time.After(map[bool]time.Duration{true: testutil.Patience, false: 200 * time.Millisecond}[discard]):
			if discard {
				t.Fatal("discarded the changes, and mcptray did not quit")
			}
		}
	}
}

func TestQuitInTheWindowStopsTheServer(t *testing.T) {
	d := newDesktop(t)
	w := d.openManager()
	fyne.DoAndWait(w.u.Quit)
	select {
	case <-d.quits:
	case <-time.After(testutil.Patience):
		t.Fatal("File ▸ Quit did not stop the server")
	}
	w.ended(t)
}

func TestTheWindowGoesWhenTheServingProcessDoes(t *testing.T) {
	d := newDesktop(t)
	w := d.openManager()
	_ = w.serving.Close() // the serving process died: its end of the pipe closed
	w.ended(t)
}

func TestTheTaskWindowFollowsTheServersTasks(t *testing.T) {
	d := newDesktop(t)
	w, tw := d.openTasks()
	id := d.server.StartTask(t, "sync.run", nil)
	testutil.Eventually(t, "the task's progress, over the link", func() bool {
		return onUI(tw, func() bool {
			r := tw.row(id)
			return r != nil && r.bar.Value == 3 && strings.Contains(r.status.Text, "synced 3 of 10 folders")
		})
	})
	onUI(tw, func() bool { test.Tap(tw.row(id).cancel); return true })
	testutil.Eventually(t, "the task cancelled, over the link", func() bool {
		return onUI(tw, func() bool { return tw.row(id).task.Status == record.TaskCancelled })
	})
	if n := len(d.srv.Eng.RunningTasks()); n != 0 {
		t.Fatalf("%d tasks still run", n)
	}
	fyne.DoAndWait(tw.Close)
	w.ended(t)
}

// TestNoSecretCrossesTheLink: a question and a task's progress that
// render a secret reach the window process with the secret masked.
func TestNoSecretCrossesTheLink(t *testing.T) {
	const value = "s3cr3t-VALUE-42"
	d := newDesktop(t)
	if err := d.srv.D.Secrets().SetSecret(t.Context(), "api_key", value); err != nil {
		t.Fatal(err)
	}
	ask := testcatalog.RespondTool("send_key", "sent")
	ask.Steps = []catalog.InputStep{{Key: "ok", Kind: catalog.StepApproval, Message: `Send the key {{secret "api_key"}}?`}}
	task := testcatalog.SyncTool()
	task.Name = "sync_key"
	task.Action.Respond.Steps[0].Progress.Message = `synced with {{secret "api_key"}}`
	for _, tool := range []catalog.Tool{ask, task} {
		if err := d.srv.St.PutTool(t.Context(), tool); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.srv.Eng.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}

	cs := d.srv.Connect(t.Context(), t)
	defer cs.Close()
	go func() { _, _ = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "send_key"}) }()
	w := d.next()
	p := shownQuestion(t, w.u.Asker, "send_key")
	if p.q.Message != "Send the key [secret:api_key]?" || shows(w.u.Asker, p, value) {
		t.Fatalf("the question reached the window as %q", p.q.Message)
	}
	test.Tap(p.approval.deny)
	w.ended(t) // its one window answered

	_, tw := d.openTasks()
	id := d.server.StartTask(t, "sync_key", nil)
	testutil.Eventually(t, "the task's progress, masked", func() bool {
		return onUI(tw, func() bool {
			r := tw.row(id)
			return r != nil && r.status.Text == "synced with [secret:api_key]"
		})
	})
}
