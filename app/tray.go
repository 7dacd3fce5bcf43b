package app

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"

	"github.com/mcptray/mcptray/app/tryit"
	"github.com/mcptray/mcptray/assets"
	"github.com/mcptray/mcptray/clientconfig"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// trayState is what the tray icon shows.
type trayState = assets.TrayState

// The tray states.
const (
	stateServing   = assets.TrayServing
	statePaused    = assets.TrayPaused
	stateAttention = assets.TrayAttention // a desktop question waits for an answer
	stateError     = assets.TrayError
)

const (
	// recentClientWindow is how far back the tray looks for clients.
	recentClientWindow = 10 * time.Minute
	// recentClientCheck is how often it looks.
	recentClientCheck = 10 * time.Second
	// recentClientNames caps the names the clients line spells out.
	recentClientNames = 3
)

// trayMenu is the tray's menu; it is built without a tray too, so tests can
// click its items.
type trayMenu struct {
	u       *UI
	menu    *fyne.Menu
	status  *fyne.MenuItem
	clients *fyne.MenuItem
	pause   *fyne.MenuItem
	tasks   *fyne.MenuItem
	state   trayState
	// dark says whether the desktop is dark: the icon is then drawn for a
	// dark panel.
	dark bool
	// shown is the icon in the tray.
	shown fyne.Resource
	// recent are the clients seen recently, most recent first; nil until
	// the first look.
	recent []string
}

func newTrayMenu(u *UI) *trayMenu {
	m := &trayMenu{u: u}
	m.status = fyne.NewMenuItem("", nil)
	m.status.Disabled = true
	m.clients = fyne.NewMenuItem("", nil)
	m.clients.Disabled = true
	m.pause = fyne.NewMenuItem("Pause serving", m.togglePause)
	var connect []*fyne.MenuItem
	for _, c := range clientconfig.Clients() {
		item := fyne.NewMenuItem(c.Name, nil)
		item.ChildMenu = connectMenu(u.app, c, u.cfg)
		connect = append(connect, item)
	}
	connectItem := fyne.NewMenuItem("Connect a client", nil)
	connectItem.ChildMenu = fyne.NewMenu("", connect...)
	m.tasks = fyne.NewMenuItem("Tasks", nil)
	m.tasks.ChildMenu = fyne.NewMenu("", fyne.NewMenuItem("Open the task window", m.openTasks))
	items := []*fyne.MenuItem{m.status}
	if u.cfg.Store != nil {
		items = append(items, m.clients) // the activity log says who came
	}
	m.menu = fyne.NewMenu("mcptray", append(items,
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("Open mcptray", u.OpenManager),
		m.pause,
		connectItem,
		m.tasks,
		fyne.NewMenuItemSeparator(),
		m.quitItem(),
	)...)
	m.dark = isDark(u.app.Settings())
	u.app.Settings().AddListener(func(s fyne.Settings) {
		// A theme change (the desktop went dark or light) redraws the icon.
		if dark := isDark(s); dark != m.dark {
			m.dark = dark
			m.refresh()
		}
	})
	m.update()
	m.shown = m.icon() // New puts it in the tray
	return m
}

// isDark says whether the theme variant is dark; a desktop that states no
// preference counts as dark, as most panels are.
func isDark(s fyne.Settings) bool { return s.ThemeVariant() != theme.VariantLight }

// quitItem is Quit: it stops the server cleanly before the UI goes.
func (m *trayMenu) quitItem() *fyne.MenuItem {
	q := fyne.NewMenuItem("Quit", m.u.Quit)
	q.IsQuit = true
	return q
}

func (m *trayMenu) openTasks() { m.u.ShowTaskWindow() }

func (m *trayMenu) togglePause() {
	if m.u.cfg.Server == nil {
		return
	}
	m.u.cfg.Server.SetPaused(!m.u.cfg.Server.Paused())
	m.refresh()
}

// update recomputes the labels and the state; call it on the UI goroutine.
func (m *trayMenu) update() {
	var url string
	paused := false
	if s := m.u.cfg.Server; s != nil {
		url, paused = s.URL(), s.Paused()
	}
	var tasks []mcpcore.Task
	if m.u.cfg.Engine != nil {
		tasks = m.u.cfg.Engine.RunningTasks()
	}
	running := len(tasks)
	waiting := 0
	if m.u.cfg.Asker != nil {
		waiting = m.u.cfg.Asker.Pending()
	}
	status := "Serving on " + url
	m.state = stateServing
	switch {
	case url == "":
		status, m.state = "Not serving", stateError
	case paused:
		status, m.state = "Paused ("+url+")", statePaused
	}
	if running > 0 {
		status += fmt.Sprintf(" · %d task(s) running", running)
	}
	if waiting > 0 {
		status += fmt.Sprintf(" · %d question(s) waiting", waiting)
		if m.state == stateServing {
			m.state = stateAttention
		}
	}
	m.status.Label = status
	m.clients.Label = clientsLine(m.recent)
	m.pause.Label = map[bool]string{false: "Pause serving", true: "Resume serving"}[paused]
	m.tasks.Label = "Tasks"
	if running > 0 {
		m.tasks.Label = fmt.Sprintf("Tasks (%d running)", running)
	}
	m.tasks.ChildMenu.Items = m.taskItems(tasks)
}

// maxTaskItems is how many running tasks the Tasks submenu lists.
const maxTaskItems = 8

// taskItems are the Tasks submenu: a line per running task (each opens the
// task window, where it can be cancelled), then the window itself.
func (m *trayMenu) taskItems(tasks []mcpcore.Task) []*fyne.MenuItem {
	var items []*fyne.MenuItem
	for i, t := range tasks {
		if i == maxTaskItems {
			items = append(items, fyne.NewMenuItem(fmt.Sprintf("and %d more…", len(tasks)-maxTaskItems), m.openTasks))
			break
		}
		items = append(items, fyne.NewMenuItem(taskLine(t), m.openTasks))
	}
	if len(items) > 0 {
		items = append(items, fyne.NewMenuItemSeparator())
	}
	return append(items, fyne.NewMenuItem("Open the task window", m.openTasks))
}

// taskLine is a running task as the menu shows it: the tool and its
// progress in tens of percent. Not its messages: a command's every output
// line is one, and each change redraws the tray menu over D-Bus; the task
// window shows them.
func taskLine(t mcpcore.Task) string {
	line := t.Tool
	if t.Total > 0 {
		line += fmt.Sprintf(" — %d%%", int(t.Progress/t.Total*10)*10)
	}
	return line
}

// clientsLine is the menu line naming the clients seen recently.
func clientsLine(recent []string) string {
	switch {
	case recent == nil:
		return "Clients: looking…"
	case len(recent) == 0:
		return "No client in the last 10 minutes"
	case len(recent) > recentClientNames:
		return fmt.Sprintf("Clients: %s and %d more (last 10 min)",
			strings.Join(recent[:recentClientNames], ", "), len(recent)-recentClientNames)
	}
	return "Clients: " + strings.Join(recent, ", ") + " (last 10 min)"
}

// recentClients names the clients with requests in the last
// recentClientWindow, most recent first, leaving out the app's own Try it.
func recentClients(ctx context.Context, st *storage.Store) ([]string, error) {
	seen, err := st.RecentClients(ctx, time.Now().Add(-recentClientWindow))
	if err != nil {
		return nil, err
	}
	names := []string{}
	for _, c := range seen {
		// The app's own Try it is the person at the desktop, not a client.
		if c.Name == tryit.ClientName || c.Token == tryit.TokenName || slices.Contains(names, c.Name) {
			continue
		}
		names = append(names, c.Name)
	}
	return names, nil
}

// menuLabels are the labels of menu's items, to tell when it changed.
func menuLabels(menu *fyne.Menu) []string {
	labels := make([]string, len(menu.Items))
	for i, it := range menu.Items {
		labels[i] = it.Label
	}
	return labels
}

// icon is the tray icon for the current state and desktop.
func (m *trayMenu) icon() fyne.Resource { return assets.Tray(m.state, m.dark) }

// refresh updates the menu and, with a tray, the tray.
func (m *trayMenu) refresh() {
	m.update()
	m.menu.Refresh()
	if !m.u.tray {
		return
	}
	if desk, ok := m.u.app.(desktop.App); ok {
		desk.SetSystemTrayMenu(m.menu)
		if icon := m.icon(); icon != m.shown {
			m.shown = icon
			desk.SetSystemTrayIcon(icon)
		}
	}
}

// watch keeps the menu current: on every task change, every few seconds
// for the questions waiting, every recentClientCheck for the clients. When
// a task starts and the person asked for it, it opens the task window.
func (m *trayMenu) watch(ctx context.Context) {
	w := m.newWatcher()
	var tasks <-chan struct{}
	if eng := m.u.cfg.Engine; eng != nil {
		ch := make(chan struct{}, 1)
		sub := eng.SubscribeTasks(ctx)
		go func() {
			for range sub {
				select {
				case ch <- struct{}{}:
				default:
				}
			}
		}()
		tasks = ch
	}
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		w.round(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tasks:
		case <-tick.C:
		}
	}
}

// trayWatcher is what watch remembers from one round to the next.
type trayWatcher struct {
	m *trayMenu
	// running are the ids of the tasks running at the last round.
	running map[string]bool
	// recent are the clients last read, looked when.
	recent []string
	looked time.Time
	// shown are the labels and state last put in the tray.
	shown string
}

// newWatcher starts watching; the tasks running already open nothing.
func (m *trayMenu) newWatcher() *trayWatcher {
	w := &trayWatcher{m: m, running: map[string]bool{}}
	if eng := m.u.cfg.Engine; eng != nil {
		w.running = runningTaskIDs(eng.RunningTasks())
	}
	return w
}

// round reads what changed (off the UI goroutine: SQLite, the engine),
// then updates the menu on the UI goroutine.
func (w *trayWatcher) round(ctx context.Context) {
	u := w.m.u
	if st := u.cfg.Store; st != nil && time.Since(w.looked) >= recentClientCheck {
		w.looked = time.Now()
		qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		names, err := recentClients(qctx, st)
		cancel()
		if err != nil {
			slog.Warn("the tray could not read the recent clients", "err", err)
		} else {
			w.recent = names
		}
	}
	started := false
	if eng := u.cfg.Engine; eng != nil {
		now := runningTaskIDs(eng.RunningTasks())
		for id := range now {
			started = started || !w.running[id]
		}
		w.running = now
	}
	fyne.DoAndWait(func() {
		m := w.m
		if w.recent != nil {
			m.recent = w.recent
		}
		m.update()
		if key := fmt.Sprint(m.status.Label, m.clients.Label, m.pause.Label, m.state, menuLabels(m.tasks.ChildMenu)); key != w.shown {
			w.shown = key
			m.refresh()
		}
		if started && u.app.Preferences().Bool(PrefOpenTaskWindow) {
			u.ShowTaskWindow()
		}
	})
}

// runningTaskIDs is the set of the tasks' ids.
func runningTaskIDs(ts []mcpcore.Task) map[string]bool {
	ids := make(map[string]bool, len(ts))
	for _, t := range ts {
		ids[t.ID] = true
	}
	return ids
}
