package ui

import (
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/mcptray/mcptray/catalog"
)

// Card is the frame of one item of a cardList: a numbered title, buttons
// to move it or remove it, the item's fields and its error line.
type Card struct {
	Title            *widget.Label
	Up, Down, Remove *widget.Button
	Err              *widget.Label
	box              *fyne.Container
}

// Carded is an item shown as a card; CardOf is that card.
type Carded interface{ CardOf() *Card }

// CardList is an ordered list a person adds to, removes from and reorders
// (input steps, content blocks); the order is the definition's order.
type CardList[T Carded] struct {
	Items []T
	Box   *fyne.Container
	// noun titles the cards: "Step 1", "Step 2"…
	noun string
	// field is the items' path in problem fields: "steps" for "steps[2].key".
	field string
	// Changed is called whenever an item is added, removed or moved (items
	// report their own edits).
	Changed func()
}

// NewCardList is an empty list of cards; noun names an item ("step"),
// field is the catalog field its problems are reported under, and changed
// follows every edit.
func NewCardList[T Carded](noun, field string, changed func()) *CardList[T] {
	return &CardList[T]{Box: container.NewVBox(), noun: noun, field: field, Changed: changed}
}

// NewCard frames body as the card of an item of l; the item's CardOf must
// return it.
func (l *CardList[T]) NewCard(item func() T, body ...fyne.CanvasObject) *Card {
	c := &Card{Title: widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), Err: FieldError()}
	c.Up = widget.NewButtonWithIcon("", theme.MoveUpIcon(), func() { l.move(item(), -1) })
	c.Down = widget.NewButtonWithIcon("", theme.MoveDownIcon(), func() { l.move(item(), 1) })
	c.Remove = widget.NewButtonWithIcon("", theme.DeleteIcon(), func() { l.remove(item()) })
	objs := append([]fyne.CanvasObject{container.NewBorder(nil, nil, nil, container.NewHBox(c.Up, c.Down, c.Remove), c.Title)}, body...)
	c.box = container.NewVBox(append(objs, c.Err, widget.NewSeparator())...)
	return c
}

// Append adds an item at the end.
func (l *CardList[T]) Append(it T) {
	l.Items = append(l.Items, it)
	l.Relayout()
}

func (l *CardList[T]) remove(it T) {
	l.Items = slices.DeleteFunc(l.Items, func(x T) bool { return x.CardOf() == it.CardOf() })
	l.Relayout()
	l.Changed()
}

func (l *CardList[T]) move(it T, by int) {
	i := slices.IndexFunc(l.Items, func(x T) bool { return x.CardOf() == it.CardOf() })
	j := i + by
	if i < 0 || j < 0 || j >= len(l.Items) {
		return
	}
	l.Items[i], l.Items[j] = l.Items[j], l.Items[i]
	l.Relayout()
	l.Changed()
}

// Relayout puts the cards in order and numbers them. Problems shown
// belong to the old positions, so they go.
func (l *CardList[T]) Relayout() {
	objs := make([]fyne.CanvasObject, len(l.Items))
	for i, it := range l.Items {
		c := it.CardOf()
		objs[i] = c.box
		c.Title.SetText(fmt.Sprintf("%s %d", l.noun, i+1))
		Enable(c.Up, i > 0)
		Enable(c.Down, i < len(l.Items)-1)
		SetFieldError(c.Err, nil)
	}
	l.Box.Objects = objs
	l.Box.Refresh()
}

// FieldLined is an item with error lines of its own for some of its
// fields (a step's form schema, under its text area), by field.
type FieldLined interface {
	FieldLines() map[string]*widget.Label
}

// ShowProblems puts each "<field>[i]…" problem on item i's card (on the
// item's own line of that field, if it has one) and clears the others; it
// returns the problems about no item it has.
func (l *CardList[T]) ShowProblems(ps []catalog.Problem) []catalog.Problem {
	by := map[*widget.Label][]string{}
	var rest []catalog.Problem
	for _, p := range ps {
		var i int
		var field string
		if n, _ := fmt.Sscanf(p.Field, l.field+"[%d]%s", &i, &field); n >= 1 && i >= 0 && i < len(l.Items) {
			field = strings.TrimPrefix(field, ".")
			line := l.Items[i].CardOf().Err
			if fl, ok := any(l.Items[i]).(FieldLined); ok && fl.FieldLines()[field] != nil {
				line, field = fl.FieldLines()[field], ""
			}
			if field != "" {
				by[line] = append(by[line], field+": "+p.Message)
			} else {
				by[line] = append(by[line], p.Message)
			}
			continue
		}
		rest = append(rest, p)
	}
	for _, it := range l.Items {
		SetFieldError(it.CardOf().Err, by[it.CardOf().Err])
		if fl, ok := any(it).(FieldLined); ok {
			for _, line := range fl.FieldLines() {
				SetFieldError(line, by[line])
			}
		}
	}
	return rest
}

// SelectKeeping selects v, adding it to the options when it is not one (a
// kind this mcptray does not know, from an imported catalog): saved as it
// was, it is named by validation rather than lost.
func SelectKeeping(s *widget.Select, v string) {
	if !slices.Contains(s.Options, v) {
		s.Options = append(s.Options, v)
	}
	s.SetSelected(v)
}

// Enable enables or disables w.
func Enable(w fyne.Disableable, on bool) {
	if on {
		w.Enable()
	} else {
		w.Disable()
	}
}
