package ui

import (
	"math"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// This file holds what the forms (the editors and the Settings tab) share
// to fit any screen and to show their problems: help text that reads on
// both themes, multi-line entries that let the form scroll past them,
// fixed-width number fields and lined-up label columns, sections that
// open into view, and finding the first problem shown.

// Hint is a line of explanation under a field or a section: the
// theme's normal text colour (the low-importance grey is too faint on the
// light theme), set apart in italics; it wraps, so it never widens the
// window.
func Hint(t string) *widget.Label {
	l := widget.NewLabel(t)
	l.Wrapping = fyne.TextWrapWord
	l.TextStyle = fyne.TextStyle{Italic: true}
	return l
}

// Quoted is s, meant for a Hint, with each `command` in backquotes written
// between quotation marks: in italics, a closing backquote leans over the
// letter before it ("make cleaǹ").
func Quoted(s string) string {
	if strings.Count(s, "`")%2 != 0 {
		return s // not pairs: left as written
	}
	var b strings.Builder
	open := true
	for _, r := range s {
		if r != '`' {
			b.WriteRune(r)
			continue
		}
		if open {
			b.WriteString("“")
		} else {
			b.WriteString("”")
		}
		open = !open
	}
	return b.String()
}

// WrapLabel is a label that wraps at words: a long text (a description, a
// path, a warning) takes more lines instead of widening the window.
func WrapLabel(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	return l
}

// MultiLine places a multi-line entry in a form that scrolls: over the
// Entry, the mouse wheel scrolls the form while the entry's text fits in
// it, and the entry once it has more to show.
func MultiLine(e *widget.Entry) fyne.CanvasObject {
	// Painting asks every frame: the answer is kept until the text or the
	// size changes.
	var text string
	var size fyne.Size
	fits := true
	return PassWheel(e, func() bool {
		if e.Text != text || e.Size() != size {
			text, size, fits = e.Text, e.Size(), textFits(e)
		}
		return fits
	})
}

// PassWheel places o, which scrolls what it shows (an entry, a list), in
// a form that scrolls: over o, the mouse wheel scrolls the form while
// fits says o has nothing to scroll.
func PassWheel(o fyne.CanvasObject, fits func() bool) fyne.CanvasObject {
	r := &wheelRelay{over: o, fits: fits}
	r.ExtendBaseWidget(r)
	return container.NewStack(o, r)
}

// wheelRelay lies over an object that scrolls itself and passes the mouse
// wheel on to the scroll the object sits in. Fyne's entry and list take
// every wheel event under the pointer, also when they have nothing to
// scroll, and the form then stops scrolling wherever one is. The driver
// gives a wheel event to the last scrollable object under the pointer:
// the relay, drawn after the object, while it is visible — which it is
// only while the object's content fits, so a long text or list still
// scrolls itself. It takes no taps, drags or hovers: those still reach
// the object.
type wheelRelay struct {
	widget.BaseWidget
	over fyne.CanvasObject
	fits func() bool
}

// CreateRenderer draws nothing.
func (r *wheelRelay) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewWithoutLayout())
}

// Visible says whether the relay takes the wheel: while the object it
// lies over shows, and its content fits.
func (r *wheelRelay) Visible() bool {
	return r.BaseWidget.Visible() && r.over.Visible() && r.fits()
}

// Scrolled scrolls the innermost scroll around the entry.
func (r *wheelRelay) Scrolled(ev *fyne.ScrollEvent) {
	c := fyne.CurrentApp().Driver().CanvasForObject(r)
	if c == nil {
		return
	}
	if s := enclosingScroll(c.Content(), r); s != nil {
		ScrollPage(s, ev)
	}
}

// textFits says whether e shows all of its text without scrolling, as
// the entry lays it out: rows of the text size, wrapped at its width.
func textFits(e *widget.Entry) bool {
	size := e.Size()
	if size.IsZero() || e.Text == "" {
		return true
	}
	th := e.Theme()
	pad, border := th.Size(theme.SizeNameInnerPadding), th.Size(theme.SizeNameInputBorder)
	textSize := th.Size(theme.SizeNameText)
	width := size.Width - 2*pad - 2*border
	rowHeight := fyne.MeasureText("M", textSize, e.TextStyle).Height
	rows := 0
	for line := range strings.SplitSeq(e.Text, "\n") {
		n := 1
		if e.Wrapping != fyne.TextWrapOff && width > 0 {
			// Words wrap before the edge: count a little short.
			w := fyne.MeasureText(line, textSize, e.TextStyle).Width
			n = max(1, int(math.Ceil(float64(w/(width*0.9)))))
		}
		rows += n
	}
	return float32(rows)*rowHeight <= size.Height-2*pad
}

// enclosingScroll is the innermost scroll container around target under
// root, nil when there is none.
func enclosingScroll(root, target fyne.CanvasObject) *container.Scroll {
	var found *container.Scroll
	var visit func(o fyne.CanvasObject, around *container.Scroll) bool
	visit = func(o fyne.CanvasObject, around *container.Scroll) bool {
		if o == target {
			found = around
			return true
		}
		if s, ok := o.(*container.Scroll); ok {
			around = s
		}
		for _, ch := range children(o) {
			if visit(ch, around) {
				return true
			}
		}
		return false
	}
	visit(root, nil)
	return found
}

// children are the objects a form is made of under o: a container's, a
// scroll's content, a split's two sides, the tab shown. Other widgets are
// leaves here: what they draw is theirs.
func children(o fyne.CanvasObject) []fyne.CanvasObject {
	switch x := o.(type) {
	case *fyne.Container:
		return x.Objects
	case *container.Scroll:
		return []fyne.CanvasObject{x.Content}
	case *container.Split:
		return []fyne.CanvasObject{x.Leading, x.Trailing}
	case *container.AppTabs:
		if t := x.Selected(); t != nil {
			return []fyne.CanvasObject{t.Content}
		}
	}
	return nil
}

// Placed is an object of a form and where it is, relative to the form.
type Placed struct {
	Obj fyne.CanvasObject
	At  fyne.Position
}

// ShownUnder lists the objects under root a person can see, with their
// positions relative to root, in tree order; an object whose own flag
// hides it is left out, as is everything under a hidden one.
func ShownUnder(root fyne.CanvasObject) []Placed {
	var out []Placed
	var visit func(o fyne.CanvasObject, at fyne.Position)
	visit = func(o fyne.CanvasObject, at fyne.Position) {
		if o == nil || !o.Visible() {
			return
		}
		out = append(out, Placed{o, at})
		if _, ok := o.(*container.Scroll); ok {
			return // what a scroll inside the form shows is its own
		}
		for _, ch := range children(o) {
			visit(ch, at.Add(ch.Position()))
		}
	}
	visit(root, fyne.Position{})
	return out
}

// Reachable are the objects under root whose containers all show, each
// object shown or not: an error line there shows once it is set.
func Reachable(root fyne.CanvasObject) map[fyne.CanvasObject]bool {
	out := map[fyne.CanvasObject]bool{}
	var visit func(o fyne.CanvasObject)
	visit = func(o fyne.CanvasObject) {
		out[o] = true
		if o == nil || !o.Visible() {
			return
		}
		for _, ch := range children(o) {
			visit(ch)
		}
	}
	visit(root)
	return out
}

// RevealFirstProblem scrolls the form in s to the topmost error line
// shown, with the input above it, and puts the focus in that input. It
// returns the input focused, if any.
func RevealFirstProblem(s *container.Scroll) fyne.Focusable {
	// Error lines just shown have not been laid out yet.
	s.Refresh()
	var line *Placed
	var inputs []Placed
	for _, p := range ShownUnder(s.Content) {
		switch o := p.Obj.(type) {
		case *widget.Label:
			if o.Importance == widget.DangerImportance && o.Text != "" &&
				(line == nil || p.At.Y < line.At.Y || p.At.Y == line.At.Y && p.At.X < line.At.X) {
				line = &p
			}
		case *widget.Button:
			// An action, not where a value is typed or chosen.
		case fyne.Focusable:
			if d, ok := o.(fyne.Disableable); !ok || !d.Disabled() {
				inputs = append(inputs, p)
			}
		}
	}
	if line == nil {
		return nil
	}
	// The input of the problem is the nearest one above its line; of
	// inputs side by side, the one the line starts under.
	var input *Placed
	for i, p := range inputs {
		if p.At.Y > line.At.Y {
			continue
		}
		if input == nil || p.At.Y > input.At.Y ||
			p.At.Y == input.At.Y && p.At.X <= line.At.X && (input.At.X > line.At.X || p.At.X > input.At.X) {
			input = &inputs[i]
		}
	}
	top, bottom := line.At.Y, line.At.Y+line.Obj.Size().Height
	if input != nil && bottom-input.At.Y <= s.Size().Height {
		top = input.At.Y
	} else {
		input = nil // too far above to be the line's input
	}
	scrollToShow(s, top, bottom)
	if input == nil {
		return nil
	}
	f := input.Obj.(fyne.Focusable)
	if c := fyne.CurrentApp().Driver().CanvasForObject(input.Obj); c != nil {
		c.Focus(f)
	}
	return f
}

// ScrollIntoView scrolls s so that o, an object of its form, shows: whole
// when it fits, else its top.
func ScrollIntoView(s *container.Scroll, o fyne.CanvasObject) {
	s.Refresh()
	for _, p := range ShownUnder(s.Content) {
		if p.Obj == o {
			scrollToShow(s, p.At.Y, p.At.Y+o.Size().Height)
			return
		}
	}
}

// scrollToShow scrolls s as little as shows the band from top to bottom
// of its content; a band taller than s shows from its top.
func scrollToShow(s *container.Scroll, top, bottom float32) {
	off, view := s.Offset.Y, s.Size().Height
	switch {
	case bottom-top > view || top < off:
		off = top
	case bottom > off+view:
		off = bottom - view
	}
	s.ScrollToOffset(fyne.NewPos(s.Offset.X, off))
}

// Disclosure is a section of a form that opens and closes under a header
// button (as an accordion does); opening it scrolls it into view, where
// an accordion would open below the window's edge.
type Disclosure struct {
	header *widget.Button
	detail fyne.CanvasObject
	Box    *fyne.Container
	// Scroll is the form's scroll, which opening scrolls; nil scrolls
	// nothing.
	scroll func() *container.Scroll
}

// NewDisclosure is detail under a title that opens and closes it; scroll,
// when set, is the form to keep the opened part in view in.
func NewDisclosure(title string, detail fyne.CanvasObject, scroll func() *container.Scroll) *Disclosure {
	d := &Disclosure{detail: detail, scroll: scroll}
	d.header = widget.NewButtonWithIcon(title, theme.MenuDropDownIcon(), func() { d.setOpen(!d.detail.Visible()) })
	d.header.Importance = widget.LowImportance
	d.header.Alignment = widget.ButtonAlignLeading
	detail.Hide()
	d.Box = container.NewVBox(d.header, detail)
	return d
}

// Open opens the section and scrolls it into view.
func (d *Disclosure) Open() { d.setOpen(true) }

// IsOpen says whether the section shows its detail.
func (d *Disclosure) IsOpen() bool { return d.detail.Visible() }

func (d *Disclosure) setOpen(on bool) {
	if on {
		d.header.SetIcon(theme.MenuDropUpIcon())
		d.detail.Show()
	} else {
		d.header.SetIcon(theme.MenuDropDownIcon())
		d.detail.Hide()
	}
	d.Box.Refresh()
	if s := d.scroll(); on && s != nil {
		ScrollIntoView(s, d.Box)
	}
}

// FixedWidth gives o, an input, a width of its own: a field for a number
// needs room for the number, not the window's width.
func FixedWidth(w float32, o fyne.CanvasObject) fyne.CanvasObject {
	return container.New(&widthLayout{w}, Input(o))
}

// widthLayout lays its objects out at its width, at the leading edge.
type widthLayout struct{ width float32 }

func (l *widthLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	s := fyne.NewSize(l.width, 0)
	for _, o := range objs {
		s = s.Max(fyne.NewSize(l.width, o.MinSize().Height))
	}
	return s
}

func (l *widthLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.Position{})
		o.Resize(fyne.NewSize(min(l.width, size.Width), size.Height))
	}
}

// MinHeight gives o at least height h, at any width: a list shows a few
// rows, but never sets the window's width.
func MinHeight(h float32, o fyne.CanvasObject) fyne.CanvasObject {
	return container.New(&heightLayout{h}, o)
}

// heightLayout fills its size with its objects, and asks for at least its
// height.
type heightLayout struct{ height float32 }

func (l *heightLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	s := fyne.NewSize(0, l.height)
	for _, o := range objs {
		s = s.Max(o.MinSize())
	}
	return s
}

func (l *heightLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.Position{})
		o.Resize(size)
	}
}

// LabelColumn lines up rows of a label and its field across the sections
// of a form: the labels of all its rows take the width of the widest.
type LabelColumn struct{ labels []*widget.Label }

// Row is a row of the column: label, then field, which fills the rest.
func (c *LabelColumn) Row(label string, field fyne.CanvasObject) fyne.CanvasObject {
	l := widget.NewLabelWithStyle(label, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	c.labels = append(c.labels, l)
	return container.New(&columnRowLayout{c}, l, field)
}

// width is the width of the label column.
func (c *LabelColumn) width() float32 {
	var w float32
	for _, l := range c.labels {
		w = max(w, l.MinSize().Width)
	}
	return w
}

// columnRowLayout lays out a labelColumn row: its label and its field.
type columnRowLayout struct{ c *LabelColumn }

func (l *columnRowLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	label, field := objs[0].MinSize(), objs[1].MinSize()
	return fyne.NewSize(l.c.width()+theme.Padding()+field.Width, max(label.Height, field.Height))
}

func (l *columnRowLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	w := l.c.width()
	objs[0].Move(fyne.Position{})
	objs[0].Resize(fyne.NewSize(w, objs[0].MinSize().Height))
	objs[1].Move(fyne.NewPos(w+theme.Padding(), 0))
	objs[1].Resize(fyne.NewSize(size.Width-w-theme.Padding(), size.Height))
}

// NumberWidth is the width of a field for a number: room for eight
// digits.
const NumberWidth = 110

// FieldError is the red line under a field where its problems show.
func FieldError() *widget.Label {
	l := widget.NewLabel("")
	l.Importance = widget.DangerImportance
	l.Wrapping = fyne.TextWrapWord
	l.Hide()
	return l
}

// SetFieldError shows msgs on the field's error line l, one per line, or
// hides it when there are none.
func SetFieldError(l *widget.Label, msgs []string) {
	if len(msgs) == 0 {
		l.SetText("")
		l.Hide()
		return
	}
	l.SetText(strings.Join(msgs, "\n"))
	l.Show()
}

// Labelled is an input under its plain label.
func Labelled(label string, obj fyne.CanvasObject) fyne.CanvasObject {
	return container.NewVBox(widget.NewLabel(label), Input(obj))
}

// Input is obj as a form places it: an entry lets the form scroll past
// it (multiLine; a one-line entry never has more lines to scroll).
func Input(obj fyne.CanvasObject) fyne.CanvasObject {
	e, ok := obj.(*widget.Entry)
	switch {
	case !ok:
		return obj
	case e.MultiLine:
		return MultiLine(e)
	}
	return PassWheel(e, func() bool { return true })
}

// ShownProblems are the lines of the problem labels (red) a person sees in
// form, in order.
func ShownProblems(form *container.Scroll) []string {
	var out []string
	for _, p := range ShownUnder(form.Content) {
		if l, ok := p.Obj.(*widget.Label); ok && l.Importance == widget.DangerImportance && l.Text != "" {
			out = append(out, strings.Split(l.Text, "\n")...)
		}
	}
	return out
}
