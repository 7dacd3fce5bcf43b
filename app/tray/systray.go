package tray

import (
	"reflect"

	"fyne.io/systray"
)

// sysTray shows the menu in the desktop's tray through fyne.io/systray,
// creating each item once and changing it in place from then on.
//
// systray numbers items from a counter that only grows and forgets the
// numbers of removed items, while a tray host sends a click as the number
// of the item in the menu it showed: a menu rebuilt on each change (as
// Fyne's SetSystemTrayMenu does) loses a click made just after a rebuild
// ("systray error: no menu item with ID 603"). Here an item keeps its
// number for the whole run, a click runs the action the item has when the
// click arrives, and lines come and go by being hidden and shown.
type sysTray struct {
	items map[*Item]*trayItem
}

// trayItem is a line of the tray and what it shows now.
type trayItem struct {
	sys    *systray.MenuItem
	label  string
	hidden bool
}

// newSysTray puts items in the tray, which systray.Run has started; run
// listen to serve their clicks. Items and separators are fixed from now on:
// sync mirrors their labels, enabled state and hidden.
func newSysTray(items []*Item) *sysTray {
	s := &sysTray{items: map[*Item]*trayItem{}}
	s.add(items)
	return s
}

// listen runs click, with the item clicked, for each click until the tray
// ends: one goroutine waits on every item's ClickedCh (the tray holds some
// 80 lines, each one's own goroutine would be some 80 stacks kept all day
// for clicks that are rare). systray drops a click that finds nobody
// waiting, as it would with a goroutine per item busy with the click
// before.
func (s *sysTray) listen(click func(*Item)) {
	cases := make([]reflect.SelectCase, 0, len(s.items))
	items := make([]*Item, 0, len(s.items))
	for it, ti := range s.items {
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

// add creates the systray items of items.
func (s *sysTray) add(items []*Item) {
	for _, it := range items {
		if it.Separator {
			systray.AddSeparator()
			continue
		}
		ti := &trayItem{sys: systray.AddMenuItem(it.Label, ""), label: it.Label}
		s.items[it] = ti
		s.apply(it, ti)
	}
}

// sync shows the items as they are now, touching only those that changed
// (each change is a D-Bus signal to the tray host).
func (s *sysTray) sync() {
	for it, ti := range s.items {
		s.apply(it, ti)
	}
}

// apply brings ti in line with it.
func (s *sysTray) apply(it *Item, ti *trayItem) {
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
