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
	"fyne.io/systray"

	"github.com/mcptray/mcptray/app/tryit"
	"github.com/mcptray/mcptray/assets"
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
	// recentClientNames caps the names the clients line spells out.
	recentClientNames = 3
	// trayTitle is the tray item's title and, on Linux, its stable Id.
	trayTitle = "mcptray"
)

// trayMenu is the tray's menu; it is built without a tray too, so tests can
// click its items. Its items are made once (see sysTray): what changes is
// their labels, which are enabled and which are hidden.
type trayMenu struct {
	u        *UI
	menu     *fyne.Menu
	status   *fyne.MenuItem
	clients  *fyne.MenuItem
	question *fyne.MenuItem
	// pause and resume are two items, one hidden: a click on the one the
	// host showed does what it said even if the state changed since.
	pause, resume *fyne.MenuItem
	tasks         *fyne.MenuItem
	// taskLines are the Tasks submenu's lines: a running task each, the
	// last one saying how many more run; noTasks stands in for them.
	taskLines []*fyne.MenuItem
	noTasks   *fyne.MenuItem
	hidden    map[*fyne.MenuItem]bool
	state     trayState
	// dark says whether the desktop is dark: the icon is then drawn for a
	// dark panel.
	dark bool
	// shown is the icon in the tray.
	shown fyne.Resource
	// recent are the clients seen recently, most recent first; nil until
	// the first look.
	recent []string
	// tray shows the menu in the desktop's tray; nil without one.
	tray *sysTray
}

func newTrayMenu(u *UI) *trayMenu {
	m := &trayMenu{u: u, hidden: map[*fyne.MenuItem]bool{}}
	m.status = fyne.NewMenuItem("", nil)
	m.status.Disabled = true
	m.clients = fyne.NewMenuItem("", nil)
	m.clients.Disabled = true
	m.question = fyne.NewMenuItem("", u.raiseQuestion)
	m.pause = fyne.NewMenuItem("Pause serving", func() { m.setPaused(true) })
	m.resume = fyne.NewMenuItem("Resume serving", func() { m.setPaused(false) })
	connectItem := fyne.NewMenuItem("Connect a client", nil)
	connectItem.ChildMenu = fyne.NewMenu("", connectItems(u.app, u.cfg)...)
	m.noTasks = fyne.NewMenuItem("No task running", nil)
	m.noTasks.Disabled = true
	taskItems := []*fyne.MenuItem{}
	for range maxTaskItems + 1 { // the last: "and N more…"
		line := fyne.NewMenuItem("", m.openTasks)
		m.taskLines = append(m.taskLines, line)
		taskItems = append(taskItems, line)
	}
	taskItems = append(taskItems, m.noTasks, fyne.NewMenuItemSeparator(), fyne.NewMenuItem("Open the task window", m.openTasks))
	m.tasks = fyne.NewMenuItem("Tasks", nil)
	m.tasks.ChildMenu = fyne.NewMenu("", taskItems...)
	items := []*fyne.MenuItem{m.status}
	if u.cfg.Store != nil {
		items = append(items, m.clients) // the activity log says who came
	}
	m.menu = fyne.NewMenu("mcptray", append(items,
		m.question,
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("Open mcptray", u.OpenManager),
		m.pause,
		m.resume,
		connectItem,
		m.tasks,
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("Quit", u.Quit), // stops the server cleanly before the UI goes
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
	return m
}

// isDark says whether the theme variant is dark; a desktop that states no
// preference counts as dark, as most panels are.
func isDark(s fyne.Settings) bool { return s.ThemeVariant() != theme.VariantLight }

func (m *trayMenu) openTasks() { m.u.ShowTaskWindow() }

// setPaused pauses or resumes serving.
func (m *trayMenu) setPaused(paused bool) {
	if m.u.cfg.Server == nil {
		return
	}
	m.u.cfg.Server.SetPaused(paused)
	m.u.stateChanged()
}

// isHidden says whether item is hidden now.
func (m *trayMenu) isHidden(item *fyne.MenuItem) bool { return m.hidden[item] }

// update recomputes the labels, what is hidden and the state; call it on
// the UI goroutine.
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
		status += " · " + count(running, "task running", "tasks running")
	}
	if waiting > 0 && m.state == stateServing {
		m.state = stateAttention
	}
	m.status.Label = status
	m.clients.Label = clientsLine(m.recent)
	m.question.Label = questionLine(waiting)
	m.hidden[m.question] = waiting == 0
	m.hidden[m.pause], m.hidden[m.resume] = paused, !paused
	m.tasks.Label = "Tasks"
	if running > 0 {
		m.tasks.Label = fmt.Sprintf("Tasks (%d running)", running)
	}
	m.setTaskLines(tasks)
}

// questionLine is the menu line that opens the question waiting, if any
// (the tray hides it when none waits; the window's menu disables it).
func questionLine(waiting int) string {
	switch waiting {
	case 0:
		return "No question waiting"
	case 1:
		return "A question is waiting for you…"
	}
	return fmt.Sprintf("%d questions are waiting for you…", waiting)
}

// maxTaskItems is how many running tasks the Tasks submenu lists.
const maxTaskItems = 8

// setTaskLines fills the Tasks submenu's lines with the running tasks
// (each opens the task window, where it can be cancelled).
func (m *trayMenu) setTaskLines(tasks []mcpcore.Task) {
	for i, line := range m.taskLines {
		switch {
		case i == maxTaskItems && len(tasks) > maxTaskItems:
			line.Label = fmt.Sprintf("and %d more…", len(tasks)-maxTaskItems)
		case i < len(tasks) && i < maxTaskItems:
			line.Label = taskLine(tasks[i])
		default:
			line.Label = ""
		}
		m.hidden[line] = line.Label == ""
	}
	m.hidden[m.noTasks] = len(tasks) > 0
}

// maxTaskLine caps a task's line: a progress message can be any length.
const maxTaskLine = 72

// taskLine is a running task as the menu shows it: the tool's title, its
// progress and its latest progress message.
func taskLine(t mcpcore.Task) string {
	line := taskTitle(t)
	if t.Total > 0 {
		line += fmt.Sprintf(" — %d%%", int(t.Progress/t.Total*100))
	}
	line += " · " + taskStatusLine(t)
	if r := []rune(line); len(r) > maxTaskLine {
		line = string(r[:maxTaskLine-1]) + "…"
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
// recentClientWindow, most recent first, leaving out the app's own Try it,
// and says when the first of them leaves that window (zero: none listed).
func recentClients(ctx context.Context, st *storage.Store) ([]string, time.Time, error) {
	seen, err := st.RecentClients(ctx, time.Now().Add(-recentClientWindow))
	if err != nil {
		return nil, time.Time{}, err
	}
	names := []string{}
	var leaves time.Time
	for _, c := range seen {
		// The app's own Try it is the person at the desktop, not a client.
		if isTryIt(c.Name, c.Token) {
			continue
		}
		if t := c.Last.Add(recentClientWindow); leaves.IsZero() || t.Before(leaves) {
			leaves = t
		}
		if !slices.Contains(names, c.Name) {
			names = append(names, c.Name)
		}
	}
	return names, leaves, nil
}

// isTryIt says whether a request's client or token is the app's own Try it.
func isTryIt(client, token string) bool {
	return client == tryit.ClientName || token == tryit.TokenName
}

// icon is the tray icon for the current state and desktop.
func (m *trayMenu) icon() fyne.Resource { return assets.Tray(m.state, m.dark) }

// showInTray puts the menu and its icon in the desktop's tray. Fyne starts
// the tray (and ends it on Quit) for a window to go with it; the window
// given is never shown. The menu itself is mcptray's own (see sysTray),
// so Fyne's is never set, and a click on the icon opens it as before.
func (m *trayMenu) showInTray(desk desktop.App) {
	m.shown = m.icon()
	desk.SetSystemTrayIcon(m.shown)
	// The StatusNotifierItem's Id is its title when it registers, else
	// "systray_<pid>"; Fyne sets the title only after it starts, racing
	// the registration. A title set first gives the item the same Id at
	// every start, so what the desktop remembers for it (KDE's "hide"
	// in the system tray settings) sticks.
	systray.SetTitle(trayTitle)
	desk.SetSystemTrayWindow(m.u.app.NewWindow("mcptray tray"))
	systray.SetOnTapped(nil)
}

// fillTray creates the tray's items; call it once the app runs (the tray
// is then started, as some platforms need before items are added).
func (m *trayMenu) fillTray() {
	m.tray = newSysTray(m.menu, m.isHidden)
}

// refresh updates the menu and, with a tray, the tray.
func (m *trayMenu) refresh() {
	m.update()
	if m.tray == nil {
		return
	}
	m.tray.sync()
	if desk, ok := m.u.app.(desktop.App); ok {
		if icon := m.icon(); icon != m.shown {
			m.shown = icon
			desk.SetSystemTrayIcon(icon)
		}
	}
}

// minRound is the least time between two rounds of watch: a command that
// streams its output as progress changes its task many times a second, and
// each change of a line is a D-Bus signal to the tray host.
const minRound = 500 * time.Millisecond

// watch keeps the menus current. It is woken by what changes them: a task
// starting, changing or ending; a question coming or going; a request (the
// clients line); a stored change (the settings: the port); and the moment a
// listed client's last request leaves the clients line's window. With
// nothing happening nothing of it runs: no polling round, no timer (make
// bench's tray figures). When a task starts and the person asked for it,
// it opens the task window.
func (m *trayMenu) watch(ctx context.Context) {
	w := m.newWatcher()
	cfg := m.u.cfg
	var (
		tasks, questions, stored <-chan struct{}
		activity                 <-chan mcpcore.Activity
	)
	if cfg.Engine != nil {
		tasks = coalesce(cfg.Engine.SubscribeTasks(ctx))
	}
	if cfg.Asker != nil {
		questions = cfg.Asker.Subscribe(ctx)
	}
	if cfg.Store != nil {
		stored = cfg.Store.Changes(ctx)
	}
	if cfg.Activity != nil {
		activity = cfg.Activity.SubscribeActivity(ctx)
	}
	// leaves fires when the first client listed leaves the window.
	leaves := time.NewTimer(time.Hour)
	leaves.Stop()
	defer leaves.Stop()
	for {
		w.round(ctx)
		select {
		case <-ctx.Done():
			return
		case <-time.After(minRound):
		}
		leaves.Stop()
		if !w.leaves.IsZero() {
			// A second late: the query counts a request at the window's
			// very edge as in it.
			leaves.Reset(time.Until(w.leaves) + time.Second)
		}
		// A channel closed (the server stopping) is nil from then on:
		// nothing more comes from it.
		select {
		case <-ctx.Done():
			return
		case _, ok := <-tasks:
			tasks = nilIfClosed(tasks, ok)
		case _, ok := <-questions:
			questions = nilIfClosed(questions, ok)
		case _, ok := <-stored:
			stored = nilIfClosed(stored, ok)
		case a, ok := <-activity:
			if !ok {
				activity = nil
			} else {
				w.heard(a)
			}
		case <-leaves.C:
			w.clientsDue = true
		}
	}
}

// nilIfClosed is ch, or nil once a receive from it said it is closed.
func nilIfClosed[T any](ch <-chan T, ok bool) <-chan T {
	if !ok {
		return nil
	}
	return ch
}

// coalesce turns a stream of values into signals that coalesce, so that a
// burst of task changes wakes the watcher once. The channel it returns is
// closed after in is.
func coalesce[T any](in <-chan T) <-chan struct{} {
	out := make(chan struct{}, 1)
	go func() {
		defer close(out)
		for range in {
			select {
			case out <- struct{}{}:
			default:
			}
		}
	}()
	return out
}

// trayWatcher is what watch remembers from one round to the next.
type trayWatcher struct {
	m *trayMenu
	// running are the ids of the tasks running at the last round.
	running map[string]bool
	// recent are the clients last read, and leaves when the first of them
	// leaves the clients line's window; clientsDue says to read them again
	// at the next round.
	recent     []string
	leaves     time.Time
	clientsDue bool
}

// newWatcher starts watching; the tasks running already open nothing.
func (m *trayMenu) newWatcher() *trayWatcher {
	w := &trayWatcher{m: m, running: map[string]bool{}, clientsDue: true}
	if eng := m.u.cfg.Engine; eng != nil {
		w.running = runningTaskIDs(eng.RunningTasks())
	}
	return w
}

// heard notes a request: the clients line is read again unless the
// request came from the client it names first, which it would only name
// first again.
func (w *trayWatcher) heard(a mcpcore.Activity) {
	name := a.Client
	if name == "" {
		name = a.Token
	}
	if name == "" || isTryIt(a.Client, a.Token) {
		return
	}
	if len(w.recent) == 0 || w.recent[0] != name {
		w.clientsDue = true
	}
}

// round reads what changed (off the UI goroutine: SQLite, the engine),
// then updates the menus on the UI goroutine.
func (w *trayWatcher) round(ctx context.Context) {
	u := w.m.u
	if st := u.cfg.Store; st != nil && w.clientsDue {
		w.clientsDue = false
		qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		names, leaves, err := recentClients(qctx, st)
		cancel()
		if err != nil {
			slog.Warn("the tray could not read the recent clients", "err", err)
		} else {
			w.recent, w.leaves = names, leaves
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
		if w.recent != nil {
			w.m.recent = w.recent
		}
		u.stateChanged()
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
