package app

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/internal/testcatalog"
	"github.com/mcptray/mcptray/internal/testserver"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/mcpcore/actions"
)

// trayUI is the desktop app with a tray host, its window open, on a
// server whose catalog has the tools echo and wipe and the prompt greet.
func trayUI(t *testing.T) (*UI, fyne.App) {
	t.Helper()
	a := test.NewTempApp(t)
	return managerUI(t, a, echoWipeGreet(t), true, nil), a
}

// echoWipeGreet is a server whose catalog has the tools echo and wipe and
// the prompt greet.
func echoWipeGreet(t *testing.T) *served {
	t.Helper()
	cat := &mcpcore.Catalog{Format: mcpcore.CatalogFormat, Version: mcpcore.CatalogVersion,
		Tools: []mcpcore.Tool{testcatalog.RespondTool("echo", "hi"), testcatalog.RespondTool("wipe", "wiped")},
		Prompts: []mcpcore.Prompt{{Name: "greet", Description: "Says hello.",
			Messages: []mcpcore.PromptMessage{{Role: "user", Content: actions.Content{Type: "text", Text: "hello"}}}}}}
	return servedBy(testserver.Start(t, testserver.Options{Catalog: cat}))
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

// closedFor waits until win is closed for good.
func closedFor(t *testing.T, a fyne.App, win fyne.Window) {
	t.Helper()
	testutil.Eventually(t, "the window closed", func() bool { return !windowOpen(a, win) })
}

func TestClosingToTheTrayDestroysTheWindowAndReopensItWhereLeft(t *testing.T) {
	u, a := trayUI(t)
	m := u.manager
	selectEntry(t, m.tools, "wipe")
	m.tabs.SelectIndex(2) // Prompts
	test.Type(m.prompts.search, "gre")
	selectEntry(t, m.prompts, "greet")
	m.closeWindow()

	if m.win.Canvas().Overlays().Top() != nil {
		t.Error("closing the window asked something")
	}
	if u.manager != nil || u.winMenu != nil {
		t.Fatal("the manager was kept after a close with nothing to lose")
	}
	closedFor(t, a, m.win)
	if m.life.Err() == nil {
		t.Error("what the manager follows was not stopped")
	}

	u.OpenManager()
	n := u.manager
	if n == nil || n == m {
		t.Fatal("opening again did not build a new window")
	}
	if tab := n.tabs.Selected(); tab == nil || tab.Text != "Prompts" {
		t.Errorf("reopened on tab %v, want Prompts", tab)
	}
	if n.editor == nil || n.editor.orig.Name != "wipe" {
		t.Errorf("the tool editor open is %v, want wipe's", n.editor)
	}
	if n.promptEditor == nil || n.prompts.open.key != "greet" || n.prompts.search.Text != "gre" {
		t.Errorf("the prompts tab came back with %+v and search %q, want greet open and search %q", n.prompts.open, n.prompts.search.Text, "gre")
	}
	if sel := n.prompts.shown; len(sel) != 1 || sel[0].key != "greet" {
		t.Errorf("the prompt list shows %v, want only greet", sel)
	}
	if u.winMenu == nil || u.winMenu.m != n {
		t.Error("the new window has no menu of its own")
	}
}

func TestAnEntryDeletedWhileTheWindowWasClosedIsNotOpened(t *testing.T) {
	u, a := trayUI(t)
	m := u.manager
	selectEntry(t, m.tools, "wipe")
	m.closeWindow()
	closedFor(t, a, m.win)
	if err := m.cfg.Store.DeleteTool(t.Context(), "wipe"); err != nil {
		t.Fatal(err)
	}
	u.OpenManager()
	n := u.manager
	if n.editor != nil {
		t.Errorf("the editor of the deleted tool %q opened", n.editor.orig.Name)
	}
	if n.win.Canvas().Overlays().Top() != nil {
		t.Error("reopening showed a dialog (an error about the deleted tool?)")
	}
}

func TestClosingToTheTrayKeepsWork(t *testing.T) {
	for name, leave := range map[string]func(*testing.T, *Manager){
		"an unsaved tool": func(t *testing.T, m *Manager) {
			selectEntry(t, m.tools, "echo")
			test.Type(m.editor.description, " More.")
		},
		"unsaved settings": func(t *testing.T, m *Manager) {
			m.tabs.SelectIndex(4)
			test.Type(m.settings.title, "My tools")
		},
		"a dialog": func(t *testing.T, m *Manager) {
			m.showGallery()
		},
	} {
		t.Run(name, func(t *testing.T) {
			u, a := trayUI(t)
			m := u.manager
			leave(t, m)
			if m.work() == "" {
				t.Fatal("the window says it holds nothing")
			}
			m.closeWindow()
			if u.manager != m {
				t.Fatal("the window was destroyed, and its work with it")
			}
			if !windowOpen(a, m.win) {
				t.Fatal("the window was closed, not hidden")
			}
			u.OpenManager()
			if m.work() == "" {
				t.Error("the work was gone when the window came back")
			}
		})
	}
}

func TestAWindowJustOpenedHoldsNoWork(t *testing.T) {
	u, _ := trayUI(t)
	m := u.manager
	selectEntry(t, m.tools, "echo")
	m.tabs.SelectIndex(4)
	if w := m.work(); w != "" {
		t.Errorf("a window just opened holds work: %s", w)
	}
	test.Type(m.settings.title, "x")
	if !m.settings.Unsaved() {
		t.Error("a typed title is not an unsaved change")
	}
	if !m.settings.Save() || m.settings.Unsaved() {
		t.Error("saved settings still count as unsaved")
	}
}

func TestADestroyedWindowStopsFollowing(t *testing.T) {
	u, a := trayUI(t)
	m := u.manager
	m.tabs.SelectIndex(3) // Activity: follows the log
	m.closeWindow()
	closedFor(t, a, m.win)
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

func TestClosingToTheTrayLetsTheFontsGoUnlessTheWindowIsBack(t *testing.T) {
	u, a := trayUI(t)
	var themeSet atomic.Int32
	// Setting the theme again is how dropFonts clears Fyne's font cache;
	// the settings' listeners hear it.
	a.Settings().AddListener(func(fyne.Settings) { themeSet.Add(1) })

	// Closed and opened again before the fonts would go: the window shown
	// keeps them.
	u.manager.closeWindow()
	u.OpenManager()
	time.Sleep(dropFontsAfterClose + 500*time.Millisecond)
	if n := themeSet.Load(); n != 0 {
		t.Fatalf("the theme was set %d times while the window was open again", n)
	}

	u.manager.closeWindow()
	testutil.Eventually(t, "the fonts let go after the window closed", func() bool { return themeSet.Load() == 1 })
}
