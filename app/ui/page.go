package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// driverNotch is what one notch of the mouse wheel scrolls by as Fyne's
// desktop driver reports it on Linux and Windows (its scrollSpeed).
const driverNotch = 25

// NewPage is a vertical scroll over content that the mouse wheel moves a
// page's way: a quarter of what it shows a notch, not Fyne's 25 pixels.
// At 25 pixels a notch the end of Settings was about a hundred notches
// away at 1366×768; at a quarter of the view a notch, 15 reach it, and
// three quarters of what was shown stay in view at each.
func NewPage(content fyne.CanvasObject) *container.Scroll {
	s := container.NewVScroll(nil)
	SetPage(s, content)
	return s
}

// SetPage makes content the page s scrolls (see NewPage).
func SetPage(s *container.Scroll, content fyne.CanvasObject) {
	c := &wheelCatcher{page: s}
	c.ExtendBaseWidget(c)
	// Under the content: the driver gives the wheel to the last scrollable
	// object under the pointer, so an entry, a list or a relay in the
	// content still takes it first, and the catcher takes the rest.
	s.Content = container.NewStack(c, content)
}

// ScrollPage scrolls s as the wheel would, at a page's speed (NewPage).
func ScrollPage(s *container.Scroll, ev *fyne.ScrollEvent) {
	step := max(driverNotch, s.Size().Height/4)
	e := *ev
	e.Scrolled.DY = ev.Scrolled.DY / driverNotch * step
	s.Scrolled(&e)
}

// wheelCatcher lies under a page's content and scrolls the page with the
// wheel events nothing above it takes.
type wheelCatcher struct {
	widget.BaseWidget
	page *container.Scroll
}

// CreateRenderer draws nothing.
func (c *wheelCatcher) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewWithoutLayout())
}

// Scrolled scrolls the page.
func (c *wheelCatcher) Scrolled(ev *fyne.ScrollEvent) { ScrollPage(c.page, ev) }

// ChainWheel places inner, a scroll inside a page (a diff, a long
// result), so that the wheel scrolls inner until its end, and then the
// page it sits in, as a browser does: a box the pointer happens to be
// over no longer stops the page.
func ChainWheel(inner *container.Scroll) fyne.CanvasObject {
	r := &wheelChain{inner: inner}
	r.ExtendBaseWidget(r)
	return container.NewStack(inner, r)
}

// wheelChain lies over an inner scroll and takes its wheel events.
type wheelChain struct {
	widget.BaseWidget
	inner *container.Scroll
}

// CreateRenderer draws nothing.
func (r *wheelChain) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewWithoutLayout())
}

// Scrolled scrolls the inner scroll, or the page once it moves no more.
func (r *wheelChain) Scrolled(ev *fyne.ScrollEvent) {
	before := r.inner.Offset
	r.inner.Scrolled(ev)
	if r.inner.Offset != before {
		return
	}
	c := fyne.CurrentApp().Driver().CanvasForObject(r)
	if c == nil {
		return
	}
	if s := enclosingScroll(c.Content(), r); s != nil {
		ScrollPage(s, ev)
	}
}
