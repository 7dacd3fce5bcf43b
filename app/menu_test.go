package app

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/app/link"
	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/internal/testcatalog"
	"github.com/mcptray/mcptray/internal/testutil"
)

// managerUI is the window process's UI with its manager window open, on a
// real server, with a tray host or without; quits hears of it quitting.
func managerUI(t *testing.T, a fyne.App, s *uitest.Served, tray bool, quits quitWatch) *UI {
	t.Helper()
	// Said once already: the window opens without the notice that there is
	// no tray (TestNoTraySaysHowToGetOneOnce).
	a.Preferences().SetBool(prefTrayHintShown, true)
	u := newUI(a, Config{Store: s.St, Approvals: s.Eng, Server: s.D, DB: "/home/me/.config/mcptray/mcptray.db", Version: "1.2.3",
		Serving: quits, Tray: tray, TrayHost: "test"})
	u.OpenManager()
	t.Cleanup(func() {
		if u.manager != nil { // closing with a tray closed it already
			u.manager.win.Close()
		}
	})
	return u
}

// quitWatch is the serving process as these tests see it: it records that
// the person quit, and keeps the window process from ending.
type quitWatch chan struct{}

func newQuitWatch() quitWatch { return make(quitWatch, 1) }

// Quit records that the person quit (Serving).
func (q quitWatch) Quit() { q <- struct{}{} }

// Closed forgets where the window was left (Serving).
func (quitWatch) Closed(link.View) {}

// Idle keeps the process (Serving).
func (quitWatch) Idle() bool { return false }

// expect fails t unless what made the app quit (want), or did not (!want).
func (q quitWatch) expect(t *testing.T, want bool, what string) {
	t.Helper()
	wait := testutil.Patience
	if !want {
		wait = 100 * time.Millisecond
	}
	select {
	case <-q:
		if !want {
			t.Fatalf("%s quit", what)
		}
	case <-time.After(wait):
		if want {
			t.Fatalf("%s did not quit", what)
		}
	}
}

// menuItem is the item labelled label of the window's menu named menu.
func menuItem(t *testing.T, u *UI, menu, label string) *fyne.MenuItem {
	t.Helper()
	for _, m := range u.manager.win.MainMenu().Items {
		if m.Label != menu {
			continue
		}
		for _, it := range m.Items {
			if it.Label == label {
				return it
			}
		}
	}
	t.Fatalf("no %s ▸ %s", menu, label)
	return nil
}

// labels are the labels of a menu's items ("" for a separator).
func labels(m *fyne.Menu) []string {
	var out []string
	for _, it := range m.Items {
		out = append(out, it.Label)
	}
	return out
}

func TestWindowMenuHasEveryCommand(t *testing.T) {
	a := uitest.NewTestApp(t)
	u := managerUI(t, a, uitest.NewServed(t), true, newQuitWatch())
	main := u.manager.win.MainMenu()
	var menus []string
	for _, m := range main.Items {
		menus = append(menus, m.Label)
	}
	want := map[string][]string{
		"File":   {"New tool", "New tool from an example…", "New tool from curl…", "New resource", "New prompt", "Add a server…", "", "Import catalog…", "Import from OpenAPI…", "Export catalog…", "", "Save", "", "Close window", "Quit"},
		"Server": {"Pause serving", "Copy address", "Connect a client", "", "No question waiting"},
		"View":   {"Tools", "Resources", "Prompts", "Servers", "Activity", "Settings", "", "Find", "Task window"},
		"Help":   {"About mcptray", "Open the documentation", "Copy diagnostics"},
	}
	if !slices.Equal(menus, []string{"File", "Server", "View", "Help"}) {
		t.Fatalf("menus %q", menus)
	}
	for _, m := range main.Items {
		if got := labels(m); !slices.Equal(got, want[m.Label]) {
			t.Errorf("%s: %q, want %q", m.Label, got, want[m.Label])
		}
	}
	// Quit is ours (Fyne adds its own only when none is marked), with the
	// orderly shutdown; the shortcuts are where a person looks for them.
	quit := menuItem(t, u, "File", "Quit")
	if !quit.IsQuit || quit.Shortcut != quitShortcut {
		t.Error("File ▸ Quit is not marked as the quit item, or has no Ctrl+Q")
	}
	for label, sc := range map[string]fyne.Shortcut{"Save": saveShortcut, "Close window": closeShortcut, "New tool": newShortcut} {
		if it := menuItem(t, u, "File", label); it.Shortcut != sc {
			t.Errorf("File ▸ %s has shortcut %v", label, it.Shortcut)
		}
	}
	// Connect a client ▸ is the tray's: a submenu per client.
	connect := menuItem(t, u, "Server", "Connect a client")
	if len(connect.ChildMenu.Items) == 0 || !slices.Equal(labels(connect.ChildMenu.Items[0].ChildMenu), []string{"Copy the entry", "Install…", "Show the entry…"}) {
		t.Errorf("Connect a client ▸ %q", labels(connect.ChildMenu))
	}
}

func TestWindowMenuFollowsTheWindow(t *testing.T) {
	a := uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	u := managerUI(t, a, s, true, newQuitWatch())
	m := u.manager
	save := menuItem(t, u, "File", "Save")
	if !save.Disabled {
		t.Error("Save is enabled with no editor open")
	}
	if err := s.St.PutTool(context.Background(), testcatalog.RespondTool("alpha", "x")); err != nil {
		t.Fatal(err)
	}
	m.reloadEntries()
	m.tools.list.Select(0) // an entry opened from the list
	if m.editor == nil || save.Disabled {
		t.Fatalf("a tool opened from the list: editor %v, Save disabled %v", m.editor != nil, save.Disabled)
	}
	menuItem(t, u, "File", "New prompt").Action()
	if m.tabs.Selected().Text != "Prompts" || m.promptEditor == nil || save.Disabled {
		t.Fatalf("New prompt: tab %q, editor %v, Save disabled %v", m.tabs.Selected().Text, m.promptEditor != nil, save.Disabled)
	}
	// Ctrl+N goes with the tab shown.
	if menuItem(t, u, "File", "New prompt").Shortcut != newShortcut || menuItem(t, u, "File", "New tool").Shortcut != nil {
		t.Error("Ctrl+N is not on New prompt while Prompts is shown")
	}
	activity := menuItem(t, u, "View", "Activity")
	activity.Action()
	if m.tabs.Selected().Text != "Activity" || !activity.Checked || menuItem(t, u, "View", "Tools").Checked {
		t.Errorf("View ▸ Activity: tab %q, checked %v", m.tabs.Selected().Text, activity.Checked)
	}
	if !save.Disabled || menuItem(t, u, "File", "New prompt").Shortcut != nil {
		t.Error("on the Activity tab Save is enabled, or Ctrl+N still creates a prompt")
	}
	menuItem(t, u, "View", "Find").Action()
	if m.win.Canvas().Focused() != m.activity.search {
		t.Error("Find did not focus the activity's search box")
	}
	menuItem(t, u, "View", "Settings").Action()
	if !menuItem(t, u, "View", "Find").Disabled || save.Disabled {
		t.Error("on Settings Find is enabled (no search box), or Save disabled")
	}

	pause := menuItem(t, u, "Server", "Pause serving")
	pause.Action()
	if !s.D.Paused() || pause.Label != "Resume serving" {
		t.Fatalf("Server ▸ Pause: paused %v, label %q", s.D.Paused(), pause.Label)
	}
	pause.Action()
	if s.D.Paused() {
		t.Fatal("Resume serving did not resume")
	}
	menuItem(t, u, "Server", "Copy address").Action()
	if got := a.Clipboard().Content(); got != s.D.URL() {
		t.Errorf("Copy address copied %q", got)
	}
}

func TestWindowMenuRaisesTheQuestion(t *testing.T) {
	a := uitest.NewTestApp(t)
	u := managerUI(t, a, uitest.NewServed(t), false, newQuitWatch())
	question := menuItem(t, u, "Server", "No question waiting")
	if !question.Disabled {
		t.Error("the question item is enabled with no question")
	}
	ctx, withdraw := context.WithCancel(t.Context())
	defer withdraw()
	call := ask(ctx, u.Asker, wipeQuestion())
	p := shownQuestion(t, u.Asker, "files.wipe")
	fyne.DoAndWait(u.stateChanged)
	if question.Disabled || question.Label != "A question is waiting for you…" {
		t.Fatalf("with a question: %q, disabled %v", question.Label, question.Disabled)
	}
	inUI(u.Asker, func() { p.win.Hide() })
	question.Action()
	if focused(u.Asker, p) == nil {
		t.Error("Server ▸ question did not bring the question's window back")
	}
	withdraw()
	_, _ = call.wait(t)
}

func TestHelpMenu(t *testing.T) {
	a := uitest.NewRecordingApp(t)
	s := uitest.NewServed(t)
	u := managerUI(t, a, s, false, newQuitWatch())
	menuItem(t, u, "Help", "Copy diagnostics").Action()
	diag := a.Clipboard().Content()
	for _, want := range []string{"Version: 1.2.3\n", "Database: /home/me/.config/mcptray/mcptray.db\n", "Serving on: " + s.D.URL() + "\n",
		"Tray icon: none on this desktop: closing the window quits mcptray\n", "Tray host: test\n", "Secrets kept in: not available\n", "System: "} {
		if !strings.Contains(diag, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, diag)
		}
	}
	menuItem(t, u, "Help", "Open the documentation").Action()
	if len(a.Opened) != 1 || a.Opened[0] != docsURL {
		t.Errorf("opened %q", a.Opened)
	}
	menuItem(t, u, "Help", "About mcptray").Action()
	uitest.Sees(t, "About", uitest.Seen(u.manager.win.Canvas().Overlays().Top()),
		"label: About mcptray", "text: Version", "label: 1.2.3", "text: Database", "label: /home/me/.config/mcptray/mcptray.db",
		"text: Serving on", "label: "+s.D.URL(), "text: Tray icon", "label: none on this desktop: closing the window quits mcptray", "button: Close")
}

func TestKeyboardShortcuts(t *testing.T) {
	a := uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	quits := newQuitWatch()
	u := managerUI(t, a, s, true, quits)
	m := u.manager
	typed := m.win.Canvas().(interface{ TypedShortcut(fyne.Shortcut) })
	typed.TypedShortcut(newShortcut) // on Tools: a new tool
	e := m.Editor()
	if e == nil || !e.IsNew {
		t.Fatal("Ctrl+N opened no new tool")
	}
	test.Type(e.Name, "by_keyboard")
	test.Type(e.Description, "Saved with Ctrl+S.")
	test.Type(e.Blocks.Items[0].Text.Entry, "ok")
	typed.TypedShortcut(saveShortcut)
	if _, err := s.St.Tool(context.Background(), "by_keyboard"); err != nil {
		t.Fatalf("Ctrl+S did not save: %v (%s)", err, e.Status.Text)
	}
	for i, key := range tabKeys {
		typed.TypedShortcut(&desktop.CustomShortcut{KeyName: key, Modifier: fyne.KeyModifierShortcutDefault})
		if got := m.tabs.SelectedIndex(); got != i {
			t.Errorf("Ctrl+%d shows tab %d", i+1, got)
		}
	}
	typed.TypedShortcut(newShortcut) // on Settings: nothing to create
	typed.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.Key1, Modifier: fyne.KeyModifierShortcutDefault})
	typed.TypedShortcut(findShortcut)
	if m.win.Canvas().Focused() != m.tools.search {
		t.Error("Ctrl+F did not focus the tool search")
	}
	closed := false
	m.SetCloseIntercept(func() { closed = true })
	typed.TypedShortcut(closeShortcut)
	if !closed {
		t.Fatal("Ctrl+W did not close the window")
	}
	typed.TypedShortcut(quitShortcut)
	quits.expect(t, true, "Ctrl+Q")
}

func TestClosingWithoutATrayAsksToQuit(t *testing.T) {
	a := uitest.NewTestApp(t)
	quits := newQuitWatch()
	u := managerUI(t, a, uitest.NewServed(t), false, quits)
	m := u.manager
	c := m.win.Canvas()
	quitDialog := func() fyne.CanvasObject {
		m.closeWindow()
		d := c.Overlays().Top()
		if d == nil {
			t.Fatal("closing the window asked nothing")
		}
		return d
	}
	uitest.Sees(t, "the question on closing", uitest.Seen(quitDialog()), "label: Quit mcptray?",
		"label: The server stops and AI apps lose their tools until you start mcptray again.",
		"button: Quit mcptray {danger}", "button: Cancel {high}")
	cancel, ok := c.Focused().(*ui.EscButton)
	if !ok || cancel.Text != "Cancel" {
		t.Fatalf("the focus is on %v, want Cancel", c.Focused())
	}
	// As the driver does: the key goes to the focused widget.
	cancel.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if c.Overlays().Top() != nil {
		t.Fatal("Escape left the question open")
	}
	quitDialog()
	c.Unfocus() // the person clicked beside the buttons
	c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if c.Overlays().Top() != nil {
		t.Fatal("Escape left the question open when nothing had the focus")
	}
	quits.expect(t, false, "Escape")

	// With changes in an editor, the question says they go too.
	m.NewTool()
	test.Type(m.Editor().Name, "half_done")
	d := quitDialog()
	uitest.Sees(t, "with unsaved changes", uitest.Seen(d), "label: Quit mcptray?",
		`re:(?s)label: The server stops .*\n\nThe editor has changes that are not saved: they are lost\.`)
	var quit *widget.Button
	uitest.Walk(d, func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && b.Text == "Quit mcptray" {
			quit = b
		}
	})
	test.Tap(quit)
	quits.expect(t, true, "Quit mcptray")
}

func TestNoTraySaysHowToGetOneOnce(t *testing.T) {
	a := uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	t.Setenv("XDG_CURRENT_DESKTOP", "ubuntu:GNOME")
	u := newUI(a, Config{Store: s.St, Approvals: s.Eng, Server: s.D})
	u.OpenManager()
	t.Cleanup(func() { u.manager.win.Close() })
	uitest.Sees(t, "the notice", uitest.Seen(u.manager.win.Canvas().Overlays().Top()), "label: No tray icon on this desktop",
		"re:(?s)label: .*closing it quits mcptray and stops the server.*“AppIndicator and KStatusNotifierItem Support”.*"+
			"sudo apt install gnome-shell-extension-appindicator.*",
		"button: OK")
	u.manager.win.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if top := u.manager.win.Canvas().Overlays().Top(); top != nil {
		t.Errorf("Escape left the notice open: %q", uitest.Seen(top))
	}

	again := newUI(a, Config{Store: s.St, Approvals: s.Eng, Server: s.D})
	again.OpenManager()
	t.Cleanup(func() { again.manager.win.Close() })
	if top := again.manager.win.Canvas().Overlays().Top(); top != nil {
		t.Errorf("said again: %q", uitest.Seen(top))
	}

	for desk, want := range map[string]string{"KDE": "System Tray widget", "i3": "StatusNotifierItem", "": "StatusNotifierItem"} {
		if got := trayHowTo(desk); !strings.Contains(got, want) {
			t.Errorf("trayHowTo(%q) = %q, want it to mention %q", desk, got, want)
		}
		// The technical name comes second, after what to run.
		if i := strings.Index(trayHowTo(desk), "StatusNotifierItem"); i >= 0 && i < strings.Index(trayHowTo(desk), "waybar") {
			t.Errorf("trayHowTo(%q) leads with StatusNotifierItem: %q", desk, trayHowTo(desk))
		}
	}
}
