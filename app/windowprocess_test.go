package app

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
)

// windowChild is a manager window "process" of a test: RunWindow's UI,
// run in this process on pipes in place of a child's stdin and stdout.
type windowChild struct {
	u *UI
	// stdin is the serving side's end of the child's stdin.
	stdin io.Closer
	// exited is closed once the child's app quit, as the process would
	// then exit.
	exited chan struct{}
}

// quitter is a Fyne app whose Quit is the end of a window process.
type quitter struct {
	fyne.App
	quit func()
}

func (q *quitter) Quit() { q.quit() }

// pipeWindows is a WindowStarter whose window processes are windowChilds
// on the test app a; each one started is sent on the channel.
func pipeWindows(t *testing.T, a fyne.App) (WindowStarter, <-chan *windowChild) {
	t.Helper()
	started := make(chan *windowChild, 4)
	return func() (WindowProcess, error) {
		childIn, parentOut := io.Pipe()
		parentIn, childOut := io.Pipe()
		c := &windowChild{stdin: parentOut, exited: make(chan struct{})}
		var once sync.Once
		exit := func() {
			once.Do(func() {
				_ = childOut.Close()
				_ = childIn.Close()
				close(c.exited)
			})
		}
		go func() {
			u, done, err := openWindowProcess(context.Background(), &quitter{App: a, quit: exit}, WindowEnv{Link: childIn, Out: childOut})
			if err != nil {
				t.Errorf("the window process: %v", err)
				exit()
				return
			}
			defer done()
			c.u = u
			fyne.DoAndWait(u.started) // what Run's app start does
			started <- c
			<-c.exited
		}()
		return WindowProcess{Stdin: parentOut, Stdout: parentIn, Wait: func() error { <-c.exited; return nil }}, nil
	}, started
}

// nextWindow is the window process started next.
func nextWindow(t *testing.T, started <-chan *windowChild) *windowChild {
	t.Helper()
	select {
	case c := <-started:
		if c.u.manager == nil {
			t.Fatal("the window process opened no window")
		}
		return c
	case <-time.After(testutil.Patience):
		t.Fatal("no window process started")
	}
	return nil
}

// trayWithWindows is the serving side of the desktop app with a tray
// host, its manager window opening in window processes, on a server with
// the tools echo and wipe and the prompt greet.
func trayWithWindows(t *testing.T, beforeQuit func()) (*UI, *served, <-chan *windowChild) {
	t.Helper()
	a := test.NewTempApp(t)
	s := echoWipeGreet(t)
	start, started := pipeWindows(t, a)
	u := newUI(a, Config{Store: s.st, Engine: s.eng, Server: s.d, Secrets: s.d.Secrets(), DB: s.st.Path(), Version: "1.2.3",
		Asker: NewAsker(a), BeforeQuit: beforeQuit, StartWindow: start}, TrayHost{Present: true, About: "test tray"})
	return u, s, started
}

// exitedFor waits until c's process has ended and the serving side knows.
func exitedFor(t *testing.T, u *UI, c *windowChild) {
	t.Helper()
	select {
	case <-c.exited:
	case <-time.After(testutil.Patience):
		t.Fatal("the window process did not end")
	}
	testutil.Eventually(t, "the serving side let the window process go", func() bool {
		var gone bool
		fyne.DoAndWait(func() { gone = u.window == nil })
		return gone
	})
}

func TestTheWindowRunsInItsOwnProcessAndEndsWithIt(t *testing.T) {
	u, s, started := trayWithWindows(t, nil)
	u.OpenManager()
	c := nextWindow(t, started)
	if u.manager != nil {
		t.Fatal("the window opened in the serving process too")
	}
	if got, want := c.u.cfg.Server.URL(), s.d.URL(); got != want {
		t.Errorf("the window shows the address %q, want the server's %q", got, want)
	}
	if c.u.cfg.Secrets == nil || c.u.cfg.Secrets.Backend() != s.d.Secrets().Backend() {
		t.Errorf("the window's secrets: %v; want the server's backend %q", c.u.cfg.Secrets, s.d.Secrets().Backend())
	}

	// Opening again raises this window: no second process.
	u.OpenManager()
	select {
	case <-started:
		t.Fatal("opening the open window started another process")
	case <-time.After(100 * time.Millisecond):
	}

	// Pausing in the window pauses the server; resuming from the tray
	// shows in the window.
	c.u.winMenu.togglePause()
	if !s.d.Paused() {
		t.Fatal("Pause serving in the window did not pause the server")
	}
	s.d.SetPaused(false)
	fyne.DoAndWait(u.stateChanged) // what the tray's Resume does
	testutil.Eventually(t, "the window shows serving resumed", func() bool {
		var label string
		fyne.DoAndWait(func() { label = c.u.winMenu.pause.Label })
		return label == "Pause serving"
	})

	// Settings that do not validate come back as the problem, field and
	// all, for the form's red label.
	set, err := s.st.Settings(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	set.PageSize = 0
	_, err = c.u.cfg.Server.SaveSettings(t.Context(), set, false)
	var ve *mcpcore.ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 1 || ve.Problems[0].Field != "pageSize" {
		t.Fatalf("saving a page size of 0: %v; want a validation error about pageSize", err)
	}

	// Closed to the tray, the process ends; the next window opens where
	// this one was left.
	m := c.u.manager
	m.tabs.SelectIndex(2) // Prompts
	test.Type(m.prompts.search, "gre")
	selectEntry(t, m.prompts, "greet")
	m.closeWindow()
	exitedFor(t, u, c)
	u.OpenManager()
	n := nextWindow(t, started).u.manager
	if tab := n.tabs.Selected(); tab == nil || tab.Text != "Prompts" {
		t.Errorf("reopened on tab %v, want Prompts", tab)
	}
	if n.prompts.open.key != "greet" || n.prompts.search.Text != "gre" {
		t.Errorf("the prompts tab came back with %q open and search %q, want greet and %q", n.prompts.open.key, n.prompts.search.Text, "gre")
	}
}

func TestTheWindowListsAndRevokesTheServersApprovals(t *testing.T) {
	u, s, started := trayWithWindows(t, nil)
	key := mcpcore.ApprovalKey{Client: "claude-code", Tool: "wipe", ToolHash: "sha256:old"}
	if err := s.st.RememberApproval(t.Context(), key); err != nil {
		t.Fatal(err)
	}
	u.OpenManager()
	c := nextWindow(t, started)
	keeper := c.u.cfg.approvals()
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
	if left, err := s.eng.RememberedApprovals(t.Context()); err != nil || len(left) != 0 {
		t.Fatalf("the server still remembers %v, %v", left, err)
	}
}

func TestQuitInTheTrayAsksTheWindowAboutUnsavedChanges(t *testing.T) {
	for _, discard := range []bool{false, true} {
		q := newQuitWatch()
		u, _, started := trayWithWindows(t, q.beforeQuit)
		u.OpenManager()
		c := nextWindow(t, started)
		m := c.u.manager
		selectEntry(t, m.tools, "echo")
		test.Type(m.editor.description, " More.")
		asked := make(chan string, 1)
		fyne.DoAndWait(func() {
			m.ask = func(title, _ string, answer func(bool)) { asked <- title; answer(discard) }
		})
		u.Quit()
		select {
		case title := <-asked:
			if title != "Quit mcptray?" {
				t.Errorf("the window asked %q", title)
			}
		case <-time.After(testutil.Patience):
			t.Fatal("Quit in the tray did not ask about the unsaved tool")
		}
		q.expect(t, discard, "answering discard="+map[bool]string{true: "yes", false: "no"}[discard])
		if discard {
			exitedFor(t, u, c)
		}
	}
}

func TestTheWindowGoesWhenTheServingProcessDoes(t *testing.T) {
	u, _, started := trayWithWindows(t, nil)
	u.OpenManager()
	c := nextWindow(t, started)
	_ = c.stdin.Close() // the serving process died: its end of the pipe closed
	select {
	case <-c.exited:
	case <-time.After(testutil.Patience):
		t.Fatal("the window outlived the serving process")
	}
}

func TestAWindowProcessThatCannotStartLeavesTheWindowInThisProcess(t *testing.T) {
	u, _, _ := trayWithWindows(t, nil)
	u.cfg.StartWindow = func() (WindowProcess, error) { return WindowProcess{}, errors.New("no such file") }
	u.OpenManager()
	if u.manager == nil {
		t.Fatal("no window opened")
	}
	t.Cleanup(u.manager.win.Close)
}

func TestAWindowProcessThatFailsLeavesTheWindowInThisProcess(t *testing.T) {
	u, _, _ := trayWithWindows(t, nil)
	starts := 0
	u.cfg.StartWindow = func() (WindowProcess, error) {
		starts++
		in, out := io.Pipe()
		_ = out.Close() // it exits before saying a word
		return WindowProcess{Stdin: nopWriteCloser{io.Discard}, Stdout: in, Wait: func() error { return errors.New("exit status 1") }}, nil
	}
	u.OpenManager()
	testutil.Eventually(t, "the window opened in the serving process", func() bool {
		var open bool
		fyne.DoAndWait(func() { open = u.manager != nil })
		return open
	})
	t.Cleanup(func() {
		if u.manager != nil {
			u.manager.win.Close()
		}
	})
	u.manager.closeWindow()
	u.OpenManager()
	if starts != 1 {
		t.Errorf("%d window processes started; after one failed, the window should stay in this process", starts)
	}
}

// nopWriteCloser is a WriteCloser whose Close does nothing.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
