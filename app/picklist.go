package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// pickList is a list of items, one line each, in which one can be
// selected for the buttons under it to act on. A line too long for the
// list is cut short; the selected item's whole line shows under the list.
type pickList[T any] struct {
	items []T
	sel   int // -1: none
	list  *widget.List
	line  func(T) string
	// full is the selected item's whole line.
	full *widget.Label
	// acts act on the selected item: they are enabled only while one is.
	acts []fyne.Disableable
	// empty says the list is empty, in its place.
	empty *widget.Label
}

// newPickList lists items as line words them; acts are the buttons that
// act on the selected one.
func newPickList[T any](line func(T) string, acts ...fyne.Disableable) *pickList[T] {
	p := &pickList[T]{sel: -1, line: line, full: wrapLabel(""), acts: acts}
	p.list = widget.NewList(
		func() int { return len(p.items) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.ListItemID, o fyne.CanvasObject) { o.(*widget.Label).SetText(line(p.items[id])) },
	)
	p.list.OnSelected = func(id widget.ListItemID) { p.choose(id) }
	p.list.OnUnselected = func(widget.ListItemID) { p.choose(-1) }
	p.choose(-1)
	return p
}

// content is the list, showing about rows lines (empty says what an empty
// list means), over the selected item's whole line.
func (p *pickList[T]) content(rows int, empty string) fyne.CanvasObject {
	p.empty = hint(empty)
	row := widget.NewLabel("").MinSize().Height + theme.SeparatorThicknessSize()
	list := passWheel(p.list, func() bool { return float32(len(p.items))*row <= p.list.Size().Height })
	return container.NewVBox(minHeight(float32(rows)*row, container.NewStack(list, container.NewVBox(p.empty))), p.full)
}

// choose makes item i the selected one (-1: none).
func (p *pickList[T]) choose(i int) {
	p.sel = i
	it, ok := p.selected()
	for _, a := range p.acts {
		enable(a, ok)
	}
	if ok {
		p.full.SetText(p.line(it))
		p.full.Show()
	} else {
		p.full.SetText("")
		p.full.Hide()
	}
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
	p.list.UnselectAll()
	p.choose(-1)
	p.list.Refresh()
	if p.empty != nil {
		if len(items) == 0 {
			p.empty.Show()
		} else {
			p.empty.Hide()
		}
	}
}
