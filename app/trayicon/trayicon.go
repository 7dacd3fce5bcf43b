// Package trayicon shows mcptray's tray icon and menu in the desktop's
// tray through fyne.io/systray: a StatusNotifierItem and its dbusmenu over
// D-Bus on Linux, the notification area on Windows, the menu bar on macOS
// (which needs cgo there). It draws nothing else: no Fyne app, no window.
// What the menu says and does is app/tray's.
package trayicon

import (
	"log/slog"
	"reflect"
	"sync"

	"fyne.io/systray"

	"github.com/mcptray/mcptray/app/tray"
)

// Icon is the tray icon and its menu (tray.Icon). Its items are made once
// and changed in place from then on.
//
// systray numbers items from a counter that only grows and forgets the
// numbers of removed items, while a tray host sends a click as the number
// of the item in the menu it showed: a menu rebuilt on each change (as
// Fyne's SetSystemTrayMenu does) loses a click made just after a rebuild
// ("systray error: no menu item with ID 603"). Here an item keeps its
// number for the whole run, a click runs the action the item has when the
// click arrives, and lines come and go by being hidden and shown.
type Icon struct {
	items map[*tray.Item]*trayItem
	// mu orders the changes to the shown icon and menu with the tray's
	// end: once it ended (ended), they are dropped. fyne.io/systray's
	// SetIcon panics once its D-Bus connection is closed, and the tray's
	// watcher may change the icon just as Quit closes it (seen: "panic:
	// dbus: connection closed by user", exit status 2 at Quit).
	mu    sync.Mutex
	ended bool
}

// trayItem is a line of the tray and what it shows now.
type trayItem struct {
	sys    *systray.MenuItem
	label  string
	hidden bool
}

// New returns the tray icon; Run shows it.
func New() *Icon { return &Icon{items: map[*tray.Item]*trayItem{}} }

// Run shows icon titled title, and blocks until Quit; ready runs once the
// tray runs, when Add may be called. Call it on the main goroutine: macOS's
// menu bar runs there.
func (ic *Icon) Run(title string, icon []byte, ready func()) {
	// The title goes first: the StatusNotifierItem's Id is its title when
	// it registers (else "systray_<pid>"), and a stable Id keeps what the
	// desktop remembers of it (KDE's "hide" in its tray settings) from one
	// start to the next. Windows' notification area has no icon to change
	// before the tray runs ("systray error: unable to set icon: tray not
	// ready yet"): there the tooltip and the icon are set once it runs.
	if setBeforeRun {
		systray.SetTitle(title)
		systray.SetTooltip(title)
		systray.SetIcon(native(icon))
	}
	defer func() {
		// fyne.io/systray ends by closing its D-Bus connection, nil when it
		// never made one (the bus went away after the tray host was found).
		if r := recover(); r != nil {
			slog.Warn("the tray failed while ending", "panic", r)
		}
		ic.end()
	}()
	systray.Run(func() {
		if !setBeforeRun {
			systray.SetTooltip(title)
			systray.SetIcon(native(icon))
		}
		ready()
	}, nil)
}

// SetIcon shows another icon, unless the tray ended. A tray that fails
// (its D-Bus connection lost) is said in the log; mcptray goes on.
func (ic *Icon) SetIcon(png []byte) {
	ic.whileShown(func() { systray.SetIcon(native(png)) })
}

// whileShown runs change unless the tray ended, and never while it ends;
// a panic of fyne.io/systray's is logged.
func (ic *Icon) whileShown(change func()) {
	ic.mu.Lock()
	defer ic.mu.Unlock()
	if ic.ended {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			slog.Warn("the tray icon could not be changed", "panic", r)
		}
	}()
	change()
}

// end marks the tray ended, once no change is under way.
func (ic *Icon) end() {
	ic.mu.Lock()
	ic.ended = true
	ic.mu.Unlock()
}

// Opened receives a value each time the menu opens (not on every
// system).
func (ic *Icon) Opened() <-chan struct{} { return systray.TrayOpenedCh }

// Quit ends Run.
func (ic *Icon) Quit() {
	ic.end()
	systray.Quit()
}

// listen runs click, with the item clicked, for each click until the tray
// ends: one goroutine waits on every item's ClickedCh (the tray holds some
// 80 lines, each one's own goroutine would be some 80 stacks kept all day
// for clicks that are rare). systray drops a click that finds nobody
// waiting, as it would with a goroutine per item busy with the click
// before.
func (ic *Icon) listen(click func(*tray.Item)) {
	cases := make([]reflect.SelectCase, 0, len(ic.items))
	items := make([]*tray.Item, 0, len(ic.items))
	for it, ti := range ic.items {
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ti.sys.ClickedCh)})
		items = append(items, it)
	}
	for len(cases) > 0 {
		i, _, ok := reflect.Select(cases)
		if !ok { // the item was removed: systray closed its channel
			cases = append(cases[:i], cases[i+1:]...)
			items = append(items[:i], items[i+1:]...)
			continue
		}
		click(items[i])
	}
}

// Add puts items in the tray's menu, once, and serves their clicks: each
// runs the item's Click. Call it with the items held still.
func (ic *Icon) Add(items []*tray.Item) {
	defer func() { go ic.listen(func(it *tray.Item) { it.Click() }) }()
	for _, it := range items {
		if it.Separator {
			systray.AddSeparator()
			continue
		}
		ti := &trayItem{sys: systray.AddMenuItem(it.Label, ""), label: it.Label}
		ic.items[it] = ti
		ic.apply(it, ti)
	}
}

// Sync shows the items as they are now, touching only those that changed
// (each change is a D-Bus signal to the tray host). Call it with the items
// held still (tray.Tray's lock).
func (ic *Icon) Sync() {
	ic.whileShown(func() {
		for it, ti := range ic.items {
			ic.apply(it, ti)
		}
	})
}

// apply brings ti in line with it.
func (ic *Icon) apply(it *tray.Item, ti *trayItem) {
	if it.Label != ti.label {
		ti.label = it.Label
		ti.sys.SetTitle(it.Label)
	}
	if it.Disabled != ti.sys.Disabled() {
		if it.Disabled {
			ti.sys.Disable()
		} else {
			ti.sys.Enable()
		}
	}
	if it.Hidden != ti.hidden {
		ti.hidden = it.Hidden
		if it.Hidden {
			ti.sys.Hide()
		} else {
			ti.sys.Show()
		}
	}
}
