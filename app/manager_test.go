package app

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/editor"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testcatalog"
)

func TestEditorCreatesAServedTool(t *testing.T) {
	a := uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	m := NewManager(a, Config{Store: s.St, Approvals: s.Eng})
	t.Cleanup(m.win.Close)
	m.NewTool()
	e := m.Editor()

	test.Type(e.Name, "greet_person")
	test.Type(e.Title, "Greet a person")
	test.Type(e.Description, "Says hello to someone by name.")
	e.AddParam(catalog.Param{Type: "string"})
	test.Type(e.Params[0].Name, "who")
	test.Tap(e.Params[0].Required)
	test.Type(e.Blocks.Items[0].Text.Entry, "Hello, {{.args.who}}!")
	test.Tap(e.SaveButton)

	if !strings.HasPrefix(e.Status.Text, "Saved") {
		t.Fatalf("status %q, want Saved…; field errors: %v", e.Status.Text, e.Errs.Shown())
	}
	got, err := s.St.Tool(context.Background(), "greet_person")
	if err != nil {
		t.Fatalf("the tool is not in SQLite: %v", err)
	}
	if got.Title != "Greet a person" || len(got.Params) != 1 || !got.Params[0].Required || got.Action.Respond == nil {
		t.Fatalf("stored tool = %+v", got)
	}
	// The running server serves it (the engine follows the store).
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(s.ToolNames(t), "greet_person") {
		if time.Now().After(deadline) {
			t.Fatalf("tools/list does not show greet_person: %v", s.ToolNames(t))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if txt := s.CallText(t, "greet_person", map[string]any{"who": "Ada"}); txt != "Hello, Ada!" {
		t.Fatalf("tools/call = %q", txt)
	}
	// The list shows it, selected.
	if !slices.ContainsFunc(m.tools.shown, func(x catalogEntry) bool { return x.key == "greet_person" }) {
		t.Fatalf("tool list = %v", m.tools.shown)
	}
}

func TestEditorRefusesAnInvalidName(t *testing.T) {
	a := uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	m := NewManager(a, Config{Store: s.St, Approvals: s.Eng})
	t.Cleanup(m.win.Close)
	m.NewTool()
	e := m.Editor()

	test.Type(e.Name, "bad name!")
	// Validated live, before Save.
	if l := e.Errs["name"]; !l.Visible() || l.Text == "" {
		t.Fatalf("no live error next to the name (visible %v, %q)", l.Visible(), l.Text)
	}
	test.Type(e.Description, "Does things.")
	test.Type(e.Blocks.Items[0].Text.Entry, "ok")
	test.Tap(e.SaveButton)

	if l := e.Errs["name"]; !l.Visible() || l.Text == "" {
		t.Fatalf("after Save: no error next to the name")
	}
	for k, l := range e.Errs {
		if k != "name" && l.Visible() {
			t.Errorf("unexpected error at %q: %q", k, l.Text)
		}
	}
	if !strings.HasPrefix(e.Status.Text, "Not saved") {
		t.Fatalf("status %q", e.Status.Text)
	}
	cat, err := s.St.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Tools) != 0 {
		t.Fatalf("saved anyway: %+v", cat.Tools)
	}

	// Fixing the name clears the error as it is typed.
	e.Name.SetText("")
	test.Type(e.Name, "good_name")
	if e.Errs["name"].Visible() {
		t.Fatalf("error still shown for a valid name: %q", e.Errs["name"].Text)
	}
}

func TestEditorShowsProblemsAtTheirFields(t *testing.T) {
	a := uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	m := NewManager(a, Config{Store: s.St, Approvals: s.Eng})
	t.Cleanup(m.win.Close)
	m.NewTool()
	e := m.Editor()
	test.Type(e.Name, "runner")
	e.ActionKind.SetSelected(editor.KindCommand) // no argv, no description
	e.AddParam(catalog.Param{Type: "integer"})
	test.Type(e.Params[0].Name, "n")
	test.Type(e.Params[0].Def, "abc")
	test.Tap(e.SaveButton)
	for _, k := range []string{"description", "action.command.argv", "params"} {
		if l := e.Errs[k]; !l.Visible() || l.Text == "" {
			t.Errorf("no error next to %q; shown: %v", k, e.Errs.Shown())
		}
	}
	if _, err := s.St.Tool(context.Background(), "runner"); err == nil {
		t.Fatal("an invalid tool was stored")
	}
}

func TestToolToggleDisables(t *testing.T) {
	m, s := newTestManager(t)
	ctx := context.Background()
	m.NewTool()
	e := m.Editor()
	fillTool(e, "t1")
	if !e.Save() {
		t.Fatalf("save: %v", e.Errs.Shown())
	}
	m.setEntryEnabled(catalogEntry{kind: entryTool, key: "t1"}, false)
	got, err := s.St.Tool(ctx, "t1")
	if err != nil || !got.Disabled {
		t.Fatalf("t1 = %+v, %v", got, err)
	}
	m.tools.search.SetText("zzz")
	if len(m.tools.shown) != 0 {
		t.Fatalf("search shows %v", m.tools.shown)
	}
}

func TestWelcomeDismissedByEscape(t *testing.T) {
	a := uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	m := NewManager(a, Config{Store: s.St, Approvals: s.Eng})
	t.Cleanup(m.win.Close)
	m.win.Show()
	next := false // the no-tray notice, which waits for the welcome
	m.showWelcome(func() { next = true })
	c := m.win.Canvas()
	if next {
		t.Fatal("what comes after the welcome came before it was closed")
	}
	if c.Overlays().Top() == nil {
		t.Fatal("no welcome")
	}
	c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if c.Overlays().Top() != nil {
		t.Fatal("Escape left the welcome open")
	}
	if !next {
		t.Error("closing the welcome did not bring what comes next")
	}
	if c.OnTypedKey() != nil {
		t.Error("the welcome's key handler outlived it")
	}
}

func TestSwitchingAwayAsksBeforeDiscardingChanges(t *testing.T) {
	a := uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	ctx := context.Background()
	for _, name := range []string{"alpha", "beta"} {
		if err := s.St.PutTool(ctx, testcatalog.RespondTool(name, "x")); err != nil {
			t.Fatal(err)
		}
	}
	m := NewManager(a, Config{Store: s.St, Approvals: s.Eng})
	t.Cleanup(m.win.Close)
	var asked []string
	answer := false
	m.ask = func(title, question string, reply func(bool)) {
		asked = append(asked, title)
		reply(answer)
	}
	selectTool := func(name string) {
		for i, e := range m.tools.shown {
			if e.key == name {
				m.tools.list.Select(i)
				return
			}
		}
		t.Fatalf("no %s in the list", name)
	}

	selectTool("alpha")
	selectTool("beta") // nothing changed: no question
	if len(asked) != 0 || m.Editor().Orig.Name != "beta" {
		t.Fatalf("asked %v, editing %q", asked, m.Editor().Orig.Name)
	}
	test.Type(m.Editor().Description, " and more")
	selectTool("alpha") // declined: beta stays, changes and all
	if len(asked) != 1 || m.Editor().Orig.Name != "beta" || !strings.Contains(m.Editor().Description.Text, " and more") {
		t.Fatalf("asked %v, editing %q (%q)", asked, m.Editor().Orig.Name, m.Editor().Description.Text)
	}
	if m.tools.open.key != "beta" {
		t.Errorf("the list shows %q open", m.tools.open.key)
	}
	m.NewTool() // declined too
	if len(asked) != 2 || m.Editor().IsNew {
		t.Fatalf("New tool replaced an editor with changes: asked %v", asked)
	}
	answer = true
	selectTool("alpha") // agreed: the changes go
	if len(asked) != 3 || m.Editor().Orig.Name != "alpha" {
		t.Fatalf("asked %v, editing %q", asked, m.Editor().Orig.Name)
	}
	if got, _ := s.St.Tool(ctx, "beta"); got.Description != "A test tool." {
		t.Errorf("beta was changed: %q", got.Description)
	}

	// The same for prompts: a saved editor has nothing to lose.
	m.NewPrompt()
	p := m.promptEditor
	test.Type(p.Name, "greet")
	test.Type(p.Description, "Greets.")
	test.Type(p.Messages.Items[0].Text.Entry, "Hello")
	if !p.Unsaved() || !p.Save() || p.Unsaved() {
		t.Fatalf("unsaved before/after saving: %v", p.Unsaved())
	}
	m.NewPrompt()
	if len(asked) != 3 {
		t.Fatalf("asked %v after a save", asked)
	}
}

func TestQuitAsksBeforeDiscardingChanges(t *testing.T) {
	a := uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	quits := newQuitWatch()
	u := newUI(a, Config{Store: s.St, Approvals: s.Eng, Server: s.D, Serving: quits, Tray: true})
	u.OpenManager()
	t.Cleanup(u.manager.win.Close)
	u.manager.NewTool()
	test.Type(u.manager.Editor().Name, "half_done")
	var asked int
	u.manager.ask = func(_, _ string, reply func(bool)) { asked++; reply(false) }
	u.Quit()
	quits.expect(t, false, "Quit with unsaved changes, kept")
	if asked != 1 {
		t.Fatalf("asked %d times", asked)
	}
	u.manager.ask = func(_, _ string, reply func(bool)) { asked++; reply(true) }
	u.Quit()
	quits.expect(t, true, "Quit with unsaved changes, discarded")
}

func TestSaveAfterDeleteDoesNotBringItBack(t *testing.T) {
	m, s := newTestManager(t)
	ctx := context.Background()
	m.NewTool()
	e := m.Editor()
	fillTool(e, "short_lived")
	if !e.Save() {
		t.Fatal("not saved")
	}
	// The list's toggle while the editor is open: a later save keeps it.
	m.setEntryEnabled(catalogEntry{kind: entryTool, key: "short_lived"}, false)
	test.Type(e.Description, "more ")
	if !e.Save() {
		t.Fatal("not saved")
	}
	if got, _ := s.St.Tool(ctx, "short_lived"); !got.Disabled {
		t.Fatal("saving the editor enabled the tool again")
	}
	e.Delete()
	if m.Editor() != nil || m.unsavedEditor() {
		t.Fatal("the deleted tool's editor is still the open one")
	}
	m.saveOpenEditor() // Ctrl+S
	if _, err := s.St.Tool(ctx, "short_lived"); err == nil {
		t.Fatal("Ctrl+S after a delete brought the tool back")
	}
}

// blockingTrier is a ToolTrier whose calls last until they are cancelled.
type blockingTrier struct{ cancelled chan string }

func (b blockingTrier) TryTool(ctx context.Context, name string, _ map[string]any) (editor.TryResult, error) {
	<-ctx.Done()
	b.cancelled <- name
	return editor.TryResult{}, ctx.Err()
}

func TestLeavingAToolCancelsItsTryIt(t *testing.T) {
	a := uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	ctx := context.Background()
	for _, name := range []string{"first", "second"} {
		if err := s.St.PutTool(ctx, testcatalog.RespondTool(name, "x")); err != nil {
			t.Fatal(err)
		}
	}
	tr := blockingTrier{cancelled: make(chan string, 1)}
	m := NewManager(a, Config{Store: s.St, Approvals: s.Eng, TryIt: tr})
	t.Cleanup(m.win.Close)
	m.tools.list.Select(0)
	first := m.Editor()
	first.Try.Run()
	// What selecting another tool, deleting it or importing does first.
	// (Called alone: on the test driver the cancelled call's fyne.Do runs
	// on its own goroutine, which must not overlap building the next
	// editor.)
	m.dropToolEditor()
	select {
	case name := <-tr.cancelled:
		if name != first.Orig.Name {
			t.Fatalf("cancelled %q", name)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the Try it call of the tool left behind still runs")
	}
	first.Try.Calls.Wait()
}

// TestWindowKeepsItsSize: the size the person leaves the window at comes
// back at the next start, within what the window needs; a first start, or
// a kept size that is no size, gets the default.
func TestWindowKeepsItsSize(t *testing.T) {
	a := uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	open := func() *Manager {
		m := NewManager(a, Config{Store: s.St, Approvals: s.Eng})
		t.Cleanup(m.win.Close)
		return m
	}
	if got := open().win.Canvas().Size(); got != defaultWindowSize {
		t.Fatalf("first start: %v, want %v", got, defaultWindowSize)
	}
	m := open()
	m.win.Resize(fyne.NewSize(800, 560))
	if got := open().win.Canvas().Size(); got != fyne.NewSize(800, 560) {
		t.Fatalf("next start: %v, want the 800×560 it was left at", got)
	}
	a.Preferences().SetFloat(prefWindowWidth, 10)
	a.Preferences().SetFloat(prefWindowHeight, 1e9)
	m = open()
	if got, need := m.win.Canvas().Size(), m.win.Content().MinSize(); got.Width < need.Width || got.Height != largestWindow.Height {
		t.Fatalf("kept 10×1e9: %v, want at least %v wide and %v high", got, need.Width, largestWindow.Height)
	}
	a.Preferences().SetFloat(prefWindowWidth, -5)
	if got := open().win.Canvas().Size(); got != defaultWindowSize {
		t.Fatalf("kept a negative width: %v, want %v", got, defaultWindowSize)
	}
}

// TestASizeFittedToTheScreenIsNotKept: a run at scale 1.5 on a 1366×768
// screen shrinks the window to fit; the next run, at scale 1.0, opens it
// no smaller than its default size, as that size was the screen's, not
// the person's.
func TestASizeFittedToTheScreenIsNotKept(t *testing.T) {
	a := uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	run := func(scale float32) fyne.Size {
		var u *UI
		u = newUI(a, Config{Store: s.St, Approvals: s.Eng, Server: s.D, Tray: true, Screen: func() (int, int) {
			// The scale a real driver knows once the window shows.
			u.manager.win.Canvas().(test.WindowlessCanvas).SetScale(scale)
			return 1366, 768
		}})
		u.welcomeDue = false
		u.OpenManager()
		t.Cleanup(u.manager.win.Close)
		return u.manager.win.Canvas().Size()
	}
	if got := run(1.5); got.Width > 900 || got.Height > 500 {
		t.Fatalf("at scale 1.5 on 1366×768: %v, want it shrunk to fit (about 879×480)", got)
	}
	if got := run(1); got.Width < defaultWindowSize.Width || got.Height < defaultWindowSize.Height {
		t.Fatalf("at scale 1.0 after a run at 1.5: %v, want at least the default %v", got, defaultWindowSize)
	}
}

// TestDiscardQuestion: leaving an editor with changes asks with Keep
// editing as the default, Discard set apart as the danger; Escape keeps
// editing.
func TestDiscardQuestion(t *testing.T) {
	m, _ := newTestManager(t)
	m.win.Resize(fyne.NewSize(900, 600))
	m.NewTool()
	test.Type(m.Editor().Name, "half_done")
	first := m.Editor()
	m.NewTool()
	c := m.win.Canvas()
	uitest.Sees(t, "the question", uitest.Seen(c.Overlays().Top()),
		"label: Discard changes?", "label: The entry you are editing has changes that are not saved. Discard them?",
		"button: Discard {danger}", "button: Keep editing {high}")
	c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if c.Overlays().Top() != nil || m.Editor() != first {
		t.Fatal("Escape did not keep the editor open with its changes")
	}
	m.NewTool()
	var discard *widget.Button
	uitest.Walk(c.Overlays().Top(), func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && b.Text == "Discard" {
			discard = b
		}
	})
	test.Tap(discard)
	if m.Editor() == first || m.Editor().Name.Text != "" {
		t.Fatal("Discard kept the old editor")
	}
}

// fillTool types a valid name, description and answer into e.
func fillTool(e *editor.ToolEditor, name string) {
	test.Type(e.Name, name)
	test.Type(e.Description, "A tool made in a test.")
	test.Type(e.Blocks.Items[0].Text.Entry, "done")
}
