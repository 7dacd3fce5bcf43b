// Package app draws every window of mcptray, in the window process
// (`mcptray window`, RunWindow): the manager window (its editors are
// package app/editor), the desktop questions (approvals, forms, pages to
// open), the task window, Settings and the Connect windows. The serving
// process (app/tray), which never draws, starts it when there is
// something to show, and it ends when it holds no window. It reads and
// writes the catalog, tokens, secrets and activity log through its own
// Store, and asks the serving process, over the link (app/link), for what
// only the server knows or does.
package app

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/editor"
	"github.com/mcptray/mcptray/app/link"
	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/assets"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/clientconfig"
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/storage"
)

// Server is the running MCP server as the windows see it.
type Server interface {
	URL() string
	Paused() bool
	SetPaused(bool)
	// SaveSettings stores set, which the server applies at once. With
	// movePort it first moves to set's port (the new port listens before
	// the old one closes): a taken port is a *catalog.ValidationError about
	// the field "port" and nothing is stored; when storing fails it moves
	// back. It reports whether it moved.
	SaveSettings(ctx context.Context, set catalog.Settings, movePort bool) (moved bool, err error)
}

// ApprovalKeeper is what Settings ▸ Remembered approvals needs of the
// server: its remembered approvals, and word when they change.
type ApprovalKeeper interface {
	RememberedApprovals(ctx context.Context) ([]record.RememberedApproval, error)
	ForgetApproval(ctx context.Context, k record.ApprovalKey) error
	ForgetAllApprovals(ctx context.Context) error
	SubscribeApprovals(ctx context.Context) <-chan struct{}
}

// TaskSource is what the task window needs of the server: the tasks
// running, their changes as they come, and a cancel.
type TaskSource interface {
	RunningTasks(ctx context.Context) ([]record.Task, error)
	// SubscribeTasks delivers every change of a task until ctx ends; a
	// slow reader may miss some (RunningTasks tells the state).
	SubscribeTasks(ctx context.Context) <-chan record.Task
	CancelTask(ctx context.Context, id string) error
}

// Serving is what the windows tell the serving process of their own life.
type Serving interface {
	// Quit: the person quits mcptray (unsaved changes were asked about).
	Quit()
	// Closed: the manager window closed, leaving v; the next one opens
	// there.
	Closed(v link.View)
	// Idle: no window is left; it reports whether this process may end
	// (nothing is on its way to it).
	Idle() bool
}

// Config is what the windows work on.
type Config struct {
	Store *storage.Store
	// Secrets is the server's secret store (nil: secrets cannot be managed
	// here, and Settings says why).
	Secrets *storage.Secrets
	Server  Server
	// Approvals are the remembered approvals Settings lists; nil: none.
	Approvals ApprovalKeeper
	// Tasks are the server's tasks, for the task window; nil: the server
	// runs none, and View ▸ Task window is off.
	Tasks TaskSource
	// Upstreams says how the other MCP servers run, for the Servers tab;
	// nil: it cannot tell.
	Upstreams Upstreams
	// TryIt runs tools for the editor's Try it; nil hides the button.
	TryIt editor.ToolTrier
	// Serving hears of the windows' life: quit, close, nothing left.
	Serving Serving
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
	// Tray says mcptray has a tray icon: closing the manager window keeps
	// it serving. Without one the manager window is the app: closing it
	// quits, after asking.
	Tray bool
	// TrayHost says what was found of a tray host, for the diagnostics.
	TrayHost string
	// Welcome greets the person in the first manager window (first
	// start).
	Welcome bool
}

// UI is the window process's windows: the manager, the questions, the
// task window and the Connect windows, and when it may end.
type UI struct {
	app fyne.App
	cfg Config
	// quitting is set by the first quitApp: Fyne is quit once. File ▸
	// Quit quits it, then the serving process ends the link, whose end
	// quits it again, from fyne.Do once Fyne's loop is over — which Fyne
	// reports as UI touched off its thread.
	quitting atomic.Bool
	// Asker shows the desktop questions, a window each.
	Asker   *Asker
	manager *Manager
	// winMenu is the manager window's menu bar, made with the window.
	winMenu *windowMenu
	// view is where the person left the manager window when it last
	// closed: the next one opens there.
	view managerView
	// tasks is the task window, made on first use.
	tasks *TaskWindow
	// connects counts the Connect windows open.
	connects int
	// welcomeDue: the welcome is yet to be shown (Config.Welcome).
	welcomeDue bool
	// asking: an Idle is on its way to the serving process.
	asking bool
	// busy counts the serving process's calls being answered: the process
	// does not end under one.
	busy atomic.Int32
}

// newUI builds the windows' UI of a; nothing shows until asked.
func newUI(a fyne.App, cfg Config) *UI {
	a.SetIcon(fyne.NewStaticResource("icon.png", assets.IconPNG))
	u := &UI{app: a, cfg: cfg, Asker: NewAsker(a), welcomeDue: cfg.Welcome}
	u.Asker.Screen = cfg.Screen
	return u
}

// Run shows what is asked until the app quits (ctx ending quits it too).
func (u *UI) Run(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { fyne.Do(u.quitApp) })
	defer stop()
	go u.followQuestions(ctx)
	u.app.Run()
}

// followQuestions updates the window's menu as questions come and go, and
// lets the process end once the last one is answered.
func (u *UI) followQuestions(ctx context.Context) {
	for range u.Asker.Subscribe(ctx) {
		fyne.Do(func() {
			u.stateChanged()
			u.maybeEnd()
		})
	}
}

// open opens (or raises) the window w names. Call it on the UI goroutine.
func (u *UI) open(w link.Window) {
	switch w.What {
	case link.OpenManager:
		u.welcomeDue = u.welcomeDue || w.Welcome
		u.OpenManager()
	case link.OpenTasks:
		u.ShowTaskWindow()
	case link.OpenQuestion:
		u.Asker.Raise()
	case link.OpenConnect:
		u.showConnect(lastConnectClient(u.app))
	default:
		slog.Warn("no such window", "window", w.What)
	}
}

// Quit quits mcptray: an editor with unsaved changes is shown first, and
// the person asked.
func (u *UI) Quit() {
	u.askQuit(func(yes bool) {
		if yes {
			u.quit()
		}
	})
}

// askQuit asks, when an editor has unsaved changes, whether to quit
// anyway, and tells answer; without such changes it answers yes at once.
func (u *UI) askQuit(answer func(bool)) {
	m := u.manager
	if m == nil || !m.unsavedEditor() {
		answer(true)
		return
	}
	u.OpenManager()
	m.ask("Quit mcptray?", "The editor has changes that are not saved. Quit and discard them?", answer)
}

// quit tells the serving process the person quits (it stops serving, then
// ends this process too) and ends this one.
func (u *UI) quit() {
	if u.cfg.Serving != nil {
		u.cfg.Serving.Quit()
	}
	u.quitApp()
}

// quitApp quits Fyne, surviving a panic in its Quit. Fyne 2.7's Quit
// closes its settings watcher after the driver has quit: when the watcher
// could not start (fsnotify.NewWatcher failed — the per-user limit of
// inotify instances was reached), it holds a nil *fsnotify.Watcher, and
// closing that panics. Everything that matters is done by then.
func (u *UI) quitApp() {
	if !u.quitting.CompareAndSwap(false, true) {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			slog.Warn("Fyne failed while quitting (its settings watcher had not started?)", "panic", r)
		}
	}()
	u.app.Quit()
}

// holds says whether this process holds a window, a question or a call of
// the serving process: it stays while it does.
func (u *UI) holds() bool {
	return u.manager != nil || u.tasks != nil && u.tasks.win != nil || u.connects > 0 ||
		u.Asker.Pending() > 0 || u.busy.Load() > 0
}

// maybeEnd ends this process once it holds nothing and the serving process
// agrees that nothing is on its way to it. Without a tray it never ends
// so: its manager window is the app. Call it on the UI goroutine.
func (u *UI) maybeEnd() {
	if !u.cfg.Tray || u.asking || u.holds() || u.cfg.Serving == nil {
		return
	}
	u.asking = true
	go func() {
		end := u.cfg.Serving.Idle()
		fyne.Do(func() {
			u.asking = false
			// Not yet: a call was on its way, and once it is answered
			// this runs again.
			if end {
				u.quitApp()
			}
		})
	}()
}

// OpenManager shows the manager window, creating it when none is open;
// the first one of the run greets a first start, and says once that there
// is no tray when there is none.
func (u *UI) OpenManager() {
	first := u.manager == nil
	if first {
		u.manager = NewManager(u.app, u.cfg)
		u.winMenu = u.newWindowMenu(u.manager)
		u.manager.SetCloseIntercept(u.closeManager)
		u.manager.restore(u.view)
	}
	m := u.manager
	m.win.Show()
	if first {
		if size, ok := screenFit(m.win, u.cfg.Screen); ok {
			m.keeper.forced = size
			m.win.Resize(size)
			m.win.CenterOnScreen()
		}
	}
	m.win.RequestFocus()
	if tab := m.tabs.Selected(); tab != nil && tab.Content == m.activity.Content() && !m.activity.Following() {
		m.activity.Reload() // shown again on the Activity tab: follow the log again
	}
	if tab := m.tabs.Selected(); tab != nil && tab.Text == "Servers" {
		m.servers.watch(true) // shown again: read how the servers run again
	}
	if !first {
		return
	}
	// One dialog at a time: the no-tray notice waits for the welcome.
	then := func() {}
	if !u.cfg.Tray {
		then = u.sayNoTray
	}
	if u.welcomeDue {
		u.welcomeDue = false
		m.showWelcome(then)
		return
	}
	then()
}

// fitOnScreen shrinks win, once shown (its scale is known then), to the
// usable area of the screen when it is larger, and centres it again;
// screen nil, or a screen it cannot tell, leaves win as it is.
func fitOnScreen(win fyne.Window, screen func() (int, int)) {
	if size, ok := screenFit(win, screen); ok {
		win.Resize(size)
		win.CenterOnScreen()
	}
}

// screenFit is the size win, once shown, must shrink to to fit the usable
// area of the screen; false when it fits, or when screen is nil or cannot
// tell.
func screenFit(win fyne.Window, screen func() (int, int)) (fyne.Size, bool) {
	if screen == nil {
		return fyne.Size{}, false
	}
	w, h := screen()
	scale := win.Canvas().Scale()
	if w <= 0 || h <= 0 || scale <= 0 {
		return fyne.Size{}, false
	}
	// Room for the window's frame, which the window manager adds.
	const frame = 48
	room := fyne.NewSize(float32(w-frame)/scale, float32(h-frame)/scale)
	size := win.Canvas().Size()
	if size.Width <= room.Width && size.Height <= room.Height {
		return fyne.Size{}, false
	}
	return size.Min(room), true
}

// closeManager is what closing the manager window does: with a tray
// mcptray goes on serving; without one nothing would be left to bring it
// back, so it quits, once the person agrees.
//
// With a tray the window closes, and this process ends with its last
// window: all the window drew goes with it, and the next one opens where
// the person left it (managerView). Only a window that holds work, unsaved
// changes or a dialog among them, is hidden instead, to come back to as it
// is.
func (u *UI) closeManager() {
	if !u.cfg.Tray {
		u.confirmQuit()
		return
	}
	m := u.manager
	if work := m.work(); work != "" {
		slog.Info("the window is hidden, not closed, to come back to as it is", "because", work)
		m.win.Hide()
		m.activity.Stop() // nobody sees the log: stop following it
		m.servers.watch(false)
		return
	}
	u.view = m.view()
	if u.cfg.Serving != nil {
		u.cfg.Serving.Closed(u.view.toLink())
	}
	u.manager, u.winMenu = nil, nil
	m.close()
	u.maybeEnd()
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
	cancel := ui.NewEscButton("Cancel", nil, hide, hide)
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
	return "To get a tray icon, run a panel or bar that shows tray icons: the tray of KDE Plasma, Xfce's panel " +
		"with its StatusNotifier plugin, waybar, or GNOME with the AppIndicator extension (tray icons of the StatusNotifierItem kind)."
}

// stateChanged brings the manager window's menu up to date with the
// server and the questions; call it on the UI goroutine.
func (u *UI) stateChanged() {
	if u.winMenu != nil {
		u.winMenu.update()
	}
}

// showConnect opens the Connect window for client c, counted among the
// windows this process holds.
func (u *UI) showConnect(c clientconfig.Client) *connectView {
	u.connects++
	return showConnect(u.app, c, u.cfg, func() {
		u.connects--
		u.maybeEnd()
	})
}

// ShowTaskWindow opens the task window, or raises it when it is open
// already; it returns nil when the server runs no tasks. Call it on the UI
// goroutine.
func (u *UI) ShowTaskWindow() *TaskWindow {
	if u.cfg.Tasks == nil {
		return nil
	}
	if u.tasks == nil {
		u.tasks = NewTaskWindow(u.app, u.cfg.Tasks)
		u.tasks.onClosed = u.maybeEnd
	}
	u.tasks.Show()
	return u.tasks
}
