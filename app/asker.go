package app

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/mcpcore"
)

// Asker answers the engine's desktop questions (approvals, forms, URLs)
// with a small window per question, raised, focused and announced by a
// desktop notification, so it works with no other window open.
//
// Questions queue: one window at a time, oldest first. A stack of windows
// would let a person answer the wrong one, or answer one without reading
// it because another covers it; the queue shows how many wait behind the
// current one instead. A question whose ctx ends (the client cancelled,
// disconnected, or its task was cancelled) is withdrawn: its window closes,
// or it leaves the queue unseen, and Ask returns ctx.Err().
type Asker struct {
	app fyne.App

	mu      sync.Mutex
	queue   []*pending
	current *pending
	// ui serializes the window work. On the real driver it all runs on
	// the UI goroutine anyway; the test driver runs fyne.Do inline, on the
	// calling goroutine. Lock order: ui, then mu.
	ui sync.Mutex
}

// onUI runs f on the UI goroutine, serialized with the other window work.
func (a *Asker) onUI(f func()) {
	fyne.Do(func() {
		a.ui.Lock()
		defer a.ui.Unlock()
		f()
	})
}

var _ mcpcore.Asker = (*Asker)(nil)

// NewAsker returns the desktop Asker of a.
func NewAsker(a fyne.App) *Asker { return &Asker{app: a} }

// pending is one question waiting for its answer.
type pending struct {
	q        mcpcore.Question
	deadline time.Time // zero: none
	answer   chan mcpcore.Answer
	once     sync.Once
	// set on the UI goroutine; closed once the window is closed
	win    fyne.Window
	closed bool
	stop   chan struct{} // ends the countdown
	// withdrawn is set (under Asker.mu) when ctx ended; ready when the
	// window is up.
	withdrawn, ready bool
	// the widgets tests reach
	queued   *widget.Label
	approval *approvalWidgets
	url      [2]*widget.Button // open, cancel
	form     *formDialog
}

// reply delivers the answer once.
func (p *pending) reply(a mcpcore.Answer) {
	p.once.Do(func() { p.answer <- a })
}

// Ask shows q and blocks until the person answers it or ctx ends.
func (a *Asker) Ask(ctx context.Context, q mcpcore.Question) (mcpcore.Answer, error) {
	if err := ctx.Err(); err != nil {
		return mcpcore.Answer{}, err // withdrawn before it was asked
	}
	p := &pending{q: q, answer: make(chan mcpcore.Answer, 1), stop: make(chan struct{})}
	if d, ok := ctx.Deadline(); ok {
		p.deadline = d
	}
	a.mu.Lock()
	a.queue = append(a.queue, p)
	waiting := len(a.queue)
	a.mu.Unlock()
	a.notify(q, waiting)
	// The shown window's queue line first, then (when none is shown) this
	// question's window: once it is up, Ask touches no widget.
	a.refreshQueued()
	a.pump()

	select {
	case ans := <-p.answer:
		return ans, nil
	case <-ctx.Done():
		a.withdraw(p)
		// An answer given at the very moment of the withdrawal still wins.
		select {
		case ans := <-p.answer:
			return ans, nil
		default:
		}
		return mcpcore.Answer{}, ctx.Err()
	}
}

// Pending reports how many questions are open: shown or queued.
func (a *Asker) Pending() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := len(a.queue)
	if a.current != nil {
		n++
	}
	return n
}

// notify sends the desktop notification of a new question.
func (a *Asker) notify(q mcpcore.Question, waiting int) {
	title := "mcptray: " + kindTitle(q)
	body := fmt.Sprintf("%s wants to run %s.", clientName(q), q.Tool)
	if waiting > 1 || a.Pending() > 1 {
		body += fmt.Sprintf(" (%d questions waiting)", a.Pending())
	}
	a.app.SendNotification(fyne.NewNotification(title, body))
}

// pump shows the next queued question when none is shown.
func (a *Asker) pump() {
	a.mu.Lock()
	if a.current != nil || len(a.queue) == 0 {
		a.mu.Unlock()
		return
	}
	p := a.queue[0]
	a.queue = a.queue[1:]
	a.current = p
	a.mu.Unlock()
	a.onUI(func() { a.show(p) })
}

// done ends the shown question p (answered or withdrawn) and moves on.
func (a *Asker) done(p *pending) {
	a.mu.Lock()
	if a.current == p {
		a.current = nil
	}
	a.mu.Unlock()
	a.onUI(func() { closeQuestion(p) })
	a.pump() // the next window counts the queue itself
}

// withdraw removes p, shown or queued, after its ctx ended.
func (a *Asker) withdraw(p *pending) {
	a.mu.Lock()
	p.withdrawn = true
	a.queue = slices.DeleteFunc(a.queue, func(x *pending) bool { return x == p })
	shown := a.current == p
	a.mu.Unlock()
	if shown {
		a.done(p)
		return
	}
	a.refreshQueued()
}

// answer is what a window's buttons call: reply, close, show the next.
func (a *Asker) answerWith(p *pending, ans mcpcore.Answer) {
	p.reply(ans)
	a.done(p)
}

// closeQuestion closes p's window, on the UI goroutine.
func closeQuestion(p *pending) {
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	if p.win != nil && !p.closed {
		p.closed = true
		p.win.Close()
	}
}

// refreshQueued updates the shown window's "more questions waiting" line.
func (a *Asker) refreshQueued() {
	a.onUI(func() {
		// Counted here, on the UI side, so a late refresh never shows a
		// stale count.
		a.mu.Lock()
		cur, n := a.current, len(a.queue)
		a.mu.Unlock()
		if cur != nil && cur.queued != nil {
			setQueued(cur.queued, n)
			if w := cur.win; w != nil && !cur.closed {
				grow(w)
			}
		}
	})
}

// grow makes w tall enough for its content, which may have grown.
func grow(w fyne.Window) {
	min, size := w.Content().MinSize(), w.Canvas().Size()
	if min.Height > size.Height || min.Width > size.Width {
		w.Resize(size.Max(min))
	}
}

func setQueued(l *widget.Label, n int) {
	switch n {
	case 0:
		l.SetText("")
		l.Hide()
	case 1:
		l.SetText("1 more question is waiting after this one.")
		l.Show()
	default:
		l.SetText(fmt.Sprintf("%d more questions are waiting after this one.", n))
		l.Show()
	}
}

// show opens p's window, on the UI goroutine.
func (a *Asker) show(p *pending) {
	a.mu.Lock()
	withdrawn := p.withdrawn
	a.mu.Unlock()
	if withdrawn {
		return
	}
	w := a.app.NewWindow("mcptray — " + kindTitle(p.q))
	p.win = w
	var body, buttons fyne.CanvasObject
	var focus fyne.Focusable
	var onClose mcpcore.Answer
	switch p.q.Kind {
	case mcpcore.StepForm:
		f := newFormDialog(p.q, func(ans mcpcore.Answer) { a.answerWith(p, ans) })
		p.form = f
		f.grown = func() {
			if p.win != nil && !p.closed {
				p.win.Content().Refresh()
				grow(p.win)
			}
		}
		body, buttons, focus = f.content, f.buttons, f.firstFocus()
		onClose = mcpcore.Answer{Action: "cancel"}
	case mcpcore.StepURL:
		body, buttons, focus = a.urlContent(p)
		onClose = mcpcore.Answer{Action: "cancel"}
	default:
		body, buttons, focus = a.approvalContent(p)
		onClose = mcpcore.Answer{Action: "decline", Reason: "the person closed the approval window"}
	}
	queued := widget.NewLabel("")
	queued.Importance = widget.LowImportance
	queued.Hide()
	p.queued = queued
	a.mu.Lock()
	setQueued(queued, len(a.queue))
	a.mu.Unlock()
	countdown := widget.NewLabel("")
	countdown.Hide()
	if !p.deadline.IsZero() {
		countdown.Importance = widget.WarningImportance
		countdown.Show()
		a.countdown(p, countdown)
	}
	w.SetContent(container.NewPadded(container.NewBorder(nil, container.NewVBox(countdown, buttons, queued), nil, nil, body)))
	w.Canvas().SetOnTypedKey(func(k *fyne.KeyEvent) {
		if k.Name == fyne.KeyEscape { // Escape refuses, like closing
			a.answerWith(p, onClose)
		}
	})
	w.SetOnClosed(func() {
		// Closed by the person (not by closeQuestion): that answers too.
		if !p.closed {
			p.closed = true
			a.answerWith(p, onClose)
		}
	})
	// Lay out at the final width first: wrapped labels only know their
	// height once they know their width.
	w.Resize(fyne.NewSize(520, 100))
	w.Resize(fyne.NewSize(520, w.Content().MinSize().Height))
	w.CenterOnScreen()
	w.Show()
	w.RequestFocus()
	if focus != nil {
		w.Canvas().Focus(focus)
	}
	a.mu.Lock()
	p.ready = true
	a.mu.Unlock()
}

// Raise brings the window of the question shown now to the front, for the
// tray's and the window's "question waiting" items; it reports whether
// there was one. Call it on the UI goroutine.
func (a *Asker) Raise() bool {
	p := a.shown()
	if p == nil || p.win == nil {
		return false
	}
	p.win.Show()
	p.win.RequestFocus()
	return true
}

// shown is the question whose window is up, if any.
func (a *Asker) shown() *pending {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.current != nil && a.current.ready {
		return a.current
	}
	return nil
}

// countdown shows the time left to answer, every second until p ends.
func (a *Asker) countdown(p *pending, l *widget.Label) {
	set := func() {
		left := time.Until(p.deadline).Round(time.Second)
		if left < 0 {
			left = 0
		}
		l.SetText(fmt.Sprintf("Answer within %s — after that the request is refused.", clock(left)))
	}
	set()
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				a.onUI(set)
			}
		}
	}()
}

// clock formats a duration as m:ss (or h:mm:ss).
func clock(d time.Duration) string {
	s := int(d / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// kindTitle names the kind of question.
func kindTitle(q mcpcore.Question) string {
	switch q.Kind {
	case mcpcore.StepForm:
		return "information needed"
	case mcpcore.StepURL:
		return "open a web page?"
	}
	return "approval needed"
}

// clientName names the AI client (and its token) for people.
func clientName(q mcpcore.Question) string {
	name := q.Client
	if name == "" {
		name = "An AI client"
	}
	if q.Token != "" && q.Token != q.Client {
		name += " (token " + q.Token + ")"
	}
	return name
}

func isTrue(b *bool) bool { return b != nil && *b }

// destructive reports whether q's tool is marked destructive.
func destructive(q mcpcore.Question) bool { return q.Hints != nil && isTrue(q.Hints.Destructive) }

// hintLines says in plain words what the tool's annotations say.
func hintLines(h *mcpcore.Hints) []string {
	if h == nil {
		return nil
	}
	var out []string
	if isTrue(h.Destructive) {
		out = append(out, "This tool may delete or change things.")
	}
	if isTrue(h.ReadOnly) {
		out = append(out, "This tool says it only reads; it changes nothing.")
	}
	if isTrue(h.OpenWorld) {
		out = append(out, "This tool may reach outside this computer (internet, other systems).")
	}
	if isTrue(h.Idempotent) {
		out = append(out, "Running it again with the same arguments has no further effect.")
	}
	return out
}

// header is the "who asks what" block every question window starts with.
func header(q mcpcore.Question, title string) fyne.CanvasObject {
	head := widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	head.Wrapping = fyne.TextWrapWord
	rows := []fyne.CanvasObject{head}
	if strings.TrimSpace(q.Message) != "" {
		msg := widget.NewLabel(q.Message)
		msg.Wrapping = fyne.TextWrapWord
		rows = append(rows, msg)
	}
	key := func(s string) *widget.Label {
		return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	info := container.New(layout.NewFormLayout(), key("Client"), wrapLabel(clientName(q)), key("Tool"), wrapLabel(q.Tool))
	if q.TaskID != "" {
		info.Add(key("Task"))
		info.Add(wrapLabel(shortID(q.TaskID)))
	}
	rows = append(rows, info)
	return container.NewVBox(rows...)
}

func wrapLabel(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	return l
}

// shortID shortens a long task id for display.
func shortID(id string) string {
	if len(id) > 12 {
		return id[:12] + "…"
	}
	return id
}

// approvalWidgets are the parts of an approval window tests reach.
type approvalWidgets struct {
	allowOnce, allowClient, deny *widget.Button
}

// approvalContent builds the approval question.
func (a *Asker) approvalContent(p *pending) (body, buttons fyne.CanvasObject, focus fyne.Focusable) {
	q := p.q
	title := fmt.Sprintf("%s wants to run %q", clientName(q), q.Tool)
	parts := []fyne.CanvasObject{header(q, title)}
	for _, h := range hintLines(q.Hints) {
		icon := theme.InfoIcon()
		imp := widget.MediumImportance
		if strings.Contains(h, "delete") {
			icon, imp = theme.WarningIcon(), widget.DangerImportance
		}
		l := wrapLabel(h)
		l.Importance = imp
		if imp == widget.DangerImportance {
			l.TextStyle.Bold = true
		}
		parts = append(parts, container.NewBorder(nil, nil, widget.NewIcon(icon), nil, l))
	}
	args := strings.TrimSpace(q.Arguments)
	if args == "" || args == "null" {
		args = "{}"
	}
	argLabel := widget.NewLabelWithStyle(args, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	scroll := container.NewScroll(argLabel)
	lines := strings.Count(args, "\n") + 1
	h := float32(min(max(lines, 2), 10)) * 20
	scroll.SetMinSize(fyne.NewSize(460, h+16))
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	bg.CornerRadius = theme.InputRadiusSize()
	parts = append(parts, widget.NewLabelWithStyle("Arguments", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), container.NewStack(bg, scroll))

	deny := widget.NewButtonWithIcon("Deny", theme.CancelIcon(), func() {
		a.answerWith(p, mcpcore.Answer{Action: "decline", Reason: "the person denied it on the desktop"})
	})
	allowClient := widget.NewButton("Allow for this client", func() {
		a.answerWith(p, mcpcore.Answer{Action: "accept", Remember: true})
	})
	allowOnce := widget.NewButtonWithIcon("Allow once", theme.ConfirmIcon(), func() {
		a.answerWith(p, mcpcore.Answer{Action: "accept"})
	})
	focus = allowOnce
	allowOnce.Importance = widget.HighImportance
	if destructive(q) {
		allowOnce.Importance = widget.DangerImportance
		deny.Importance = widget.HighImportance
		focus = deny
	}
	remember := wrapLabel("Allow for this client: " + clientName(q) + " may run " + q.Tool + " again without asking, until mcptray restarts.")
	remember.SizeName = theme.SizeNameCaptionText
	parts = append(parts, remember)
	p.approval = &approvalWidgets{allowOnce: allowOnce, allowClient: allowClient, deny: deny}
	return container.NewVBox(parts...), container.NewHBox(deny, layout.NewSpacer(), allowClient, allowOnce), focus
}

// urlContent builds the URL question: open the page, or not.
func (a *Asker) urlContent(p *pending) (body, buttons fyne.CanvasObject, focus fyne.Focusable) {
	q := p.q
	u, err := url.Parse(q.URL)
	parts := []fyne.CanvasObject{header(q, clientName(q)+" asks you to open a web page")}
	link := widget.NewLabelWithStyle(q.URL, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	link.Wrapping = fyne.TextWrapBreak
	parts = append(parts, widget.NewLabelWithStyle("Page", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), link)
	okURL := err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
	if okURL {
		site := wrapLabel("It opens in your browser, on the site " + u.Hostname() + ". Opening it tells " + clientName(q) + " you agreed.")
		parts = append(parts, site)
	} else {
		bad := wrapLabel("This is not a web address mcptray will open.")
		bad.Importance = widget.DangerImportance
		parts = append(parts, bad)
	}
	cancel := widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), func() {
		a.answerWith(p, mcpcore.Answer{Action: "cancel"})
	})
	open := widget.NewButtonWithIcon("Open", theme.ComputerIcon(), func() {
		if err := a.app.OpenURL(u); err != nil {
			fyne.LogError("opening "+q.URL, err)
		}
		a.answerWith(p, mcpcore.Answer{Action: "accept"})
	})
	open.Importance = widget.HighImportance
	if !okURL {
		open.Disable()
	}
	p.url = [2]*widget.Button{open, cancel}
	return container.NewVBox(parts...), container.NewHBox(layout.NewSpacer(), cancel, open), cancel
}
