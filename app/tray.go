package app

import (
	"context"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/mcptray/mcptray/app/clientconfig"
	"github.com/mcptray/mcptray/assets"
)

// trayState is what the tray icon shows.
type trayState int

const (
	stateServing trayState = iota
	statePaused
	stateAttention // a desktop question waits for an answer
	stateError
)

// trayMenu is the tray's menu; it is built without a tray too, so tests can
// click its items.
type trayMenu struct {
	u      *UI
	menu   *fyne.Menu
	status *fyne.MenuItem
	pause  *fyne.MenuItem
	tasks  *fyne.MenuItem
	state  trayState
	shown  trayState // the state of the icon in the tray
}

func newTrayMenu(u *UI) *trayMenu {
	m := &trayMenu{u: u}
	m.status = fyne.NewMenuItem("", nil)
	m.status.Disabled = true
	m.pause = fyne.NewMenuItem("Pause serving", m.togglePause)
	var connect []*fyne.MenuItem
	for _, c := range clientconfig.Clients() {
		connect = append(connect, fyne.NewMenuItem(c.Name+"…", func() { showConnect(u.app, c, u.cfg) }))
	}
	connectItem := fyne.NewMenuItem("Connect a client", nil)
	connectItem.ChildMenu = fyne.NewMenu("", connect...)
	m.tasks = fyne.NewMenuItem("Tasks", nil)
	m.tasks.ChildMenu = fyne.NewMenu("", fyne.NewMenuItem("Open the task window", m.openTasks))
	m.menu = fyne.NewMenu("mcptray",
		m.status,
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("Open mcptray", u.OpenManager),
		m.pause,
		connectItem,
		m.tasks,
		fyne.NewMenuItemSeparator(),
		m.quitItem(),
	)
	m.update()
	m.shown = m.state
	return m
}

// quitItem is Quit: it stops the server cleanly before the UI goes.
func (m *trayMenu) quitItem() *fyne.MenuItem {
	q := fyne.NewMenuItem("Quit", m.u.Quit)
	q.IsQuit = true
	return q
}

func (m *trayMenu) openTasks() {
	if m.u.cfg.Engine != nil {
		ShowTaskWindow(m.u.app, m.u.cfg.Engine)
	}
}

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
	running := 0
	if m.u.cfg.Engine != nil {
		running = len(m.u.cfg.Engine.RunningTasks())
	}
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
	m.pause.Label = map[bool]string{false: "Pause serving", true: "Resume serving"}[paused]
	m.tasks.Label = "Tasks"
	if running > 0 {
		m.tasks.Label = fmt.Sprintf("Tasks (%d running)", running)
	}
}

// icon is the tray icon for the current state.
func (m *trayMenu) icon() fyne.Resource {
	switch m.state {
	case statePaused:
		return assets.TrayPaused
	case stateAttention:
		return assets.TrayAttention
	case stateError:
		return assets.TrayError
	}
	return assets.TrayServing
}

// refresh updates the menu and, with a tray, the tray.
func (m *trayMenu) refresh() {
	m.update()
	m.menu.Refresh()
	if !m.u.tray {
		return
	}
	if desk, ok := m.u.app.(desktop.App); ok {
		desk.SetSystemTrayMenu(m.menu)
		if m.state != m.shown {
			m.shown = m.state
			desk.SetSystemTrayIcon(m.icon())
		}
	}
}

// watch keeps the menu current: on every task change, and every few
// seconds for the questions waiting.
func (m *trayMenu) watch(ctx context.Context) {
	var tasks <-chan struct{}
	if m.u.cfg.Engine != nil {
		ch := make(chan struct{}, 1)
		sub := m.u.cfg.Engine.SubscribeTasks(ctx)
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
	last := ""
	for {
		select {
		case <-ctx.Done():
			return
		case <-tasks:
		case <-tick.C:
		}
		fyne.DoAndWait(func() {
			m.update()
			if key := fmt.Sprint(m.status.Label, m.pause.Label, m.state); key != last {
				last = key
				m.refresh()
			}
		})
	}
}
