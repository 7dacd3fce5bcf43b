package tray

import (
	"fmt"
	"strings"

	"github.com/mcptray/mcptray/app/link"
	"github.com/mcptray/mcptray/app/words"
	"github.com/mcptray/mcptray/record"
)

// Item is a line of the tray's menu as it stands: what it says, whether it
// shows and can be clicked, and what a click does. The menu is plain data,
// read by the tray (systray.go) and by tests without a display.
//
// The menu has no submenus. A tray host built on libdbusmenu-gtk
// (gtk-sni-tray-standalone, waybar, Xfce's panel) makes a submenu only for
// an item it realized before the submenu's lines; it realizes items as the
// answers to its property requests come back, and fyne.io/systray's D-Bus
// connection answers each request on a goroutine of its own, so the answer
// for the lines may come first: the submenu then draws as an empty sliver
// ("Children but no menu"), in about half the starts measured here.
type Item struct {
	Label     string
	Disabled  bool
	Hidden    bool
	Separator bool
	action    func()
}

// Click does what a click on the item in the tray does; nothing when it is
// disabled or hidden.
func (it *Item) Click() {
	if it.Disabled || it.Hidden || it.action == nil {
		return
	}
	it.action()
}

// menu is the tray's menu. Its items are made once and changed in place
// (see sysTray): what changes is their labels and which are hidden.
type menu struct {
	items []*Item
	// status says where mcptray serves; problem why its windows cannot
	// open (hidden when they can); clients who came lately.
	status, problem, clients *Item
	// question brings the waiting question up (hidden when none waits).
	question *Item
	// pause and resume are two items, one hidden: a click on the one the
	// host showed does what it said even if the state changed since.
	pause, resume *Item
	// taskLines are the running tasks, a line each, the last one saying
	// how many more run; hidden when fewer run.
	taskLines []*Item
}

// The tray's commands, which its menu's items run.
type commands struct {
	open      func(link.Window)
	setPaused func(bool)
	quit      func()
}

// maxTaskItems is how many running tasks the menu lists.
const maxTaskItems = 6

func newMenu(do commands) *menu {
	m := &menu{
		status:   &Item{Disabled: true},
		problem:  &Item{Disabled: true, Hidden: true},
		clients:  &Item{Disabled: true, Label: clientsLine(nil)},
		question: &Item{Hidden: true, action: func() { do.open(link.Window{What: link.OpenQuestion}) }},
		pause:    &Item{Label: "Pause serving", action: func() { do.setPaused(true) }},
		resume:   &Item{Label: "Resume serving", Hidden: true, action: func() { do.setPaused(false) }},
	}
	openTasks := func() { do.open(link.Window{What: link.OpenTasks}) }
	m.items = []*Item{
		m.status, m.problem, m.clients, m.question,
		{Separator: true},
		{Label: "Open mcptray", action: func() { do.open(link.Window{What: link.OpenManager}) }},
		m.pause, m.resume,
		{Label: "Connect a client…", action: func() { do.open(link.Window{What: link.OpenConnect}) }},
		{Separator: true},
	}
	for range maxTaskItems + 1 { // the last: "and N more…"
		line := &Item{Hidden: true, action: openTasks}
		m.taskLines = append(m.taskLines, line)
		m.items = append(m.items, line)
	}
	m.items = append(m.items,
		&Item{Label: "Open the task window", action: openTasks},
		&Item{Separator: true},
		&Item{Label: "Quit", action: do.quit})
	return m
}

// menuState is what the menu shows.
type menuState struct {
	URL     string
	Paused  bool
	Tasks   []record.Task
	Waiting int
	// Recent are the clients seen lately, most recent first; nil before
	// the first look.
	Recent []string
	// Problem is why mcptray's windows cannot open, "" when they can.
	Problem string
	// Halted is why the server stopped answering, "" while it answers.
	Halted string
}

// update brings the labels and what is hidden in line with s.
func (m *menu) update(s menuState) {
	running := len(s.Tasks)
	status := "Serving on " + s.URL
	switch {
	case s.Halted != "":
		status = "Not serving: " + s.Halted
	case s.URL == "":
		status = "Not serving"
	case s.Paused:
		status = "Paused (" + s.URL + ")"
	}
	if running > 0 {
		status += " · " + words.Count(running, "task running", "tasks running")
	}
	m.status.Label = status
	m.problem.Label = "Windows cannot open: " + s.Problem
	m.problem.Hidden = s.Problem == ""
	m.clients.Label = clientsLine(s.Recent)
	m.question.Label = words.QuestionLine(s.Waiting)
	m.question.Hidden = s.Waiting == 0
	// Neither would make a halted server serve again.
	m.pause.Hidden, m.resume.Hidden = s.Paused || s.Halted != "", !s.Paused || s.Halted != ""
	for i, line := range m.taskLines {
		switch {
		case i == maxTaskItems && running > maxTaskItems:
			line.Label = fmt.Sprintf("and %d more…", running-maxTaskItems)
		case i < running && i < maxTaskItems:
			line.Label = taskLine(s.Tasks[i])
		default:
			line.Label = ""
		}
		line.Hidden = line.Label == ""
	}
}

// state is the icon for s.
func (s menuState) state() trayState {
	switch {
	case s.URL == "" || s.Halted != "":
		return stateError
	case s.Paused:
		return statePaused
	case s.Waiting > 0:
		return stateAttention
	}
	return stateServing
}

// maxTaskLine caps a task's line: a progress message can be any length.
const maxTaskLine = 72

// taskLine is a running task as the menu shows it: the tool's title, its
// progress and its latest progress message.
func taskLine(t record.Task) string {
	line := words.TaskTitle(t)
	if t.Total > 0 {
		line += fmt.Sprintf(" — %d%%", int(t.Progress/t.Total*100))
	}
	line += " · " + words.TaskStatus(t)
	if r := []rune(line); len(r) > maxTaskLine {
		line = string(r[:maxTaskLine-1]) + "…"
	}
	return line
}

// recentClientNames caps the names the clients line spells out.
const recentClientNames = 3

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

// find is the first item labelled label.
func find(items []*Item, label string) *Item {
	for _, it := range items {
		if it.Label == label {
			return it
		}
	}
	return nil
}
