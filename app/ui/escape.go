package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// The question windows answer Escape (deny, cancel) wherever the focus
// is. The driver hands a key to the widget that has the focus, and to the
// window only when none has it; Fyne's widgets ignore Escape. So the
// focusable widgets of a question window are these extensions of Fyne's,
// which pass Escape on to the window's answer and every other key to the
// widget they extend.

// Escaped runs onEscape if ev is Escape, and reports whether it was.
func Escaped(ev *fyne.KeyEvent, onEscape func()) bool {
	if ev.Name != fyne.KeyEscape || onEscape == nil {
		return false
	}
	onEscape()
	return true
}

// escapes is what the extensions share: onEscape takes Escape, typed
// hands every other key to the widget extended.
type escapes struct{ onEscape func() }

func (e escapes) typed(ev *fyne.KeyEvent, next func(*fyne.KeyEvent)) {
	if !Escaped(ev, e.onEscape) {
		next(ev)
	}
}

// EscButton is a button that passes Escape on, and shows plainly when it
// has the focus: Fyne's own hint, a tint, is lost on a coloured button,
// and the question windows are answered from the keyboard too.
type EscButton struct {
	widget.Button
	escapes
	focused bool
}

// NewEscButton is a button that runs tapped when pressed and onEscape
// when Escape is typed while it has the focus.
func NewEscButton(text string, icon fyne.Resource, onEscape, tapped func()) *EscButton {
	b := &EscButton{escapes: escapes{onEscape}}
	b.Text, b.Icon, b.OnTapped = text, icon, tapped
	b.ExtendBaseWidget(b)
	return b
}

// TypedKey passes Escape on; Space presses the button, as Fyne's does.
func (b *EscButton) TypedKey(ev *fyne.KeyEvent) { b.typed(ev, b.Button.TypedKey) }

// Extends is the Fyne button b extends: what tests and people look at.
func (b *EscButton) Extends() fyne.CanvasObject { return &b.Button }

// FocusGained shows the focus ring.
func (b *EscButton) FocusGained() {
	b.focused = true
	b.Button.FocusGained()
}

// FocusLost hides the focus ring.
func (b *EscButton) FocusLost() {
	b.focused = false
	b.Button.FocusLost()
}

// CreateRenderer draws the button with a ring around it while it has the
// focus.
func (b *EscButton) CreateRenderer() fyne.WidgetRenderer {
	ring := canvas.NewRectangle(color.Transparent)
	ring.StrokeWidth = 2
	r := &focusRingRenderer{WidgetRenderer: b.Button.CreateRenderer(), b: b, ring: ring}
	r.Refresh()
	return r
}

// focusRingRenderer is a button's renderer with a focus ring, drawn just
// outside the button in the text colour, which stands out from any button
// colour and from the window behind it.
type focusRingRenderer struct {
	fyne.WidgetRenderer
	b    *EscButton
	ring *canvas.Rectangle
}

// ringGap is how far the ring lies outside the button.
const ringGap = 3

func (r *focusRingRenderer) Layout(size fyne.Size) {
	r.WidgetRenderer.Layout(size)
	r.ring.Move(fyne.NewPos(-ringGap, -ringGap))
	r.ring.Resize(size.AddWidthHeight(2*ringGap, 2*ringGap))
}

func (r *focusRingRenderer) Objects() []fyne.CanvasObject {
	return append(r.WidgetRenderer.Objects(), r.ring)
}

func (r *focusRingRenderer) Refresh() {
	r.WidgetRenderer.Refresh()
	th := r.b.Theme()
	v := fyne.CurrentApp().Settings().ThemeVariant()
	r.ring.StrokeColor = th.Color(theme.ColorNameForeground, v)
	r.ring.CornerRadius = th.Size(theme.SizeNameInputRadius) + ringGap
	r.ring.Hidden = !r.b.focused
	r.ring.Refresh()
}

// escEntry is a one-line entry that passes Escape on.
type escEntry struct {
	widget.Entry
	escapes
}

func newEscEntry(onEscape func()) *escEntry {
	e := &escEntry{escapes: escapes{onEscape}}
	e.Wrapping = fyne.TextWrap(fyne.TextTruncateClip) // as widget.NewEntry
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey passes Escape on.
func (e *escEntry) TypedKey(ev *fyne.KeyEvent) { e.typed(ev, e.Entry.TypedKey) }

func (e *escEntry) Extends() fyne.CanvasObject { return &e.Entry }

// escSelect is a select that passes Escape on (an open list of choices
// closes on Escape by itself).
type escSelect struct {
	widget.Select
	escapes
}

func newEscSelect(options []string, onEscape func()) *escSelect {
	s := &escSelect{escapes: escapes{onEscape}}
	s.Options = options
	s.ExtendBaseWidget(s)
	return s
}

// TypedKey passes Escape on.
func (s *escSelect) TypedKey(ev *fyne.KeyEvent) { s.typed(ev, s.Select.TypedKey) }

func (s *escSelect) Extends() fyne.CanvasObject { return &s.Select }

// escCheck is a check box that passes Escape on.
type escCheck struct {
	widget.Check
	escapes
}

func newEscCheck(label string, onEscape func()) *escCheck {
	c := &escCheck{escapes: escapes{onEscape}}
	c.Text = label
	c.ExtendBaseWidget(c)
	return c
}

// TypedKey passes Escape on.
func (c *escCheck) TypedKey(ev *fyne.KeyEvent) { c.typed(ev, c.Check.TypedKey) }

func (c *escCheck) Extends() fyne.CanvasObject { return &c.Check }
