package app

import (
	"cmp"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/words"
)

// docsURL is the documentation Help ▸ Open the documentation opens: the
// README, which the release archive does not install anywhere a local copy
// could be found.
const docsURL = "https://github.com/mcptray/mcptray#readme"

// Keyboard shortcuts of the manager window: Ctrl, or ⌘ on macOS, with N
// (a new entry on the catalog tab shown), S (save the editor shown), W
// (close the window), Q (quit), F (the search box of the tab shown) and
// 1 to 6 (the tabs).
var (
	newShortcut   = &desktop.CustomShortcut{KeyName: fyne.KeyN, Modifier: fyne.KeyModifierShortcutDefault}
	saveShortcut  = &desktop.CustomShortcut{KeyName: fyne.KeyS, Modifier: fyne.KeyModifierShortcutDefault}
	closeShortcut = &desktop.CustomShortcut{KeyName: fyne.KeyW, Modifier: fyne.KeyModifierShortcutDefault}
	quitShortcut  = &desktop.CustomShortcut{KeyName: fyne.KeyQ, Modifier: fyne.KeyModifierShortcutDefault}
	findShortcut  = &desktop.CustomShortcut{KeyName: fyne.KeyF, Modifier: fyne.KeyModifierShortcutDefault}
)

// tabKeys are the keys of Ctrl+1…6, in the tabs' order.
var tabKeys = []fyne.KeyName{fyne.Key1, fyne.Key2, fyne.Key3, fyne.Key4, fyne.Key5, fyne.Key6}

// windowMenu is the manager window's menu bar. It holds every command of
// the app, so that the app is whole without a tray: File, Server, View and
// Help. Fyne draws it in the window on Linux and Windows, and in the menu
// bar on macOS.
type windowMenu struct {
	u    *UI
	m    *Manager
	main *fyne.MainMenu

	// The File menu's New items; the one for the tab shown carries Ctrl+N.
	newTool, newResource, newPrompt *fyne.MenuItem
	newServer                       *fyne.MenuItem
	export, importItem, save        *fyne.MenuItem
	pause, copyAddr, question       *fyne.MenuItem
	// tabs are View's items of the tabs; find is View ▸ Find.
	tabs []*fyne.MenuItem
	find *fyne.MenuItem
	// shown is what the items showed at the last update, to redraw the
	// menu bar only when that changed.
	shown string
}

// newWindowMenu gives m's window its menu bar and keyboard shortcuts.
func (u *UI) newWindowMenu(m *Manager) *windowMenu {
	w := &windowMenu{u: u, m: m}
	w.newTool = fyne.NewMenuItem("New tool", w.does(func() { w.showTab("Tools"); m.NewTool() }))
	w.newResource = fyne.NewMenuItem("New resource", w.does(func() { w.showTab("Resources"); m.NewResource() }))
	w.newPrompt = fyne.NewMenuItem("New prompt", w.does(func() { w.showTab("Prompts"); m.NewPrompt() }))
	w.newServer = fyne.NewMenuItem("Add a server…", w.does(func() { w.showTab("Servers"); m.servers.ShowAdd() }))
	w.importItem = fyne.NewMenuItem("Import catalog…", w.does(m.chooseImport))
	// The importers (curlimport.go, openapiimport.go) make tools: they
	// show the Tools tab, where what they make appears.
	fromCurl := fyne.NewMenuItem("New tool from curl…", w.does(func() { w.showTab("Tools"); m.showCurlImport() }))
	fromOpenAPI := fyne.NewMenuItem("Import from OpenAPI…", w.does(func() { w.showTab("Tools"); m.chooseOpenAPI() }))
	fromCurl.Disabled, fromOpenAPI.Disabled = u.cfg.Store == nil, u.cfg.Store == nil
	fromExample := fyne.NewMenuItem("New tool from an example…", w.does(func() { w.showTab("Tools"); m.showGallery() }))
	fromExample.Disabled = u.cfg.Store == nil
	w.export = fyne.NewMenuItem("Export catalog…", w.does(m.chooseExport))
	w.save = fyne.NewMenuItem("Save", w.does(m.saveOpenEditor))
	w.save.Shortcut = saveShortcut
	closeItem := fyne.NewMenuItem("Close window", m.closeWindow)
	closeItem.Shortcut = closeShortcut
	quit := fyne.NewMenuItem("Quit", u.Quit)
	quit.Shortcut = quitShortcut
	// Marked, Fyne adds no Quit of its own, which would end the app
	// without stopping the server first.
	quit.IsQuit = true
	file := fyne.NewMenu("File", w.newTool, fromExample, fromCurl, w.newResource, w.newPrompt, w.newServer,
		fyne.NewMenuItemSeparator(), w.importItem, fromOpenAPI, w.export,
		fyne.NewMenuItemSeparator(), w.save,
		fyne.NewMenuItemSeparator(), closeItem, quit)

	w.pause = fyne.NewMenuItem("Pause serving", w.does(w.togglePause))
	w.copyAddr = fyne.NewMenuItem("Copy address", w.does(w.copyAddress))
	connect := fyne.NewMenuItem("Connect a client", nil)
	connect.ChildMenu = fyne.NewMenu("", u.connectItems()...)
	w.question = fyne.NewMenuItem("", w.does(func() { u.Asker.Raise() }))
	server := fyne.NewMenu("Server", w.pause, w.copyAddr, connect,
		fyne.NewMenuItemSeparator(), w.question)

	var viewItems []*fyne.MenuItem
	for i, tab := range m.tabs.Items {
		it := fyne.NewMenuItem(tab.Text, w.does(func() { m.tabs.Select(tab) }))
		it.Shortcut = &desktop.CustomShortcut{KeyName: tabKeys[i], Modifier: fyne.KeyModifierShortcutDefault}
		w.tabs = append(w.tabs, it)
		viewItems = append(viewItems, it)
	}
	w.find = fyne.NewMenuItem("Find", w.focusSearch)
	w.find.Shortcut = findShortcut
	tasks := fyne.NewMenuItem("Task window", func() { u.ShowTaskWindow() })
	tasks.Disabled = u.cfg.Tasks == nil
	view := fyne.NewMenu("View", append(viewItems, fyne.NewMenuItemSeparator(), w.find, tasks)...)

	help := fyne.NewMenu("Help",
		fyne.NewMenuItem("About mcptray", w.about),
		fyne.NewMenuItem("Open the documentation", w.openDocs),
		fyne.NewMenuItem("Copy diagnostics", w.copyDiagnostics))

	w.main = fyne.NewMainMenu(file, server, view, help)
	w.update()
	m.win.SetMainMenu(w.main)
	// Fyne's desktop driver runs the menu's shortcuts even while a text
	// field has the focus; the canvas has them too for drivers without a
	// menu bar (and for Ctrl+N on a tab that creates nothing).
	c := m.win.Canvas()
	c.AddShortcut(newShortcut, func(fyne.Shortcut) { w.newEntry() })
	for _, menu := range w.main.Items {
		for _, it := range menu.Items {
			if it.Shortcut != nil && it.Shortcut != newShortcut {
				c.AddShortcut(it.Shortcut, func(fyne.Shortcut) { it.Action() })
			}
		}
	}
	// Save and Ctrl+N follow the tab shown and the editor open in it at
	// once; the rest follows the server as the tray's watch sees it change.
	prev := m.tabs.OnSelected
	m.tabs.OnSelected = func(t *container.TabItem) {
		if prev != nil {
			prev(t)
		}
		w.update()
	}
	for _, p := range []*entryPane{m.tools, m.resources, m.prompts} {
		open := p.onOpen
		p.onOpen = func(e catalogEntry) {
			open(e)
			w.update()
		}
	}
	return w
}

// does wraps a command so that the menu shows the state it leaves.
func (w *windowMenu) does(f func()) func() {
	return func() {
		f()
		w.update()
	}
}

// update sets the items' labels, which are enabled and where Ctrl+N goes,
// and redraws the menu bar when that changed. Shortcuts run an item even
// when it is disabled: each command checks for itself.
func (w *windowMenu) update() {
	u, m := w.u, w.m
	tab := w.tabName()
	hasStore := u.cfg.Store != nil
	w.newTool.Disabled, w.newResource.Disabled, w.newPrompt.Disabled, w.newServer.Disabled = !hasStore, !hasStore, !hasStore, !hasStore
	w.importItem.Disabled, w.export.Disabled = !hasStore, !hasStore
	w.newTool.Shortcut, w.newResource.Shortcut, w.newPrompt.Shortcut, w.newServer.Shortcut = nil, nil, nil, nil
	switch tab {
	case "Tools":
		w.newTool.Shortcut = newShortcut
	case "Resources":
		w.newResource.Shortcut = newShortcut
	case "Prompts":
		w.newPrompt.Shortcut = newShortcut
	case "Servers":
		w.newServer.Shortcut = newShortcut
	}
	w.save.Disabled = m.shownSave() == nil
	srv := u.cfg.Server
	w.pause.Disabled, w.copyAddr.Disabled = srv == nil, srv == nil || srv.URL() == ""
	w.pause.Label = "Pause serving"
	if srv != nil && srv.Paused() {
		w.pause.Label = "Resume serving"
	}
	waiting := u.Asker.Pending()
	w.question.Label, w.question.Disabled = words.QuestionLine(waiting), waiting == 0
	for _, it := range w.tabs {
		it.Checked = it.Label == tab
	}
	w.find.Disabled = w.search() == nil
	state := fmt.Sprint(tab, w.save.Disabled, w.pause.Label, w.copyAddr.Disabled, w.question.Label, w.find.Disabled)
	if state != w.shown {
		w.shown = state
		w.main.Refresh()
	}
}

// tabName is the name of the tab shown.
func (w *windowMenu) tabName() string {
	if t := w.m.tabs.Selected(); t != nil {
		return t.Text
	}
	return ""
}

// showTab shows the tab named so.
func (w *windowMenu) showTab(name string) {
	for _, t := range w.m.tabs.Items {
		if t.Text == name {
			w.m.tabs.Select(t)
			return
		}
	}
}

// newEntry opens the editor on a new entry of the catalog tab shown: a
// tool, a resource or a prompt, or the form that adds a server; elsewhere
// it does nothing.
func (w *windowMenu) newEntry() {
	if w.u.cfg.Store == nil {
		return
	}
	switch w.tabName() {
	case "Tools":
		w.m.NewTool()
	case "Resources":
		w.m.NewResource()
	case "Prompts":
		w.m.NewPrompt()
	case "Servers":
		w.m.servers.ShowAdd()
	}
	w.update()
}

// search is the search box of the tab shown, if it has one.
func (w *windowMenu) search() *widget.Entry {
	switch w.tabName() {
	case "Tools":
		return w.m.tools.search
	case "Resources":
		return w.m.resources.search
	case "Prompts":
		return w.m.prompts.search
	case "Activity":
		return w.m.activity.search
	}
	return nil
}

// focusSearch puts the typing cursor in the search box of the tab shown.
func (w *windowMenu) focusSearch() {
	if s := w.search(); s != nil {
		w.m.win.Canvas().Focus(s)
	}
}

func (w *windowMenu) togglePause() {
	if srv := w.u.cfg.Server; srv != nil {
		srv.SetPaused(!srv.Paused())
		w.u.stateChanged()
	}
}

// copyAddress puts the endpoint's URL on the clipboard.
func (w *windowMenu) copyAddress() {
	srv := w.u.cfg.Server
	if srv == nil || srv.URL() == "" {
		return
	}
	w.u.app.Clipboard().SetContent(srv.URL())
	w.u.app.SendNotification(fyne.NewNotification("Address copied", srv.URL()))
}

// about shows mcptray's version, where its database is and where it serves.
func (w *windowMenu) about() {
	lines := w.u.aboutLines()
	form := widget.NewForm()
	for _, l := range lines[:4] {
		v := widget.NewLabel(l[1])
		v.Wrapping = fyne.TextWrapBreak // paths do not break at spaces
		v.Selectable = true
		form.Append(l[0], v)
	}
	intro := widget.NewLabel("mcptray serves the tools, resources and prompts you define to your AI apps, on this computer.")
	intro.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustom("About mcptray", "Close", container.NewVBox(intro, form), w.m.win)
	d.Resize(fyne.NewSize(560, 0)) // as tall as its lines need
	d.Show()
}

// openDocs opens the documentation in the browser.
func (w *windowMenu) openDocs() {
	u, err := url.Parse(docsURL)
	if err == nil {
		err = w.u.app.OpenURL(u)
	}
	if err != nil {
		dialog.ShowError(fmt.Errorf("opening %s: %w", docsURL, err), w.m.win)
	}
}

// copyDiagnostics puts what a bug report needs on the clipboard.
func (w *windowMenu) copyDiagnostics() {
	var b strings.Builder
	for _, l := range w.u.aboutLines() {
		fmt.Fprintf(&b, "%s: %s\n", l[0], l[1])
	}
	w.u.app.Clipboard().SetContent(b.String())
	w.u.app.SendNotification(fyne.NewNotification("Diagnostics copied", "Paste them into your bug report."))
}

// aboutLines are the facts About shows (the first four) and the
// diagnostics copy (all, for a bug report), as label and value.
func (u *UI) aboutLines() [][2]string {
	version := u.cfg.Version
	if version == "" {
		version = "unknown"
	}
	endpoint := "not serving"
	if s := u.cfg.Server; s != nil && s.URL() != "" {
		endpoint = s.URL()
		if s.Paused() {
			endpoint += " (paused)"
		}
	}
	tray := "none on this desktop: closing the window quits mcptray"
	if u.cfg.Tray {
		tray = "in the system tray: closing the window keeps mcptray serving"
	}
	secrets := "not available"
	if u.cfg.Secrets != nil {
		secrets = u.cfg.Secrets.Backend()
	}
	return [][2]string{
		{"Version", version},
		{"Database", cmp.Or(u.cfg.DB, "none")},
		{"Serving on", endpoint},
		{"Tray icon", tray},
		{"Tray host", u.cfg.TrayHost},
		{"Secrets kept in", secrets},
		{"System", fmt.Sprintf("%s/%s, %s, desktop %s (%s session)", runtime.GOOS, runtime.GOARCH, runtime.Version(),
			cmp.Or(os.Getenv("XDG_CURRENT_DESKTOP"), "unknown"), cmp.Or(os.Getenv("XDG_SESSION_TYPE"), "unknown"))},
	}
}
