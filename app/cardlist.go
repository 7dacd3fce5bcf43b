package app

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

// card is the frame of one item of a cardList: a numbered title, buttons
// to move it or remove it, the item's fields and its error line.
type card struct {
	title            *widget.Label
	up, down, remove *widget.Button
	err              *widget.Label
	box              *fyne.Container
}

// carded is an item shown as a card.
type carded interface{ cardOf() *card }

// cardList is an ordered list a person adds to, removes from and reorders
// (input steps, content blocks); the order is the definition's order.
type cardList[T carded] struct {
	items []T
	box   *fyne.Container
	// noun titles the cards: "Step 1", "Step 2"…
	noun string
	// field is the items' path in problem fields: "steps" for "steps[2].key".
	field string
	// changed is called whenever an item is added, removed or moved (items
	// report their own edits).
	changed func()
}

func newCardList[T carded](noun, field string, changed func()) *cardList[T] {
	return &cardList[T]{box: container.NewVBox(), noun: noun, field: field, changed: changed}
}

// newCard frames body as the card of an item of l; the item's cardOf must
// return it.
func (l *cardList[T]) newCard(item func() T, body ...fyne.CanvasObject) *card {
	c := &card{title: widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), err: fieldError()}
	c.up = widget.NewButtonWithIcon("", theme.MoveUpIcon(), func() { l.move(item(), -1) })
	c.down = widget.NewButtonWithIcon("", theme.MoveDownIcon(), func() { l.move(item(), 1) })
	c.remove = widget.NewButtonWithIcon("", theme.DeleteIcon(), func() { l.remove(item()) })
	objs := append([]fyne.CanvasObject{container.NewBorder(nil, nil, nil, container.NewHBox(c.up, c.down, c.remove), c.title)}, body...)
	c.box = container.NewVBox(append(objs, c.err, widget.NewSeparator())...)
	return c
}

// append adds an item at the end.
func (l *cardList[T]) append(it T) {
	l.items = append(l.items, it)
	l.relayout()
}

func (l *cardList[T]) remove(it T) {
	l.items = slices.DeleteFunc(l.items, func(x T) bool { return x.cardOf() == it.cardOf() })
	l.relayout()
	l.changed()
}

func (l *cardList[T]) move(it T, by int) {
	i := slices.IndexFunc(l.items, func(x T) bool { return x.cardOf() == it.cardOf() })
	j := i + by
	if i < 0 || j < 0 || j >= len(l.items) {
		return
	}
	l.items[i], l.items[j] = l.items[j], l.items[i]
	l.relayout()
	l.changed()
}

// relayout puts the cards in order and numbers them. Problems shown
// belong to the old positions, so they go.
func (l *cardList[T]) relayout() {
	objs := make([]fyne.CanvasObject, len(l.items))
	for i, it := range l.items {
		c := it.cardOf()
		objs[i] = c.box
		c.title.SetText(fmt.Sprintf("%s %d", l.noun, i+1))
		enable(c.up, i > 0)
		enable(c.down, i < len(l.items)-1)
		setFieldError(c.err, nil)
	}
	l.box.Objects = objs
	l.box.Refresh()
}

// fieldLined is an item with error lines of its own for some of its
// fields (a step's form schema, under its text area), by field.
type fieldLined interface {
	fieldLines() map[string]*widget.Label
}

// showProblems puts each "<field>[i]…" problem on item i's card (on the
// item's own line of that field, if it has one) and clears the others; it
// returns the problems about no item it has.
func (l *cardList[T]) showProblems(ps []catalog.Problem) []catalog.Problem {
	by := map[*widget.Label][]string{}
	var rest []catalog.Problem
	for _, p := range ps {
		var i int
		var field string
		if n, _ := fmt.Sscanf(p.Field, l.field+"[%d]%s", &i, &field); n >= 1 && i >= 0 && i < len(l.items) {
			field = strings.TrimPrefix(field, ".")
			line := l.items[i].cardOf().err
			if fl, ok := any(l.items[i]).(fieldLined); ok && fl.fieldLines()[field] != nil {
				line, field = fl.fieldLines()[field], ""
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
	for _, it := range l.items {
		setFieldError(it.cardOf().err, by[it.cardOf().err])
		if fl, ok := any(it).(fieldLined); ok {
			for _, line := range fl.fieldLines() {
				setFieldError(line, by[line])
			}
		}
	}
	return rest
}

// selectKeeping selects v, adding it to the options when it is not one (a
// kind this mcptray does not know, from an imported catalog): saved as it
// was, it is named by validation rather than lost.
func selectKeeping(s *widget.Select, v string) {
	if !slices.Contains(s.Options, v) {
		s.Options = append(s.Options, v)
	}
	s.SetSelected(v)
}

// enable enables or disables w.
func enable(w fyne.Disableable, on bool) {
	if on {
		w.Enable()
	} else {
		w.Disable()
	}
}
