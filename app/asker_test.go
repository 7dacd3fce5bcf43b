package app

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/app/words"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/record"
)

// asked is an Ask call running in the background.
type asked struct {
	ans  mcpcore.Answer
	err  error
	done chan struct{}
}

func ask(ctx context.Context, a *Asker, q mcpcore.Question) *asked {
	r := &asked{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.ans, r.err = a.Ask(ctx, q)
	}()
	return r
}

func (r *asked) wait(t *testing.T) (mcpcore.Answer, error) {
	t.Helper()
	select {
	case <-r.done:
		return r.ans, r.err
	case <-time.After(testutil.Patience):
		t.Fatal("Ask did not return")
		return mcpcore.Answer{}, nil
	}
}

// shownQuestion waits for a question window and returns it.
func shownQuestion(t *testing.T, a *Asker, tool string) *pending {
	t.Helper()
	var p *pending
	testutil.Eventually(t, "the question about "+tool, func() bool {
		p = a.shown()
		return p != nil && (p.q.Tool == tool || p.q.Prompt == tool)
	})
	return p
}

// inUI runs f serialized with the Asker's window work.
func inUI(a *Asker, f func()) {
	a.ui.Lock()
	defer a.ui.Unlock()
	f()
}

// shows reports whether p's window shows s.
func shows(a *Asker, p *pending, s string) (ok bool) {
	inUI(a, func() { ok = uitest.HasText(p.win.Canvas().Content(), s) })
	return ok
}

// focused is what has the focus in p's window.
func focused(a *Asker, p *pending) (f fyne.Focusable) {
	inUI(a, func() { f = p.win.Canvas().Focused() })
	return f
}

// questionWindows counts the open question windows.
func questionWindows(app fyne.App) int {
	n := 0
	for _, w := range app.Driver().AllWindows() {
		if strings.HasPrefix(w.Title(), "mcptray — ") {
			n++
		}
	}
	return n
}

func windowOpen(app fyne.App, w fyne.Window) bool {
	return slices.Contains(app.Driver().AllWindows(), w)
}

var yes = true

func wipeQuestion() mcpcore.Question {
	return mcpcore.Question{Client: "claude-desktop", Token: "laptop", Tool: "files.wipe", ToolTitle: "Wipe old files",
		Arguments: "{\n  \"path\": \"/home/me/old-projects\",\n  \"recursive\": true\n}",
		Hints:     &catalog.Hints{Destructive: &yes}, Key: "approval", Kind: catalog.StepApproval,
		Message: `Allow the AI assistant to run "files.wipe"? It is marked destructive.`}
}

func TestApprovalRememberChoices(t *testing.T) {
	app := uitest.NewRecordingApp(t)
	a := NewAsker(app)
	q := wipeQuestion()
	q.Hints = nil // not destructive: Deny has the focus all the same
	for _, tc := range []struct {
		button func(*approvalWidgets) *ui.EscButton
		want   string
	}{
		{func(w *approvalWidgets) *ui.EscButton { return w.untilRestart }, record.RememberUntilRestart},
		{func(w *approvalWidgets) *ui.EscButton { return w.untilRevoked }, record.RememberUntilRevoked},
	} {
		call := ask(t.Context(), a, q)
		p := shownQuestion(t, a, "files.wipe")
		if !windowOpen(app, p.win) {
			t.Fatal("no window for the question")
		}
		if got := focused(a, p); got != p.approval.deny {
			t.Errorf("focus on %v, want Deny: a stray key must not allow", got)
		}
		w := p.win
		test.Tap(tc.button(p.approval))
		ans, err := call.wait(t)
		if err != nil || ans.Action != "accept" || ans.Remember != tc.want {
			t.Fatalf("answer %+v, %v; want accept, remembered %q", ans, err, tc.want)
		}
		if windowOpen(app, w) || a.Pending() != 0 {
			t.Errorf("window still open after the answer (pending %d)", a.Pending())
		}
	}
	notes := app.Notifications()
	if len(notes) != 2 || notes[0].Title != "mcptray: approval needed" || notes[0].Content != `claude-desktop wants to run "Wipe old files".` {
		t.Errorf("notifications: %+v", notes)
	}
}

func TestApprovalAllowOnceAndDeny(t *testing.T) {
	app := uitest.NewRecordingApp(t)
	a := NewAsker(app)

	call := ask(t.Context(), a, wipeQuestion())
	p := shownQuestion(t, a, "files.wipe")
	if got := focused(a, p); got != p.approval.deny {
		t.Errorf("focus on %v, want Deny for a destructive tool", got)
	}
	if !shows(a, p, "This tool may delete or change things.") {
		t.Error("the destructive hint is not shown")
	}
	if !shows(a, p, `"path": "/home/me/old-projects"`) {
		t.Error("the arguments are not shown")
	}
	test.Tap(p.approval.deny)
	ans, err := call.wait(t)
	// The person gave no reason: the engine words the denial itself.
	if err != nil || ans.Action != "decline" || ans.Remember != "" || ans.Reason != "" {
		t.Fatalf("deny: %+v, %v", ans, err)
	}

	call = ask(t.Context(), a, wipeQuestion())
	p = shownQuestion(t, a, "files.wipe")
	test.Tap(p.approval.allowOnce)
	if ans, err := call.wait(t); err != nil || ans.Action != "accept" || ans.Remember != "" {
		t.Fatalf("allow once: %+v, %v", ans, err)
	}

	// Closing the window is a refusal.
	call = ask(t.Context(), a, wipeQuestion())
	p = shownQuestion(t, a, "files.wipe")
	p.win.Close()
	if ans, err := call.wait(t); err != nil || ans.Action != "decline" {
		t.Fatalf("closed window: %+v, %v", ans, err)
	}
}

// typeKey types key into p's window as the driver does: to the focused
// widget, or to the window when none has the focus.
func typeKey(a *Asker, p *pending, key fyne.KeyName) {
	ev := &fyne.KeyEvent{Name: key}
	var to func(*fyne.KeyEvent)
	inUI(a, func() {
		if f := p.win.Canvas().Focused(); f != nil {
			to = f.TypedKey
		} else {
			to = p.win.Canvas().OnTypedKey()
		}
	})
	to(ev)
}

func TestEscapeRefusesAndEnterAllowsNothing(t *testing.T) {
	app := uitest.NewRecordingApp(t)
	a := NewAsker(app)
	q := wipeQuestion()
	q.Hints = nil
	trip := uitest.TripQuestion()
	page := mcpcore.Question{Client: "cursor", Tool: "github.login", Key: "auth", Kind: catalog.StepURL, URL: "https://github.com/login"}
	for _, tc := range []struct {
		name  string
		q     mcpcore.Question
		focus func(*pending) fyne.Focusable // nil: nothing focused
		want  string
	}{
		{"approval, Deny focused", q, func(p *pending) fyne.Focusable { return p.approval.deny }, "decline"},
		{"approval, Allow once focused", q, func(p *pending) fyne.Focusable { return p.approval.allowOnce }, "decline"},
		{"approval, Allow until I revoke it focused", q, func(p *pending) fyne.Focusable { return p.approval.untilRevoked }, "decline"},
		{"approval, nothing focused", q, nil, "decline"},
		{"page, Open focused", page, func(p *pending) fyne.Focusable { return p.url[0] }, "cancel"},
		{"form, an entry focused", trip, func(p *pending) fyne.Focusable { return p.form.Field("name").Entry }, "cancel"},
		{"form, a select focused", trip, func(p *pending) fyne.Focusable { return p.form.Field("room").Sel }, "cancel"},
		{"form, a check box focused", trip, func(p *pending) fyne.Focusable { return p.form.Field("breakfast").Check }, "cancel"},
		{"form, a choice focused", trip, func(p *pending) fyne.Focusable { return p.form.Field("extras").Group[1] }, "cancel"},
		{"form, Send focused", trip, func(p *pending) fyne.Focusable { return p.form.Submit }, "cancel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			call := ask(t.Context(), a, tc.q)
			p := shownQuestion(t, a, tc.q.Tool)
			inUI(a, func() {
				if tc.focus == nil {
					p.win.Canvas().Unfocus()
				} else {
					p.win.Canvas().Focus(tc.focus(p))
				}
			})
			if tc.q.Kind == catalog.StepApproval {
				// Enter (on either key) answers nothing.
				typeKey(a, p, fyne.KeyReturn)
				typeKey(a, p, fyne.KeyEnter)
				select {
				case <-call.done:
					t.Fatalf("Enter answered the approval: %+v", call.ans)
				case <-time.After(50 * time.Millisecond):
				}
			}
			typeKey(a, p, fyne.KeyEscape)
			if ans, err := call.wait(t); err != nil || ans.Action != tc.want {
				t.Fatalf("Escape: %+v, %v; want %s", ans, err, tc.want)
			}
		})
	}
}

// raisingApp records the question windows' Show and RequestFocus calls.
type raisingApp struct {
	*uitest.RecordingApp
	mu     sync.Mutex
	raised []string
}

type raisingWindow struct {
	fyne.Window
	app *raisingApp
}

func (r *raisingApp) NewWindow(title string) fyne.Window {
	return &raisingWindow{Window: r.RecordingApp.NewWindow(title), app: r}
}

func (w *raisingWindow) note(what string) {
	w.app.mu.Lock()
	defer w.app.mu.Unlock()
	w.app.raised = append(w.app.raised, what+" "+w.Title())
}

func (w *raisingWindow) Show()         { w.note("show"); w.Window.Show() }
func (w *raisingWindow) RequestFocus() { w.note("focus"); w.Window.RequestFocus() }

func (r *raisingApp) takeRaised() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.raised
	r.raised = nil
	return out
}

func TestRaiseBringsTheShownQuestionUp(t *testing.T) {
	app := &raisingApp{RecordingApp: uitest.NewRecordingApp(t)}
	a := NewAsker(app)
	raise := func() (ok bool) {
		inUI(a, func() { ok = a.Raise() })
		return ok
	}
	if raise() {
		t.Error("Raise reported a question with none waiting")
	}
	first, second := wipeQuestion(), wipeQuestion()
	second.Tool, second.Kind = "files.list", catalog.StepURL
	callFirst := ask(t.Context(), a, first)
	p := shownQuestion(t, a, "files.wipe")
	callSecond := ask(t.Context(), a, second)
	testutil.Eventually(t, "the second question queued", func() bool { return a.Pending() == 2 })
	app.takeRaised()
	if !raise() {
		t.Fatal("Raise found no question to raise")
	}
	if got, want := app.takeRaised(), []string{"show mcptray — approval needed", "focus mcptray — approval needed"}; !slices.Equal(got, want) {
		t.Errorf("raised %q, want %q", got, want)
	}
	// Answered, the next one is the one raised.
	test.Tap(p.approval.deny)
	_, _ = callFirst.wait(t)
	p = shownQuestion(t, a, "files.list")
	app.takeRaised()
	if !raise() {
		t.Fatal("Raise found no question to raise")
	}
	if got, want := app.takeRaised(), []string{"show mcptray — open a web page?", "focus mcptray — open a web page?"}; !slices.Equal(got, want) {
		t.Errorf("raised %q, want %q", got, want)
	}
	test.Tap(p.url[1])
	_, _ = callSecond.wait(t)
	if raise() {
		t.Error("Raise reported a question after all were answered")
	}
}

func TestQuestionsQueueAndWithdraw(t *testing.T) {
	app := uitest.NewRecordingApp(t)
	a := NewAsker(app)
	ctxA, cancelA := context.WithCancel(t.Context())
	ctxB, cancelB := context.WithCancel(t.Context())
	defer cancelB()
	qa, qb, qc := wipeQuestion(), wipeQuestion(), wipeQuestion()
	qa.Tool, qb.Tool, qc.Tool = "a", "b", "c"
	callA := ask(ctxA, a, qa)
	pa := shownQuestion(t, a, "a")
	callB := ask(ctxB, a, qb)
	callC := ask(t.Context(), a, qc)
	testutil.Eventually(t, "three pending questions", func() bool { return a.Pending() == 3 })
	testutil.Eventually(t, "the queue line", func() bool {
		return shows(a, pa, "2 more questions are waiting after this one.")
	})
	if n := questionWindows(app); n != 1 {
		t.Errorf("%d question windows open, want one at a time", n)
	}

	// B, still queued, is withdrawn unseen.
	cancelB()
	if _, err := callB.wait(t); !errors.Is(err, context.Canceled) {
		t.Fatalf("withdrawn queued question: %v", err)
	}
	// A, shown, is withdrawn: its window closes and C comes up.
	wa := pa.win
	cancelA()
	if _, err := callA.wait(t); !errors.Is(err, context.Canceled) {
		t.Fatalf("withdrawn shown question: %v", err)
	}
	if windowOpen(app, wa) {
		t.Error("the withdrawn question's window is still open")
	}
	pc := shownQuestion(t, a, "c")
	test.Tap(pc.approval.deny)
	if ans, err := callC.wait(t); err != nil || ans.Action != "decline" {
		t.Fatalf("C: %+v, %v", ans, err)
	}
	if a.Pending() != 0 || questionWindows(app) != 0 {
		t.Errorf("left over: %d pending, %d windows", a.Pending(), questionWindows(app))
	}
}

func TestApprovalCountdownAndDeadline(t *testing.T) {
	app := uitest.NewRecordingApp(t)
	a := NewAsker(app)
	ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
	defer cancel()
	call := ask(ctx, a, wipeQuestion())
	p := shownQuestion(t, a, "files.wipe")
	if !shows(a, p, "Answer within 0:0") {
		t.Error("no countdown shown for a question with a deadline")
	}
	w := p.win
	if _, err := call.wait(t); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("expired question: %v", err)
	}
	if windowOpen(app, w) {
		t.Error("the expired question's window is still open")
	}
}

func TestURLQuestion(t *testing.T) {
	app := uitest.NewRecordingApp(t)
	a := NewAsker(app)
	q := mcpcore.Question{Client: "cursor", Tool: "github.login", Key: "auth", Kind: catalog.StepURL,
		Message: "Sign in to GitHub so the tool can read your issues.", URL: "https://github.com/login/device?code=ABCD"}
	call := ask(t.Context(), a, q)
	p := shownQuestion(t, a, "github.login")
	if !shows(a, p, q.URL) || !shows(a, p, "github.com") {
		t.Error("the URL or its site is not shown")
	}
	test.Tap(p.url[0])
	if ans, err := call.wait(t); err != nil || ans.Action != "accept" {
		t.Fatalf("open: %+v, %v", ans, err)
	}
	app.Mu.Lock()
	opened := slices.Clone(app.Opened)
	app.Mu.Unlock()
	if len(opened) != 1 || opened[0] != q.URL {
		t.Errorf("opened %v", opened)
	}

	call = ask(t.Context(), a, q)
	p = shownQuestion(t, a, "github.login")
	test.Tap(p.url[1])
	if ans, err := call.wait(t); err != nil || ans.Action != "cancel" {
		t.Fatalf("cancel: %+v, %v", ans, err)
	}

	q.URL = "file:///etc/passwd"
	call = ask(t.Context(), a, q)
	p = shownQuestion(t, a, "github.login")
	if !p.url[0].Disabled() {
		t.Error("Open is enabled for a file: URL")
	}
	test.Tap(p.url[1])
	_, _ = call.wait(t)
}

func TestRenderApprovalWindow(t *testing.T) {
	app := uitest.NewRecordingApp(t)
	test.ApplyTheme(t, theme.DefaultTheme()) // before any widget: the real look
	a := NewAsker(app)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	second := wipeQuestion()
	second.Tool = "files.list"
	call := ask(ctx, a, wipeQuestion())
	p := shownQuestion(t, a, "files.wipe")
	call2 := ask(ctx, a, second)
	testutil.Eventually(t, "the queue line", func() bool { return shows(a, p, "1 more question") })
	inUI(a, func() {
		uitest.Capture(t, p.win, "approval.png") // at the size the Asker gave it
		if got := p.win.Title(); got != "mcptray — approval needed" {
			t.Errorf("title %q", got)
		}
		// Who asks, what for (the tool's title, its name second), how
		// dangerous, with which arguments; the time left, the buttons
		// (Deny the prominent one for a destructive tool), what the
		// remembering ones do, and the queue under them. No grey small
		// print: it reads badly on either theme.
		uitest.Sees(t, "the approval window", uitest.SeenIn(p.win.Canvas()),
			`label: claude-desktop wants to run "Wipe old files"`,
			`label: Allow the AI assistant to run "files.wipe"? It is marked destructive.`,
			"label: AI app", "label: claude-desktop (token laptop)",
			"label: Tool", "label: Wipe old files (files.wipe)",
			"label: This tool may delete or change things. {danger}",
			"label: What the AI app sends the tool", "label: "+wipeQuestion().Arguments,
			`re:label: Answer within 1:[0-3]\d; after that, the AI app is told nobody answered\. \{warning\}`,
			"button: Deny {high}", "button: Allow once {danger}",
			"label: Or don't ask again while the tool stays unchanged (Settings lists these, to revoke):",
			"button: Allow until mcptray restarts", "button: Allow until I revoke it",
			"label: 1 more question is waiting after this one.")
		uitest.SeesNone(t, "the approval window", uitest.SeenIn(p.win.Canvas()), "{low}")
		uitest.Fits(t, p.win)
		for _, b := range []string{"Deny", "Allow once", "Allow until mcptray restarts", "Allow until I revoke it"} {
			uitest.InView(t, p.win, b)
		}
		if got := p.win.Canvas().Focused(); got != p.approval.deny {
			t.Errorf("focus on %v, want Deny", got)
		}
	})
	test.Tap(p.approval.deny)
	_, _ = call.wait(t)
	p = shownQuestion(t, a, "files.list")
	inUI(a, func() {
		got := uitest.SeenIn(p.win.Canvas())
		uitest.Sees(t, "the next approval window", got, `label: claude-desktop wants to run "Wipe old files"`, "label: Wipe old files (files.list)")
		uitest.SeesNone(t, "the last approval window", got, "more question")
	})
	test.Tap(p.approval.deny)
	_, _ = call2.wait(t)
}

func TestRenderURLWindow(t *testing.T) {
	app := uitest.NewRecordingApp(t)
	test.ApplyTheme(t, theme.DefaultTheme()) // before any widget: the real look
	a := NewAsker(app)
	q := mcpcore.Question{Client: "cursor", Tool: "github.login", ToolTitle: "GitHub sign-in", Key: "auth", Kind: catalog.StepURL,
		Message: "Sign in to GitHub so the tool can read your issues.", URL: "https://github.com/login/device?code=ABCD-1234"}
	call := ask(t.Context(), a, q)
	p := shownQuestion(t, a, "github.login")
	inUI(a, func() {
		uitest.Capture(t, p.win, "url.png")
		if got := p.win.Title(); got != "mcptray — open a web page?" {
			t.Errorf("title %q", got)
		}
		got := uitest.SeenIn(p.win.Canvas())
		uitest.Sees(t, "the URL window", got,
			`label: cursor asks you to open a web page for "GitHub sign-in"`,
			"label: Sign in to GitHub so the tool can read your issues.",
			"label: AI app", "label: cursor", "label: Tool", "label: GitHub sign-in (github.login)",
			"label: Page", "label: https://github.com/login/device?code=ABCD-1234",
			"label: It opens in your browser, on the site github.com. Opening it tells cursor you agreed.",
			"button: Don't open", "button: Open in browser {high}")
		// No deadline, nothing queued: neither line shows.
		uitest.SeesNone(t, "the URL window", got, "Answer within", "more question")
		uitest.Fits(t, p.win)
		uitest.InView(t, p.win, "Don't open")
		uitest.InView(t, p.win, "Open in browser")
		if got := p.win.Canvas().Focused(); got != p.url[1] {
			t.Errorf("focus on %v, want Cancel", got)
		}
		// Nothing above varies from run to run: the whole drawing can be
		// compared.
		test.AssertRendersToMarkup(t, "url.xml", p.win.Canvas())
	})
	test.Tap(p.url[1])
	_, _ = call.wait(t)
}

// TestAnApprovalShowsWhatRunsAndHiddenText: the approval shows what the
// tool will run and what the AI app answered before, and writes out the
// characters nobody could see (a right-to-left override turns "gpj.exe"
// around), saying so.
func TestAnApprovalShowsWhatRunsAndHiddenText(t *testing.T) {
	app := uitest.NewRecordingApp(t)
	test.ApplyTheme(t, theme.DefaultTheme())
	a := NewAsker(app)
	q := wipeQuestion()
	q.Client = "claude\u200Bdesktop"
	q.Arguments = "{\n  \"file\": \"evil\u202Egpj.exe\"\n}"
	q.Runs = "Runs: find /home/victim/.ssh -maxdepth 1 -type f -mtime +30 -delete -print -newer /home/victim/.ssh/known_hosts"
	q.ClientInputs = "{\n  \"target\": {\"path\": \"/home/victim/.ssh\"}\n}"
	call := ask(t.Context(), a, q)
	p := shownQuestion(t, a, "files.wipe")
	inUI(a, func() {
		uitest.Capture(t, p.win, "approval-runs.png")
		uitest.Sees(t, "the approval window", uitest.SeenIn(p.win.Canvas()),
			"label: claude[hidden U+200B]desktop wants to run \"Wipe old files\"",
			"label: "+words.HiddenNote+" {danger}",
			"label: What will run, if you allow it", "label: "+q.Runs,
			"label: What the AI app sends the tool", "label: {\n  \"file\": \"evil[hidden U+202E]gpj.exe\"\n}",
			"label: What the AI app answered the tool's questions", "label: "+q.ClientInputs,
			"label: Or don't ask again while the tool and the AI app's answers stay unchanged (Settings lists these, to revoke):")
		uitest.SeesNone(t, "the approval window", uitest.SeenIn(p.win.Canvas()), "\u202E", "\u200B")
	})
	test.Tap(p.approval.deny)
	if ans, err := call.wait(t); err != nil || ans.Action != "decline" {
		t.Fatalf("deny: %+v, %v", ans, err)
	}
}

// TestAnApprovalNamesTheServer: the approval of a tool of another server
// mcptray fronts names the server, by the name the person gave it, beside
// the arguments, in both themes (drawn as approval-server-THEME.png).
func TestAnApprovalNamesTheServer(t *testing.T) {
	for _, v := range uitest.Variants {
		t.Run(v.Name, func(t *testing.T) {
			app := uitest.NewRecordingApp(t)
			app.Settings().SetTheme(ui.ThemeVariant(v.Variant))
			a := NewAsker(app)
			q := mcpcore.Question{Client: "claude-desktop", Token: "laptop", Tool: "gh_create_issue", Server: "github",
				Arguments: "{\n  \"repo\": \"me/notes\",\n  \"title\": \"Typo on the front page\"\n}",
				Key:       "approval", Kind: catalog.StepApproval, Message: `Allow the AI app to run "gh_create_issue"?`,
				Runs: `Calls the tool "create_issue" of the server "github", passing on what the AI app sends`}
			call := ask(t.Context(), a, q)
			p := shownQuestion(t, a, "gh_create_issue")
			inUI(a, func() {
				uitest.Capture(t, p.win, "approval-server-"+v.Name+".png")
				uitest.Sees(t, "the approval window", uitest.SeenIn(p.win.Canvas()),
					"label: Tool", "label: gh_create_issue", "label: Server", "label: github",
					"label: What will run, if you allow it", "label: "+q.Runs,
					"label: What the AI app sends the tool", "label: "+q.Arguments)
				uitest.Fits(t, p.win)
			})
			test.Tap(p.approval.deny)
			_, _ = call.wait(t)
		})
	}
}
