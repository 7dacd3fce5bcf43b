package app

import (
	"context"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
)

// highlighted is the key of the tool the list highlights, "" for none.
func highlighted(m *Manager) string {
	e, _ := m.tools.selectedEntry()
	return e.key
}

// openListed opens a stored tool by selecting it in the list, as a click
// does.
func openListed(t *testing.T, m *Manager, name string) {
	t.Helper()
	i := slices.IndexFunc(m.tools.shown, func(e catalogEntry) bool { return e.key == name })
	if i < 0 {
		t.Fatalf("%s is not listed: %v", name, m.tools.shown)
	}
	m.tools.list.Select(i)
	if e := m.Editor(); e == nil || e.Name.Text != name || highlighted(m) != name {
		t.Fatalf("selecting %s left the list highlighting %q", name, highlighted(m))
	}
}

// TestHighlightFollowsTheEditor: the list highlights the tool the editor
// shows — a tool made from curl, opened once created; none while an
// example is a new tool not yet saved; the example once saved — and never
// the tool open before.
func TestHighlightFollowsTheEditor(t *testing.T) {
	m, s := newImportManager(t, fyne.NewSize(1000, 700))
	before := catalog.Tool{Name: "before", Description: "Open first.", Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "x"}}}}}
	if err := s.St.PutTool(context.Background(), before); err != nil {
		t.Fatal(err)
	}
	m.reloadEntries()
	openListed(t, m, "before")

	api := testutil.NewAPI(t)
	c := m.showCurlImport()
	c.name.SetText("from_curl")
	c.command.SetText("curl " + api.URL + "/v1/items")
	test.Tap(c.create)
	m.background.Wait()
	if e := m.Editor(); e == nil || e.Name.Text != "from_curl" {
		t.Fatalf("the editor shows %v after Create tool", e)
	}
	if got := highlighted(m); got != "from_curl" {
		t.Errorf("after Create tool from curl the list highlights %q, want from_curl", got)
	}

	openListed(t, m, "before")
	g := m.showGallery()
	g.list.Select(0)
	test.Tap(g.open)
	if got := highlighted(m); got != "" {
		t.Errorf("with an example open as a new tool the list highlights %q, want none", got)
	}
	if !m.Editor().Save() {
		t.Fatalf("the example does not save: %q", m.Editor().Status.Text)
	}
	if got, want := highlighted(m), m.Editor().Name.Text; got != want {
		t.Errorf("after saving the example the list highlights %q, want %q", got, want)
	}
}
