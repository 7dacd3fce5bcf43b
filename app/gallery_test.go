package app

import (
	"context"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/catalog"
)

// TestGalleryOpensACopy: File ▸ New tool from an example lists the
// starter catalog's tools and the gallery's; the one chosen opens in the
// editor as a new tool, under a name no stored tool has, and saves as
// it is.
func TestGalleryOpensACopy(t *testing.T) {
	a := uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	taken := catalog.Tool{Name: "read_file", Description: "mine", Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "x"}}}}}
	if err := s.St.PutTool(context.Background(), taken); err != nil {
		t.Fatal(err)
	}
	m := NewManager(a, Config{Store: s.St, Approvals: s.Eng})
	t.Cleanup(m.win.Close)
	m.win.Resize(fyne.NewSize(1000, 700))
	g := m.showGallery()
	var names []string
	for _, tl := range g.tools {
		names = append(names, tl.Name)
	}
	if len(g.tools) < 17 || names[0] != "current_time" || !slices.Contains(names, "search_notes_rg") {
		t.Fatalf("the gallery offers %q", names)
	}
	if !g.open.Disabled() {
		t.Fatal("Open a copy before choosing")
	}
	i := slices.Index(names, "read_file")
	g.list.Select(i)
	if !strings.Contains(g.detail.Text, "Runs: cat -- {{.args.path}}") {
		t.Fatalf("the example is described as %q", g.detail.Text)
	}
	test.Tap(g.open)
	e := m.Editor()
	if e == nil || e.Name.Text != "read_file_2" || !e.IsNew || e.Command.Line.Entry.Text != "cat -- {{.args.path}}" {
		t.Fatalf("the editor opened on %+v", e)
	}
	if !e.Save() {
		t.Fatalf("the example does not save as it is: %q %v", e.Status.Text, e.Errs.Shown())
	}
	if mine, _ := s.St.Tool(context.Background(), "read_file"); mine.Description != "mine" {
		t.Fatalf("the stored read_file changed: %+v", mine)
	}
}
