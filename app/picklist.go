package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// pickList is a list of items, one line each, in which one can be
// selected for the buttons under it to act on.
type pickList[T any] struct {
	items []T
	sel   int // -1: none
	list  *widget.List
}

// newPickList lists items as line words them.
func newPickList[T any](line func(T) string) *pickList[T] {
	p := &pickList[T]{sel: -1}
	p.list = widget.NewList(
		func() int { return len(p.items) },
		func() fyne.CanvasObject { return widget.NewLabel("") },
		func(id widget.ListItemID, o fyne.CanvasObject) { o.(*widget.Label).SetText(line(p.items[id])) },
	)
	p.list.OnSelected = func(id widget.ListItemID) { p.sel = id }
	p.list.OnUnselected = func(widget.ListItemID) { p.sel = -1 }
	return p
}

// selected is the item selected, if any.
func (p *pickList[T]) selected() (T, bool) {
	if p.sel < 0 || p.sel >= len(p.items) {
		var zero T
		return zero, false
	}
	return p.items[p.sel], true
}

// show lists items, none selected.
func (p *pickList[T]) show(items []T) {
	p.items = items
	p.sel = -1
	p.list.UnselectAll()
	p.list.Refresh()
}
