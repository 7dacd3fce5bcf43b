package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// PickList is a list of items, one line each, in which one can be
// selected for the buttons under it to act on. A line too long for the
// list is cut short; the selected item's whole line shows under the list.
type PickList[T any] struct {
	Items []T
	sel   int // -1: none
	List  *widget.List
	line  func(T) string
	// full is the selected item's whole line.
	full *widget.Label
	// acts act on the selected item: they are enabled only while one is.
	acts []fyne.Disableable
	// empty says the list is empty, in its place.
	empty *widget.Label
}

// NewPickList lists items as line words them; acts are the buttons that
// act on the selected one.
func NewPickList[T any](line func(T) string, acts ...fyne.Disableable) *PickList[T] {
	p := &PickList[T]{sel: -1, line: line, full: WrapLabel(""), acts: acts}
	p.List = widget.NewList(
		func() int { return len(p.Items) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.ListItemID, o fyne.CanvasObject) { o.(*widget.Label).SetText(line(p.Items[id])) },
	)
	p.List.OnSelected = func(id widget.ListItemID) { p.choose(id) }
	p.List.OnUnselected = func(widget.ListItemID) { p.choose(-1) }
	p.choose(-1)
	return p
}

// Content is the list, showing about rows lines (empty says what an empty
// list means), over the selected item's whole line.
func (p *PickList[T]) Content(rows int, empty string) fyne.CanvasObject {
	p.empty = Hint(empty)
	row := widget.NewLabel("").MinSize().Height + theme.SeparatorThicknessSize()
	list := PassWheel(p.List, func() bool { return float32(len(p.Items))*row <= p.List.Size().Height })
	return container.NewVBox(MinHeight(float32(rows)*row, container.NewStack(list, container.NewVBox(p.empty))), p.full)
}

// choose makes item i the selected one (-1: none).
func (p *PickList[T]) choose(i int) {
	p.sel = i
	it, ok := p.Selected()
	for _, a := range p.acts {
		Enable(a, ok)
	}
	if ok {
		p.full.SetText(p.line(it))
		p.full.Show()
	} else {
		// Kept in its place, empty: the buttons under the list must not
		// move up and down under the pointer as a line is selected.
		p.full.SetText("")
	}
}

// Selected is the item selected, if any.
func (p *PickList[T]) Selected() (T, bool) {
	if p.sel < 0 || p.sel >= len(p.Items) {
		var zero T
		return zero, false
	}
	return p.Items[p.sel], true
}

// Show lists items, none selected.
func (p *PickList[T]) Show(items []T) {
	p.Items = items
	p.List.UnselectAll()
	p.choose(-1)
	p.List.Refresh()
	if p.empty != nil {
		if len(items) == 0 {
			p.empty.Show()
		} else {
			p.empty.Hide()
		}
	}
}

// Update lists items as Show does, but keeps the selected item selected
// when items still hold one with its key: a list that follows changes
// made elsewhere must not drop the person's choice under the buttons.
func (p *PickList[T]) Update(items []T, key func(T) string) {
	was, ok := p.Selected()
	p.Show(items)
	if !ok {
		return
	}
	for i, it := range items {
		if key(it) == key(was) {
			p.List.Select(i)
			return
		}
	}
}
