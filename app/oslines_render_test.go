package app

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/app/ui"
)

// TestRenderWindowsLine: the starter's current_time, opened from the
// gallery, shows under its command line what it runs on Windows
// instead, in a window of a laptop's size, in both themes (MCPTRAY_SHOTS
// keeps the pictures).
func TestRenderWindowsLine(t *testing.T) {
	m, _ := newTestManager(t)
	m.win.Resize(fyne.NewSize(1366, 768))
	m.win.Show()
	g := m.showGallery()
	var names []string
	for _, tl := range g.tools {
		names = append(names, tl.Name)
	}
	g.list.Select(slices.Index(names, "current_time"))
	test.Tap(g.open)
	e := m.Editor()
	if e == nil || !strings.HasPrefix(e.Command.WinLine.Entry.Text, "cmd /d /c 'powershell ") {
		t.Fatalf("the editor opened on %+v", e)
	}
	for _, v := range []struct {
		name    string
		variant fyne.ThemeVariant
	}{{"light", theme.VariantLight}, {"dark", theme.VariantDark}} {
		test.ApplyTheme(t, ui.ThemeVariant(v.variant))
		// The Windows line at the top of the form's view.
		pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(e.Command.WinLine.Entry)
		top := fyne.CurrentApp().Driver().AbsolutePositionForObject(e.Scroll)
		e.Scroll.ScrollToOffset(fyne.NewPos(0, e.Scroll.Offset.Y+pos.Y-top.Y-300))
		uitest.Capture(t, m.win, "tool-editor-windows-line-"+v.name+".png")
	}
}
