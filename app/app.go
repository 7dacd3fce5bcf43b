// Package app is mcptray's desktop GUI: the tray menu, the manager window
// with its editors, the desktop questions and the task window. It calls
// only what mcpcore, storage and clientconfig offer; the server itself is
// assembled by internal/daemon and handed in as a Server.
package app

import (
	"context"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/assets"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// Server is the running MCP server as the GUI sees it.
type Server interface {
	URL() string
	Paused() bool
	SetPaused(bool)
	// SaveSettings stores set, which the server applies at once. With
	// movePort it first moves to set's port (the new port listens before
	// the old one closes): a taken port is a *mcpcore.ValidationError about
	// the field "port" and nothing is stored; when storing fails it moves
	// back. It reports whether it moved.
	SaveSettings(ctx context.Context, set mcpcore.Settings, movePort bool) (moved bool, err error)
}

// ApprovalKeeper is what Settings ▸ Remembered approvals needs of the
// server: mcpcore.Engine's remembered approvals, or the serving process's
// when the window runs in a process of its own.
type ApprovalKeeper interface {
	RememberedApprovals(ctx context.Context) ([]mcpcore.RememberedApproval, error)
	ForgetApproval(ctx context.Context, k mcpcore.ApprovalKey) error
	ForgetAllApprovals(ctx context.Context) error
	SubscribeApprovals(ctx context.Context) <-chan struct{}
}

// ToolTrier runs a catalog tool through the real MCP endpoint, as an AI
// client would, for the tool editor's Try it.
type ToolTrier interface {
	TryTool(ctx context.Context, name string, args map[string]any) (TryResult, error)
}

// TryResult is what Try it shows: the outcome as a person reads it and the
// raw JSON-RPC exchange.
type TryResult struct {
	// Text is the result's content, IsError whether the tool reported an
	// error.
	Text    string
	IsError bool
	// Request and Response are the JSON-RPC messages sent and received,
	// indented.
	Request, Response string
}

// Config is what the GUI works on.
type Config struct {
	Store *storage.Store
	// Secrets is the server's secret store (nil: secrets cannot be managed
	// here, and Settings says why).
	Secrets *storage.Secrets
	Engine  *mcpcore.Engine
	Server  Server
	// DB is the database file, shown in the manager.
	DB string
	// Version is mcptray's version, for Help ▸ About and the diagnostics.
	Version string
	// Screen is the usable area of the screen, in pixels (zeros when it is
	// not known), read on the UI goroutine. Fyne cannot tell it; without a
	// window manager that keeps windows on screen, a window opened at its
	// default or remembered size could reach past a small screen's edge.
	Screen func() (width, height int)
	// ShimPath is the stdio shim (mcptray-stdio) client configs launch.
	ShimPath string
	// Welcome opens the manager with a short welcome (first start).
	Welcome bool
	// ShowManager opens the manager window at start.
	ShowManager bool
	// Asker is the desktop Asker the engine uses; its queue drives the
	// tray's needs-attention state.
	Asker *Asker
	// Activity delivers the requests the server records, as it records
	// them: the tray's clients line follows it.
	Activity ActivityFeed
	// TryIt runs tools for the editor's Try it; nil hides the button.
	TryIt ToolTrier
	// BeforeQuit runs when the person quits, while the UI still runs (so
	// pending questions can be withdrawn): main stops the server there.
	BeforeQuit func()
	// Approvals are the remembered approvals Settings lists; nil: the
	// Engine's.
	Approvals ApprovalKeeper
	// StartWindow, with a tray, opens the manager window in a process of
	// its own (windowprocess.go); nil, or when it fails, the window opens
	// in this process.
	StartWindow WindowStarter

	// parent is the serving process, when this process is only its
	// manager window (RunWindow).
	parent *parentLink
}

// approvals is what Settings lists the remembered approvals of.
func (c Config) approvals() ApprovalKeeper {
	switch {
	case c.Approvals != nil:
		return c.Approvals
	case c.Engine != nil:
		return c.Engine
	}
	return nil
}

// ActivityFeed delivers the activity records a server writes
// (storage.ActivityWriter), until ctx ends.
type ActivityFeed interface {
	SubscribeActivity(ctx context.Context) <-chan mcpcore.Activity
}

// UI is the running desktop app: its tray and windows.
type UI struct {
	app fyne.App
	cfg Config
	// host is the tray host found at start. Without one mcptray is its
	// window: shown at start, and closing it quits.
	host    TrayHost
	manager *Manager
	menu    *trayMenu
	// winMenu is the manager window's menu bar, made with the window.
	winMenu *windowMenu
	// view is where the person left the manager window when it was last
	// destroyed: the next one opens there.
	view managerView
	// tasks is the task window, made on first use.
	tasks *TaskWindow
	// window is the manager window's own process, while it runs
	// (StartWindow).
	window *windowProc
	// windowFailed: a window process failed; the window opens in this
	// process from then on.
	windowFailed bool
	// welcomeDue: the welcome is yet to be shown (Config.Welcome).
	welcomeDue bool
	// stopWatch ends the tray's following of the server (set by Run).
	stopWatch context.CancelFunc
}

// New builds the UI of a: with a tray icon when the desktop has a tray host
// (see DetectTrayHost), else as a window alone. Run shows it.
func New(a fyne.App, cfg Config) *UI {
	host := TrayHost{About: "not a desktop driver"}
	if _, ok := a.(desktop.App); ok {
		host = DetectTrayHost()
	}
	return newUI(a, cfg, host)
}

// newUI builds the UI for the tray host found (tests choose one).
func newUI(a fyne.App, cfg Config, host TrayHost) *UI {
	a.SetIcon(assets.Icon)
	u := &UI{app: a, cfg: cfg, host: host, welcomeDue: cfg.Welcome}
	u.menu = newTrayMenu(u)
	if cfg.parent != nil {
		return u // the window's own process: the tray is the serving process's
	}
	if !host.Present {
		slog.Info("no tray icon: mcptray runs as its window, shown at start; closing it quits", "tray", host.About)
		return u
	}
	slog.Info("mcptray lives in the tray: closing its window keeps it serving", "tray", host.About)
	if desk, ok := a.(desktop.App); ok {
		u.menu.showInTray(desk)
	}
	return u
}

// Run shows the app and blocks until it quits. ctx ending quits it too.
func (u *UI) Run(ctx context.Context) {
	stop := context.AfterFunc(ctx, func() { fyne.Do(u.quitApp) })
	defer stop()
	if u.cfg.parent != nil {
		// The window's own process follows the server through the
		// serving process's state notifications.
		u.app.Lifecycle().SetOnStarted(u.started)
		u.app.Run()
		return
	}
	// The tray follows the server until Quit begins, not while it stops
	// (the store closes) nor after the UI has gone.
	wctx, stopWatch := context.WithCancel(ctx)
	u.stopWatch = stopWatch
	watched := make(chan struct{})
	go func() { defer close(watched); u.menu.watch(wctx) }()
	defer func() { stopWatch(); <-watched }()
	u.app.Lifecycle().SetOnStarted(u.started)
	u.app.Run()
}

// started fills the tray and opens the window when it is due.
func (u *UI) started() {
	if _, ok := u.app.(desktop.App); ok && u.host.Present && u.cfg.parent == nil {
		u.menu.fillTray()
	}
	if !u.cfg.ShowManager && !u.cfg.Welcome && u.host.Present {
		return
	}
	u.OpenManager()
	if u.manager == nil {
		return // opened in its own process, which shows the welcome
	}
	// One dialog at a time: the no-tray notice waits for the welcome.
	then := func() {}
	if !u.host.Present {
		then = u.sayNoTray
	}
	if u.welcomeDue {
		u.welcomeDue = false
		u.manager.showWelcome(then)
		return
	}
	then()
}

// Quit stops the server (BeforeQuit) while the UI still runs, then quits.
// An editor with unsaved changes is shown first, and the person asked; a
// window in its own process is asked to do that, and tells this one to
// quit once the person agrees.
func (u *UI) Quit() {
	if w := u.window; w != nil && !w.closing {
		w.notify(winAskQuit, nil) // the window asks, then tells us to quit
		return
	}
	if m := u.manager; m != nil && m.unsavedEditor() {
		u.OpenManager()
		m.ask("Quit mcptray?", "The editor has changes that are not saved. Quit and discard them?", func(yes bool) {
			if yes {
				u.quit()
			}
		})
		return
	}
	u.quit()
}

func (u *UI) quit() {
	if p := u.cfg.parent; p != nil {
		p.notify(winQuit, nil) // the serving process stops, and ends this one
		u.quitApp()
		return
	}
	if w := u.window; w != nil {
		w.notify(winExit, nil)
	}
	if u.stopWatch != nil {
		u.stopWatch()
	}
	go func() {
		if u.cfg.BeforeQuit != nil {
			u.cfg.BeforeQuit()
		}
		fyne.Do(u.quitApp)
	}()
}

// quitApp quits Fyne, surviving a panic in its Quit. Fyne 2.7's Quit
// closes its settings watcher after the driver has quit: when the watcher
// could not start (fsnotify.NewWatcher failed — the per-user limit of
// inotify instances was reached), it holds a nil *fsnotify.Watcher, and
// closing that panics. Everything that matters is done by then.
func (u *UI) quitApp() {
	defer func() {
		if r := recover(); r != nil {
			slog.Warn("Fyne failed while quitting (its settings watcher had not started?)", "panic", r)
		}
	}()
	u.app.Quit()
}

// OpenManager shows the manager window, creating it when none is open
// (on first use, and after closing it to the tray destroyed it). With a
// tray and a StartWindow, the window opens in a process of its own, or
// that process is told to show it.
func (u *UI) OpenManager() {
	if u.cfg.StartWindow != nil && u.host.Present && u.manager == nil && !u.windowFailed {
		if w := u.window; w != nil && !w.closing {
			w.notify(winShow, nil)
			return
		}
		err := u.startWindow()
		if err == nil {
			return
		}
		slog.Warn("the manager window opens in this process", "err", err)
	}
	first := u.manager == nil
	if first {
		u.manager = NewManager(u.app, u.cfg)
		u.winMenu = u.newWindowMenu(u.manager)
		u.manager.SetCloseIntercept(u.closeManager)
		u.manager.restore(u.view)
	}
	u.manager.win.Show()
	if first {
		fitOnScreen(u.manager.win, u.cfg.Screen)
	}
	u.manager.win.RequestFocus()
	if tab := u.manager.tabs.Selected(); tab != nil && tab.Content == u.manager.activity.Content() && !u.manager.activity.Following() {
		u.manager.activity.Reload() // shown again on the Activity tab: follow the log again
	}
}

// fitOnScreen shrinks win, once shown (its scale is known then), to the
// usable area of the screen when it is larger, and centres it again;
// screen nil, or a screen it cannot tell, leaves win as it is.
func fitOnScreen(win fyne.Window, screen func() (int, int)) {
	if screen == nil {
		return
	}
	w, h := screen()
	scale := win.Canvas().Scale()
	if w <= 0 || h <= 0 || scale <= 0 {
		return
	}
	// Room for the window's frame, which the window manager adds.
	const frame = 48
	room := fyne.NewSize(float32(w-frame)/scale, float32(h-frame)/scale)
	size := win.Canvas().Size()
	if size.Width <= room.Width && size.Height <= room.Height {
		return
	}
	win.Resize(size.Min(room))
	win.CenterOnScreen()
}

// closeManager is what closing the manager window does: with a tray
// mcptray goes on serving; without one nothing would be left to bring it
// back, so it quits, once the person agrees.
//
// With a tray the window is destroyed, and built again when it is opened
// (where it was left: managerView): mcptray may sit in the tray all day,
// and a window kept hidden keeps its widgets, their renderers and
// textures and its GL surface (make bench's tray figures). Only a window
// that holds work, unsaved changes or a dialog among them, is hidden
// instead, to come back to as it is.
func (u *UI) closeManager() {
	if !u.host.Present {
		u.confirmQuit()
		return
	}
	m := u.manager
	if p := u.cfg.parent; p != nil && m.work() == "" {
		// The window's own process ends with its window: all it held
		// goes with it, and the serving process keeps where it was left.
		p.notify(winClosed, m.view().toWire())
		m.win.Hide()
		u.quitApp()
		return
	}
	if work := m.work(); work == "" {
		u.view = m.view()
		u.manager, u.winMenu = nil, nil
		m.destroy()
		time.AfterFunc(dropFontsAfterClose, func() { fyne.Do(u.dropFonts) })
	} else {
		slog.Info("the window is hidden, not closed, to come back to as it is", "because", work)
		m.win.Hide()
		m.activity.Stop() // nobody sees the log: stop following it
	}
	// Once, a moment after closing (no timer runs at rest): what the
	// window held is garbage by then, and the runtime would hand it back
	// to the system only over minutes.
	time.AfterFunc(releaseAfterClose, debug.FreeOSMemory)
}

// releaseAfterClose is how long after the manager window closes mcptray
// hands its memory back: after the window is gone (closeAfterHide).
const releaseAfterClose = 2 * time.Second

// dropFontsAfterClose is how long after the manager window closes the
// fonts it used are let go: after the window is gone (closeAfterHide),
// before the memory is handed back (releaseAfterClose).
const dropFontsAfterClose = time.Second

// dropFonts lets go of the font faces Fyne parsed for the closed window,
// unless the window was opened again meanwhile. Fyne keeps them, one set
// for each text style a window used (regular, bold, italic, monospace),
// for the whole run; setting the theme again (the same one) is the one
// way it offers to clear them, and the next window parses again what it
// shows. Measured (make bench's tray run, GODEBUG=gctrace=1): the heap
// left after the window closed went from 17 to 11 MB.
func (u *UI) dropFonts() {
	if u.manager != nil {
		return
	}
	u.app.Settings().SetTheme(u.app.Settings().Theme())
}

// confirmQuit asks whether to quit, saying what quitting stops; Cancel is
// the default (focused, and Escape or Return), so closing a window by
// habit loses nothing.
func (u *UI) confirmQuit() {
	m := u.manager
	text := "The server stops and AI apps lose their tools until you start mcptray again."
	if m.unsavedEditor() {
		text += "\n\nThe editor has changes that are not saved: they are lost."
	}
	msg := widget.NewLabel(text)
	msg.Wrapping = fyne.TextWrapWord
	var d *dialog.CustomDialog
	hide := func() { d.Hide() }
	// The driver gives keys to the focused Cancel, not to the window.
	cancel := newEscButton("Cancel", nil, hide, hide)
	cancel.Importance = widget.HighImportance
	quit := widget.NewButton("Quit mcptray", func() { d.Hide(); u.quit() })
	quit.Importance = widget.DangerImportance
	d = dialog.NewCustomWithoutButtons("Quit mcptray?", msg, m.win)
	d.SetButtons([]fyne.CanvasObject{quit, cancel})
	d.Resize(fyne.NewSize(460, 0)) // as tall as its lines need
	hideOnKeys(m.win, d)
	d.Show()
	m.win.Canvas().Focus(cancel)
}

// hideOnKeys makes Escape and Return close d while it is up, as a person
// expects of a notice, or of a question whose default does nothing; the
// window's own key handler is back once d closes.
func hideOnKeys(win fyne.Window, d dialog.Dialog) {
	c := win.Canvas()
	before := c.OnTypedKey()
	c.SetOnTypedKey(func(k *fyne.KeyEvent) {
		switch k.Name {
		case fyne.KeyEscape, fyne.KeyReturn, fyne.KeyEnter:
			d.Hide()
		default:
			if before != nil {
				before(k)
			}
		}
	})
	d.SetOnClosed(func() { c.SetOnTypedKey(before) })
}

// prefTrayHintShown remembers that mcptray said how to get a tray icon.
const prefTrayHintShown = "trayHintShown"

// sayNoTray says, once ever, that this desktop shows no tray icon, what
// that changes, and how to get one.
func (u *UI) sayNoTray() {
	prefs := u.app.Preferences()
	if prefs.Bool(prefTrayHintShown) {
		return
	}
	prefs.SetBool(prefTrayHintShown, true)
	msg := widget.NewLabel("mcptray keeps its icon in the system tray, and this desktop shows none, so mcptray runs as this window: " +
		"closing it quits mcptray and stops the server.\n\n" + trayHowTo(os.Getenv("XDG_CURRENT_DESKTOP")) +
		"\n\nmcptray looks for a tray when it starts.")
	msg.Wrapping = fyne.TextWrapWord
	msg.Selectable = true // the command, to copy
	d := dialog.NewCustom("No tray icon on this desktop", "OK", msg, u.manager.win)
	d.Resize(fyne.NewSize(540, 0)) // as tall as its lines need
	hideOnKeys(u.manager.win, d)
	d.Show()
}

// trayHowTo says how to get tray icons on the desktop named so (the
// XDG_CURRENT_DESKTOP variable, e.g. "ubuntu:GNOME").
func trayHowTo(name string) string {
	d := strings.ToUpper(name)
	switch {
	case strings.Contains(d, "GNOME") || strings.Contains(d, "UNITY"):
		return "GNOME shows tray icons with the extension “AppIndicator and KStatusNotifierItem Support”: " +
			"on Debian and Ubuntu, install it with\n    sudo apt install gnome-shell-extension-appindicator\n" +
			"then log out and in again, and turn it on in the Extensions app."
	case strings.Contains(d, "KDE"):
		return "KDE Plasma shows tray icons in its System Tray widget: add it to a panel."
	}
	return "To get a tray icon, run a panel or bar with a system tray that supports StatusNotifierItem " +
		"(the tray of KDE Plasma, Xfce's panel with its StatusNotifier plugin, waybar, or GNOME with the AppIndicator extension)."
}

// raiseQuestion brings the waiting question's window to the front.
func (u *UI) raiseQuestion() {
	if p := u.cfg.parent; p != nil {
		p.notify(winRaiseQuestion, nil)
		return
	}
	if u.cfg.Asker != nil {
		u.cfg.Asker.Raise()
	}
}

// stateChanged brings the tray and the window's menu up to date with the
// server, the tasks and the questions; call it on the UI goroutine.
func (u *UI) stateChanged() {
	u.menu.refresh()
	if u.winMenu != nil {
		u.winMenu.update()
	}
	if w := u.window; w != nil {
		w.sendState(u.windowState())
	}
}

// waiting is how many questions wait for the person.
func (u *UI) waiting() int {
	switch {
	case u.cfg.parent != nil:
		return u.cfg.parent.waiting()
	case u.cfg.Asker != nil:
		return u.cfg.Asker.Pending()
	}
	return 0
}

// hasTasks says whether the server runs tasks (View ▸ Task window).
func (u *UI) hasTasks() bool {
	if p := u.cfg.parent; p != nil {
		return p.hasTasks
	}
	return u.cfg.Engine != nil
}

// ShowTaskWindow opens the task window, or raises it when it is open
// already; it returns nil when there is no engine. Call it on the UI
// goroutine.
func (u *UI) ShowTaskWindow() *TaskWindow {
	if p := u.cfg.parent; p != nil {
		p.notify(winShowTasks, nil)
		return nil
	}
	if u.cfg.Engine == nil {
		return nil
	}
	if u.tasks == nil {
		u.tasks = NewTaskWindow(u.app, u.cfg.Engine)
	}
	u.tasks.Show()
	return u.tasks
}
