// Package tray is the desktop side of the serving process: the tray icon
// and its menu, drawn through fyne.io/systray alone (a StatusNotifierItem
// over D-Bus on Linux, the notification area on Windows, the menu bar on
// macOS), and the window process (`mcptray window`, package app), which it
// starts when there is something to show and which ends when it holds no
// window. It draws nothing itself: no Fyne app, no connection to the X
// server, no GL context, so that at rest, all day in the tray, it costs
// what the server costs.
//
// Without a tray host the window process starts with the app, and closing
// its manager window asks whether to quit.
package tray

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptray/mcptray/app/link"
	"github.com/mcptray/mcptray/assets"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/storage"
	"github.com/mcptray/mcptray/upstream"
)

// Server is the running MCP server as the tray sees it (internal/daemon).
type Server interface {
	URL() string
	Paused() bool
	SetPaused(bool)
	// Halted says why the server stopped answering on its own (its
	// database was deleted or moved), "" while it answers.
	Halted() string
	// SaveSettings stores set, which the server applies at once; with
	// movePort it first moves to set's port.
	SaveSettings(ctx context.Context, set catalog.Settings, movePort bool) (moved bool, err error)
}

// Engine is what the tray and the windows need of the MCP engine: its
// tasks, its remembered approvals, and a catalog sync.
type Engine interface {
	RunningTasks() []record.Task
	SubscribeTasks(ctx context.Context) <-chan record.Task
	CancelTask(id string) error
	RememberedApprovals(ctx context.Context) ([]record.RememberedApproval, error)
	ForgetApproval(ctx context.Context, k record.ApprovalKey) error
	ForgetAllApprovals(ctx context.Context) error
	SubscribeApprovals(ctx context.Context) <-chan struct{}
	Sync(ctx context.Context) error
}

// Store is what the tray reads of the database: the clients seen lately,
// its change feed, whether the file went (after which the server halts),
// and the desktop's stored preferences.
type Store interface {
	RecentClients(ctx context.Context, since time.Time) ([]storage.RecentClient, error)
	Changes(ctx context.Context) <-chan struct{}
	Gone() <-chan struct{}
	State(ctx context.Context, key string, v any) (bool, error)
}

// ActivityFeed delivers the activity records the server writes, as it
// writes them (storage.ActivityWriter), until ctx ends.
type ActivityFeed interface {
	SubscribeActivity(ctx context.Context) <-chan record.Activity
}

// Upstreams is how the other MCP servers mcptray fronts run
// (internal/daemon, over its upstream.Manager).
type Upstreams interface {
	UpstreamStatus(name string) upstream.Status
}

// Config is what the tray works on.
type Config struct {
	Server Server
	Engine Engine
	// Upstreams answers the window's Servers tab; nil: none runs.
	Upstreams Upstreams
	Store     Store
	Activity  ActivityFeed
	// Asker is the Asker the server asks its desktop questions through.
	Asker *Asker
	// StartWindow starts a window process.
	StartWindow Starter
	// Host is the tray host found (DetectHost): without one there is no
	// tray icon, and the window is the app.
	Host Host
	// Icon draws the tray icon and its menu, with a tray host.
	Icon Icon
	// DB, Version, ShimPath and Secrets are what the windows show and
	// open (link.Start).
	DB, Version, ShimPath string
	Secrets               link.SecretStore
	// Welcome greets the person in the first manager window (first
	// start); ShowManager opens the manager at start.
	Welcome, ShowManager bool
	// BeforeQuit runs when the person quits, before the window process is
	// told to end: the caller stops the server there.
	BeforeQuit func()
}

// Icon is the desktop's tray icon, in which the tray shows its menu
// (app/trayicon, through fyne.io/systray).
type Icon interface {
	// Run shows the icon, titled title, and blocks until Quit; ready runs
	// once the tray runs, when Add may be called.
	Run(title string, png []byte, ready func())
	// Add puts items in the tray's menu, once; a click on one runs its
	// Click. Called with the items held still.
	Add(items []*Item)
	// Sync shows the items as they are now. Called with the items held
	// still.
	Sync()
	// SetIcon shows another icon.
	SetIcon(png []byte)
	// Opened receives a value each time the menu opens (not on every
	// system).
	Opened() <-chan struct{}
	// Quit ends Run.
	Quit()
}

// The tray states.
type trayState = assets.TrayState

const (
	stateServing   = assets.TrayServing
	statePaused    = assets.TrayPaused
	stateAttention = assets.TrayAttention // a desktop question waits for an answer
	stateError     = assets.TrayError
)

// trayTitle is the tray item's title and, on Linux, its stable Id.
const trayTitle = "mcptray"

// Tray is the serving process's desktop: the tray icon and its menu, and
// the window process it starts.
type Tray struct {
	cfg Config
	win *windows

	mu   sync.Mutex
	menu *menu
	// shown is the state the menu last showed; dark says whether the
	// panel is dark; icon is the icon in the tray.
	shown menuState
	dark  bool
	icon  string
	// shownIn is the icon showing the menu once it runs; nil before, and
	// without a tray host. iconDone is closed when the icon's loop ends.
	shownIn  Icon
	iconDone chan struct{}
	// recent are the clients last read (nil: not yet).
	recent []string

	quitOnce sync.Once
	// leaving is set when quitting begins; quitted is closed once it is
	// done (the server stopped, the window process told to end).
	leaving atomic.Bool
	quitted chan struct{}
	// makingWay is set while MakeWay waits to quit.
	makingWay atomic.Bool
}

// New builds the tray of cfg; Run shows it.
func New(cfg Config) *Tray {
	t := &Tray{cfg: cfg, dark: true, quitted: make(chan struct{})}
	t.win = &windows{t: t, start: cfg.StartWindow, welcomeDue: cfg.Welcome}
	if cfg.Asker != nil {
		cfg.Asker.mu.Lock()
		cfg.Asker.win = t.win
		cfg.Asker.mu.Unlock()
	}
	t.menu = newMenu(commands{open: t.Open, setPaused: t.setPaused, quit: t.Quit})
	t.update()
	return t
}

// Open opens (or raises) a window in the window process.
func (t *Tray) Open(w link.Window) { t.win.open(w) }

// Run shows the tray (with a tray host) and the windows due at start, and
// blocks until the person quits or ctx ends: then BeforeQuit has run and
// the window process was told to end when it returns. (It returns too if
// the tray itself fails.) Call it on the main goroutine: macOS's menu bar
// runs there.
func (t *Tray) Run(ctx context.Context) {
	wctx, stopWatch := context.WithCancel(ctx)
	// A first round before the tray shows: its first menu says how things
	// stand, not "looking…"; watch's own first round, once it follows the
	// changes, then finds nothing to change.
	w := t.newWatcher()
	w.round(wctx)
	watched := make(chan struct{})
	go func() { defer close(watched); t.watch(wctx, w) }()
	defer func() { stopWatch(); <-watched }()
	stop := context.AfterFunc(ctx, t.quit)
	defer stop()
	if !t.cfg.Host.Present {
		slog.Info("no tray icon: mcptray runs as its window, shown at start; closing it quits", "tray", t.cfg.Host.About)
		t.Open(link.Window{What: link.OpenManager})
		<-t.quitted
		return
	}
	slog.Info("mcptray lives in the tray: closing its window keeps it serving", "tray", t.cfg.Host.About)
	if t.cfg.ShowManager || t.cfg.Welcome {
		t.Open(link.Window{What: link.OpenManager})
	}
	if t.cfg.Icon == nil {
		<-t.quitted // a tray host, and no icon to draw in it: tests
		return
	}
	t.runTray(wctx)
}

// runTray shows the tray icon and its menu until quit ends it.
func (t *Tray) runTray(ctx context.Context) {
	icon := t.cfg.Icon
	done := make(chan struct{})
	t.mu.Lock()
	shown := t.iconFor(t.shown)
	t.icon = shown.Name
	t.iconDone = done
	t.mu.Unlock()
	defer func() {
		close(done)
		if t.quitting() {
			<-t.quitted // Run returns once the server stopped
		}
	}()
	icon.Run(trayTitle, shown.PNG, func() {
		t.mu.Lock()
		icon.Add(t.menu.items)
		t.shownIn = icon
		t.mu.Unlock()
		followPanel(ctx, icon.Opened(), t.setDark)
		t.refresh()
	})
}

// Quit quits mcptray, after the window process (if one runs) asked about
// unsaved changes. It returns at once.
func (t *Tray) Quit() {
	go func() {
		if t.win.askQuit() {
			t.quit()
		}
	}()
}

// MakeWay quits mcptray for a newer version of it that is starting (the
// server's leave request, daemon.HandOver), without losing a question: it
// waits until no question waits for an answer — the person answers them
// in this version's windows, or they time out — and then quits as Quit
// does, the window process asking about unsaved changes first. It
// returns at once.
//
// Calls that come meanwhile are served as usual. A question asked in the
// moment between the last answer and the server's stop is withdrawn as it
// is when the person quits.
func (t *Tray) MakeWay() {
	if !t.makingWay.CompareAndSwap(false, true) {
		return // a second launch while the first waits: one wait is enough
	}
	go func() {
		defer t.makingWay.Store(false) // the person may keep it (unsaved changes): ask again next time
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if a := t.cfg.Asker; a != nil {
			changed := a.Subscribe(ctx)
			for a.Pending() > 0 {
				select {
				case <-changed:
				case <-t.quitted:
					return
				}
			}
		}
		slog.Info("a newer mcptray is starting: this one quits so that it takes over")
		if t.win.askQuit() {
			t.quit()
		}
	}()
}

// quit takes the icon out of the tray, stops the server (BeforeQuit),
// tells the window process to end, and ends Run; once. The icon goes
// first: the server's stop lets another mcptray start (a newer version
// taking over), and its icon must not show beside this one.
func (t *Tray) quit() {
	t.quitOnce.Do(func() {
		t.leaving.Store(true)
		if t.cfg.Host.Present && t.cfg.Icon != nil {
			t.cfg.Icon.Quit()
			t.iconGone()
		}
		if t.cfg.BeforeQuit != nil {
			t.cfg.BeforeQuit()
		}
		t.win.exit()
		close(t.quitted)
	})
}

// iconWait bounds how long quitting waits for the icon to leave the tray.
const iconWait = 5 * time.Second

// iconGone waits until the icon's loop has ended (its tray item taken off
// the bus), if it ever ran.
func (t *Tray) iconGone() {
	t.mu.Lock()
	done := t.iconDone
	t.mu.Unlock()
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-time.After(iconWait):
		slog.Warn("the tray icon did not go within the time allowed; quitting all the same", "waited", iconWait)
	}
}

// quitting says whether quitting began.
func (t *Tray) quitting() bool { return t.leaving.Load() }

// setPaused pauses or resumes serving.
func (t *Tray) setPaused(paused bool) {
	if s := t.cfg.Server; s != nil {
		s.SetPaused(paused)
	}
	t.refresh()
}

// setDark redraws the icon for a dark or light panel.
func (t *Tray) setDark(dark bool) {
	t.mu.Lock()
	changed := dark != t.dark
	t.dark = dark
	t.mu.Unlock()
	if changed {
		t.refresh()
	}
}

// iconFor is the tray icon for s on the panel; the caller holds mu.
func (t *Tray) iconFor(s menuState) assets.TrayIcon { return assets.Tray(s.state(), t.dark) }

// linkState is the server's state as the windows show it.
func (t *Tray) linkState() link.State {
	s := link.State{}
	if srv := t.cfg.Server; srv != nil {
		s.URL, s.Paused = srv.URL(), srv.Paused()
	}
	return s
}

// state reads what the menu shows.
func (t *Tray) state() menuState {
	l := t.linkState()
	s := menuState{URL: l.URL, Paused: l.Paused}
	if srv := t.cfg.Server; srv != nil {
		s.Halted = srv.Halted()
	}
	if t.cfg.Asker != nil {
		s.Waiting = t.cfg.Asker.Pending()
	}
	if eng := t.cfg.Engine; eng != nil {
		s.Tasks = eng.RunningTasks()
	}
	t.win.mu.Lock()
	s.Problem = t.win.problem
	t.win.mu.Unlock()
	t.mu.Lock()
	s.Recent = t.recent
	t.mu.Unlock()
	return s
}

// update brings the menu in line with the server; it reports the state it
// shows.
func (t *Tray) update() menuState {
	s := t.state()
	t.mu.Lock()
	t.menu.update(s)
	t.shown = s
	t.mu.Unlock()
	return s
}

// refresh updates the menu, the tray and the window process's state.
func (t *Tray) refresh() {
	s := t.update()
	t.mu.Lock()
	if t.shownIn != nil {
		t.shownIn.Sync()
		if icon := t.iconFor(s); icon.Name != t.icon {
			t.icon = icon.Name
			t.shownIn.SetIcon(icon.PNG)
		}
	}
	t.mu.Unlock()
	t.win.sendState(link.State{URL: s.URL, Paused: s.Paused})
}

// Menu is the tray's menu as it stands, for tests and diagnostics.
func (t *Tray) Menu() []*Item {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.menu.items
}
