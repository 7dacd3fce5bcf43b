package app

import (
	"log/slog"
	"reflect"

	"fyne.io/fyne/v2"
	"fyne.io/systray"
)

// sysTray shows a *fyne.Menu in the desktop's tray through fyne.io/systray,
// creating each item once and changing it in place from then on.
//
// Fyne's own SetSystemTrayMenu rebuilds the whole menu on every change:
// systray.ResetMenu, then a new systray item for every line. systray numbers
// items from a counter that only grows and forgets the numbers of removed
// items, while a tray host sends a click as the number of the item in the
// menu it showed; a click made just after a rebuild names a number that is
// gone, and systray drops it ("systray error: no menu item with ID 603").
// Here an item keeps its number for the whole run, a click runs the action
// its fyne.MenuItem has when the click arrives, and lines come and go by
// being hidden and shown, never by a rebuild.
type sysTray struct {
	menu *fyne.Menu
	// hidden says which items not to show now.
	hidden func(*fyne.MenuItem) bool
	items  map[*fyne.MenuItem]*trayItem
}

// trayItem is a line of the tray and what it shows now.
type trayItem struct {
	sys   *systray.MenuItem
	label string
	gone  bool
}

// newSysTray puts menu in the tray. Its items are fixed from now on: sync
// mirrors their labels, enabled state and hidden; separators stay.
func newSysTray(menu *fyne.Menu, hidden func(*fyne.MenuItem) bool) *sysTray {
	s := &sysTray{menu: menu, hidden: hidden, items: map[*fyne.MenuItem]*trayItem{}}
	s.add(menu, nil)
	go s.listen()
	return s
}

// listen runs the action of each item clicked, until Quit: one goroutine
// waits on every item's ClickedCh (the tray holds some 80 lines, each one's
// own goroutine would be some 80 stacks kept all day for clicks that are
// rare). systray drops a click that finds nobody waiting, as it would
// with a goroutine per item busy with the click before. The action is read
// when the click comes, on the UI goroutine: the item may have changed
// since it was shown.
func (s *sysTray) listen() {
	cases := make([]reflect.SelectCase, 0, len(s.items))
	items := make([]*fyne.MenuItem, 0, len(s.items))
	for fi, ti := range s.items {
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ti.sys.ClickedCh)})
		items = append(items, fi)
	}
	for len(cases) > 0 {
		i, _, ok := reflect.Select(cases)
		if !ok { // the item was removed: systray closed its channel
			cases = append(cases[:i], cases[i+1:]...)
			items = append(items[:i], items[i+1:]...)
			continue
		}
		fi := items[i]
		fyne.Do(func() {
			if !fi.Disabled && fi.Action != nil {
				fi.Action()
			}
		})
	}
}

// add creates the systray items of menu's lines, under parent (nil: the
// tray menu itself).
func (s *sysTray) add(menu *fyne.Menu, parent *systray.MenuItem) {
	for _, fi := range menu.Items {
		if fi.IsSeparator {
			if parent == nil {
				systray.AddSeparator()
			} else {
				parent.AddSeparator()
			}
			continue
		}
		var it *systray.MenuItem
		if parent == nil {
			it = systray.AddMenuItem(fi.Label, "")
		} else {
			it = parent.AddSubMenuItem(fi.Label, "")
		}
		ti := &trayItem{sys: it, label: fi.Label}
		s.items[fi] = ti
		s.apply(fi, ti)
		if fi.ChildMenu != nil {
			s.add(fi.ChildMenu, it)
		}
	}
}

// sync shows the menu's items as they are now, touching only the items
// that changed (each change is a D-Bus signal to the tray host).
func (s *sysTray) sync() { s.syncMenu(s.menu) }

func (s *sysTray) syncMenu(menu *fyne.Menu) {
	for _, fi := range menu.Items {
		if fi.IsSeparator {
			continue
		}
		ti, ok := s.items[fi]
		if !ok {
			slog.Error("the tray menu gained an item after it was shown; it is left out", "label", fi.Label)
			continue
		}
		s.apply(fi, ti)
		if fi.ChildMenu != nil {
			s.syncMenu(fi.ChildMenu)
		}
	}
}

// apply brings ti in line with fi.
func (s *sysTray) apply(fi *fyne.MenuItem, ti *trayItem) {
	if fi.Label != ti.label {
		ti.label = fi.Label
		ti.sys.SetTitle(fi.Label)
	}
	if fi.Disabled != ti.sys.Disabled() {
		if fi.Disabled {
			ti.sys.Disable()
		} else {
			ti.sys.Enable()
		}
	}
	if gone := s.hidden(fi); gone != ti.gone {
		ti.gone = gone
		if gone {
			ti.sys.Hide()
		} else {
			ti.sys.Show()
		}
	}
}
