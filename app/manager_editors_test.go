package app

import (
	"context"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/editor"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testcatalog"
)

// TestEditorsFitASmallScreen opens every part of the tool editor at once
// (a list parameter, a command, a step of each kind, Try it and the raw
// schemas) and the other editors on a new entry: the window still fits an
// 800×600 screen, its forms scrolling instead.
func TestEditorsFitASmallScreen(t *testing.T) {
	m, _ := newTestManager(t)
	m.ask = func(_, _ string, discard func(bool)) { discard(true) }
	test.ApplyTheme(t, theme.DefaultTheme())
	m.win.Resize(fyne.NewSize(760, 540))
	m.win.Show()
	m.NewTool()
	e := m.Editor()
	e.SetTrier(blockingTrier{})
	e.AddParam(catalog.Param{Name: "files", Type: "array", Items: "integer", Description: "The files to read, one by one"})
	e.ActionKind.SetSelected(editor.KindCommand)
	for _, k := range catalog.StepKinds {
		e.Steps.Add(catalog.InputStep{Key: k, Kind: k})
	}
	e.Description.SetText(strings.Repeat("A description that goes on and on. ", 40))
	e.Advanced.Open()
	e.TryBox.Open()
	fitsSmallScreen(t, m, "tools")
	uitest.InView(t, m.win, "Save")

	m.tabs.SelectIndex(1)
	m.NewResource()
	m.resEditor.Source.SetSelected(editor.SrcCommand)
	fitsSmallScreen(t, m, "resources")
	m.NewTemplate()
	m.tmplEditor.UriTemplate.SetText("notes://{year}/{month}/{day}")
	fitsSmallScreen(t, m, "resources")
	m.tabs.SelectIndex(2)
	m.NewPrompt()
	m.promptEditor.AddArg(catalog.PromptArgument{Name: "topic", Completions: []string{"work", "home"}})
	fitsSmallScreen(t, m, "prompts")
	uitest.InView(t, m.win, "Save")
}

// TestSaveShowsEveryProblemAtOnce: Save shows all the problems of the
// form together, the taken name among them, counts what it shows, and
// takes the person to the first one; fixed, the next one far down the
// form gets the focus, scrolled into view.
func TestSaveShowsEveryProblemAtOnce(t *testing.T) {
	m, s := newTestManager(t)
	if err := s.St.PutTool(context.Background(), testcatalog.RespondTool("taken", "x")); err != nil {
		t.Fatal(err)
	}
	m.win.Resize(fyne.NewSize(760, 540))
	m.win.Show()
	m.NewTool()
	e := m.Editor()
	test.Type(e.Name, "taken")
	test.Type(e.Blocks.Items[0].Text.Entry, "done")
	e.Steps.Add(catalog.InputStep{Key: "ok", Kind: catalog.StepApproval, Message: "Go on?"})
	e.Steps.Add(catalog.InputStep{Kind: catalog.StepApproval, Message: "Sure?"}) // no key
	if e.Save() {
		t.Fatal("saved")
	}
	shown := ui.ShownProblems(e.Scroll)
	if len(shown) != 3 || !strings.HasPrefix(e.Status.Text, "Not saved: 3 problems,") {
		t.Fatalf("status %q; shown %q", e.Status.Text, shown)
	}
	if !strings.Contains(e.Errs["name"].Text, "exists already") || !e.Errs["description"].Visible() || !e.Steps.Items[1].KeyErr.Visible() {
		t.Errorf("not all at once: name %q, description %q, step's key %q", e.Errs["name"].Text, e.Errs["description"].Text, e.Steps.Items[1].KeyErr.Text)
	}
	if got := m.win.Canvas().Focused(); got != e.Name || e.Scroll.Offset.Y != 0 {
		t.Errorf("focused %T at offset %v, want the name at the top", got, e.Scroll.Offset)
	}

	e.Name.SetText("free")
	e.Description.SetText("Described.")
	if e.Save() {
		t.Fatal("saved with a step without a key")
	}
	if shown := ui.ShownProblems(e.Scroll); len(shown) != 1 || !strings.HasPrefix(e.Status.Text, "Not saved: 1 problem,") {
		t.Fatalf("status %q; shown %q", e.Status.Text, shown)
	}
	if focused := m.win.Canvas().Focused(); focused != e.Steps.Items[1].Key || e.Scroll.Offset.Y == 0 {
		t.Errorf("focused %T %v at offset %v, want the step's key", focused, focused, e.Scroll.Offset)
	}
	uitest.Capture(t, m.win, "tool-editor-problem.png")
}

// TestTheFormScrollsUnderTheWheel: the mouse wheel over a field scrolls
// the form, unless the field has more text than it shows, which it then
// scrolls itself; opening Advanced brings it into view.
func TestTheFormScrollsUnderTheWheel(t *testing.T) {
	m, _ := newTestManager(t)
	m.win.Resize(fyne.NewSize(760, 540))
	m.win.Show()
	m.NewTool()
	e := m.Editor()
	for _, k := range catalog.StepKinds {
		e.Steps.Add(catalog.InputStep{Key: k, Kind: k})
	}
	c := m.win.Canvas()
	wheel := func(over fyne.CanvasObject) float32 {
		e.Scroll.ScrollToTop()
		pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(over).AddXY(5, 5)
		test.Scroll(c, pos, 0, -60)
		return e.Scroll.Offset.Y
	}
	if wheel(e.Name) == 0 {
		t.Error("the wheel over the name does not scroll the form")
	}
	if wheel(e.Description) == 0 {
		t.Error("the wheel over the empty description does not scroll the form")
	}
	e.Description.SetText(strings.Repeat("A line of its own.\n", 30))
	if wheel(e.Description) != 0 {
		t.Error("the wheel over a description longer than its field scrolls the form, not the text")
	}

	e.Scroll.ScrollToTop()
	e.Advanced.Open()
	var at fyne.Position
	for _, p := range ui.ShownUnder(e.Scroll.Content) {
		if p.Obj == e.Advanced.Box {
			at = p.At
		}
	}
	if view := e.Scroll.Size().Height; at.Y < e.Scroll.Offset.Y || at.Y+min(e.Advanced.Box.Size().Height, view) > e.Scroll.Offset.Y+view {
		t.Errorf("Advanced opened at %v, out of the view %v–%v", at.Y, e.Scroll.Offset.Y, e.Scroll.Offset.Y+view)
	}
}
