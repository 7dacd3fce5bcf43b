// Package app is mcptray's desktop GUI: the tray menu, the manager window
// with its editors, the desktop questions and the task window. It calls
// only what mcpcore, storage and clientconfig offer; the server itself is
// assembled by internal/daemon and handed in as a Server.
package app

import (
	"context"
	"log/slog"
	"os"
	"runtime"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

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
	// ShimPath is the stdio shim (mcptray-stdio) client configs launch.
	ShimPath string
	// Welcome opens the manager with a short welcome (first start).
	Welcome bool
	// ShowManager opens the manager window at start.
	ShowManager bool
	// Asker is the desktop Asker the engine uses; its queue drives the
	// tray's needs-attention state.
	Asker *Asker
	// TryIt runs tools for the editor's Try it; nil hides the button.
	TryIt ToolTrier
	// BeforeQuit runs when the person quits, while the UI still runs (so
	// pending questions can be withdrawn): main stops the server there.
	BeforeQuit func()
}

// UI is the running desktop app: its tray and windows.
type UI struct {
	app     fyne.App
	cfg     Config
	tray    bool
	manager *Manager
	menu    *trayMenu
	// tasks is the task window, made on first use.
	tasks *TaskWindow
	// stopWatch ends the tray's following of the server (set by Run).
	stopWatch context.CancelFunc
}

// New builds the UI of a (the tray, when the desktop has one); Run shows it.
func New(a fyne.App, cfg Config) *UI {
	a.SetIcon(assets.Icon)
	u := &UI{app: a, cfg: cfg}
	u.menu = newTrayMenu(u)
	if desk, ok := a.(desktop.App); ok && TrayPossible() {
		u.tray = true
		desk.SetSystemTrayMenu(u.menu.menu)
		desk.SetSystemTrayIcon(u.menu.icon())
	} else if _, ok := a.(desktop.App); ok {
		slog.Warn("no D-Bus session bus: running without a tray icon; closing the manager window hides it, and the server keeps serving until mcptray is stopped (Ctrl-C)")
	}
	return u
}

// Run shows the app and blocks until it quits. ctx ending quits it too.
func (u *UI) Run(ctx context.Context) {
	stop := context.AfterFunc(ctx, func() { fyne.Do(u.app.Quit) })
	defer stop()
	// The tray follows the server until Quit begins, not while it stops
	// (the store closes) nor after the UI has gone.
	wctx, stopWatch := context.WithCancel(ctx)
	u.stopWatch = stopWatch
	watched := make(chan struct{})
	go func() { defer close(watched); u.menu.watch(wctx) }()
	defer func() { stopWatch(); <-watched }()
	if u.cfg.ShowManager || u.cfg.Welcome || !u.tray {
		u.app.Lifecycle().SetOnStarted(func() {
			u.OpenManager()
			if u.cfg.Welcome {
				u.manager.showWelcome()
			}
		})
	}
	u.app.Run()
}

// Quit stops the server (BeforeQuit) while the UI still runs, then quits.
// An editor with unsaved changes is shown first, and the person asked.
func (u *UI) Quit() {
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
	if u.stopWatch != nil {
		u.stopWatch()
	}
	go func() {
		if u.cfg.BeforeQuit != nil {
			u.cfg.BeforeQuit()
		}
		fyne.Do(u.app.Quit)
	}()
}

// OpenManager shows the manager window, creating it on first use.
func (u *UI) OpenManager() {
	if u.manager == nil {
		u.manager = NewManager(u.app, u.cfg)
		u.manager.SetCloseIntercept(func() {
			u.manager.win.Hide()
			u.manager.activity.Stop() // nobody sees the log: stop following it
		})
	}
	u.manager.win.Show()
	u.manager.win.RequestFocus()
	if tab := u.manager.tabs.Selected(); tab != nil && tab.Content == u.manager.activity.Content() && !u.manager.activity.Following() {
		u.manager.activity.Reload() // shown again on the Activity tab: follow the log again
	}
}

// ShowTaskWindow opens the task window, or raises it when it is open
// already; it returns nil when there is no engine. Call it on the UI
// goroutine.
func (u *UI) ShowTaskWindow() *TaskWindow {
	if u.cfg.Engine == nil {
		return nil
	}
	if u.tasks == nil {
		u.tasks = NewTaskWindow(u.app, u.cfg.Engine)
	}
	u.tasks.Show()
	return u.tasks
}

// TrayPossible says whether a system tray can exist here: on Linux it
// needs a D-Bus session bus (without one, fyne's systray panics on Quit).
func TrayPossible() bool {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		return true
	}
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		return true
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		if _, err := os.Stat(d + "/bus"); err == nil {
			return true
		}
	}
	return false
}
