package app

import (
	"context"
	"fmt"
	"image/color"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/app/words"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/signals"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/record"
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
	// Screen, when set (before the first question), tells the usable
	// screen area as Config.Screen does: a question window larger than the
	// screen is shrunk to fit, and its question scrolls.
	Screen func() (width, height int)

	mu      sync.Mutex
	queue   []*pending
	current *pending
	// subs follow the number of questions open.
	subs signals.Set
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
	// set on the UI goroutine; closed once the window is closed; body is
	// the question above the buttons, which scrolls; sized once fit gave
	// the window its first size
	win    fyne.Window
	body   fyne.CanvasObject
	sized  bool
	closed bool
	stop   chan struct{} // ends the countdown
	// withdrawn is set (under Asker.mu) when ctx ended; ready when the
	// window is up.
	withdrawn, ready bool
	// refuse answers as closing the window does: Escape runs it.
	refuse func()
	// the widgets tests reach
	queued   *widget.Label
	approval *approvalWidgets
	url      [2]*ui.EscButton // open, cancel
	form     *ui.FormDialog
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
	a.changed()
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

// Subscribe returns a channel that receives a value each time the number
// of questions open (Pending) changes; signals coalesce, so a reader
// should read Pending again. It is closed when ctx ends.
func (a *Asker) Subscribe(ctx context.Context) <-chan struct{} { return a.subs.Subscribe(ctx) }

// changed signals the subscribers.
func (a *Asker) changed() { a.subs.Notify() }

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
	body := fmt.Sprintf("%s wants to run %s.", ui.AppName(q), ui.ToolName(q))
	if q.Prompt != "" {
		body = fmt.Sprintf("%s is getting %s.", ui.AppName(q), ui.ToolName(q))
	}
	if n := a.Pending(); waiting > 1 || n > 1 {
		body += fmt.Sprintf(" (%s waiting)", words.Count(n, "question", "questions"))
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
		a.changed()
	}
	a.mu.Unlock()
	a.onUI(func() { closeQuestion(p) })
	a.pump() // the next window counts the queue itself
}

// withdraw removes p, shown or queued, after its ctx ended.
func (a *Asker) withdraw(p *pending) {
	a.mu.Lock()
	p.withdrawn = true
	before := len(a.queue)
	a.queue = slices.DeleteFunc(a.queue, func(x *pending) bool { return x == p })
	if len(a.queue) != before {
		a.changed()
	}
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
			cur.fit()
		}
	})
}

// fit lays p's window out again after lines came or went, and makes it
// taller when the question no longer shows whole (up to
// maxQuestionHeight of it; the rest scrolls). It never makes the window
// smaller: the person may have made it taller. Before the window is
// shown, its size is questionWidth wide and as tall as the question.
func (p *pending) fit() {
	if p.win == nil || p.closed {
		return
	}
	size, content := p.win.Canvas().Size(), p.win.Content()
	if !p.sized {
		size = fyne.NewSize(questionWidth, 0)
	}
	var pad float32 // the canvas's, around the content
	if p.win.Padded() {
		pad = 2 * theme.Padding()
	}
	// Laid out here at the window's width, not when the driver gets to
	// it: wrapped labels only know their height once they know their
	// width.
	content.Resize(fyne.NewSize(size.Width-pad, max(size.Height-pad, content.MinSize().Height)))
	want := pad + content.MinSize().Height - minQuestionHeight + min(p.body.MinSize().Height, maxQuestionHeight)
	if want > size.Height {
		p.win.Resize(fyne.NewSize(size.Width, want))
	}
	content.Refresh()
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
	// Escape and closing the window refuse: a denial for an approval, a
	// cancel for a form or a page.
	refusal := mcpcore.Answer{Action: "cancel"}
	if p.q.Kind != catalog.StepForm && p.q.Kind != catalog.StepURL {
		refusal = mcpcore.Answer{Action: "decline"}
	}
	p.refuse = func() { a.answerWith(p, refusal) }
	var body, buttons fyne.CanvasObject
	var focus fyne.Focusable
	switch p.q.Kind {
	case catalog.StepForm:
		f := ui.NewFormDialog(p.q, func(ans mcpcore.Answer) { a.answerWith(p, ans) })
		p.form = f
		f.Grown = p.fit
		f.Focus = func(o fyne.Focusable) {
			if p.win != nil && !p.closed {
				p.win.Canvas().Focus(o)
			}
		}
		body, buttons, focus = f.Content, f.Buttons, f.FirstFocus()
	case catalog.StepURL:
		body, buttons, focus = a.urlContent(p)
	default:
		body, buttons, focus = a.approvalContent(p)
	}
	queued := widget.NewLabel("")
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
	// The question scrolls and the buttons stay: on a small or scaled
	// screen the window manager may make the window smaller than its
	// content. A gutter keeps the scroll bar off the text.
	gutter := canvas.NewRectangle(color.Transparent)
	gutter.SetMinSize(fyne.NewSize(theme.Padding()*3, 0))
	scroll := ui.NewPage(container.NewBorder(nil, nil, nil, gutter, body))
	scroll.SetMinSize(fyne.NewSize(questionWidth/2, minQuestionHeight))
	if p.form != nil {
		p.form.Scroll = scroll
	}
	bottom := container.NewVBox(countdown, buttons, queued)
	w.SetContent(container.NewPadded(container.NewBorder(nil, bottom, nil, nil, scroll)))
	// With no widget focused, keys reach the window: Escape refuses, and
	// nothing else answers (Enter allows nothing).
	w.Canvas().SetOnTypedKey(func(k *fyne.KeyEvent) { ui.Escaped(k, p.refuse) })
	w.SetOnClosed(func() {
		// Closed by the person (not by closeQuestion): that answers too.
		if !p.closed {
			p.closed = true
			p.refuse()
		}
	})
	p.body = body
	p.fit()
	p.sized = true
	w.CenterOnScreen()
	w.Show()
	fitOnScreen(w, a.Screen)
	w.RequestFocus()
	if focus != nil {
		w.Canvas().Focus(focus)
	}
	a.mu.Lock()
	p.ready = true
	a.mu.Unlock()
}

// A question window's size: wide enough for the approval window's
// buttons, narrow enough to read the lines at a glance; as tall as the
// question, up to maxQuestionHeight, and able to shrink to
// minQuestionHeight of it (plus the buttons), which then scrolls.
const (
	questionWidth     = 560
	maxQuestionHeight = 520
	minQuestionHeight = 120
)

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
		l.SetText(fmt.Sprintf("Answer within %s; after that, the AI app is told nobody answered.", words.Clock(int(left/time.Second))))
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

// kindTitle names the kind of question.
func kindTitle(q mcpcore.Question) string {
	switch q.Kind {
	case catalog.StepForm:
		return "information needed"
	case catalog.StepURL:
		return "open a web page?"
	}
	return "approval needed"
}

func isTrue(b *bool) bool { return b != nil && *b }

// destructive reports whether q's tool is marked destructive.
func destructive(q mcpcore.Question) bool { return q.Hints != nil && isTrue(q.Hints.Destructive) }

// hintLines says in plain words what the tool's annotations say.
func hintLines(h *catalog.Hints) []string {
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

// approvalWidgets are the parts of an approval window tests reach.
type approvalWidgets struct {
	deny, allowOnce, untilRestart, untilRevoked *ui.EscButton
}

// approvalContent builds the approval question. Deny has the focus
// whatever the tool: the window comes up while the person may be typing
// elsewhere, and a stray Space must not allow anything.
func (a *Asker) approvalContent(p *pending) (body, buttons fyne.CanvasObject, focus fyne.Focusable) {
	q := p.q
	title := fmt.Sprintf("%s wants to run %s", ui.AppName(q), ui.ToolName(q))
	parts := []fyne.CanvasObject{ui.Header(q, title)}
	for _, h := range hintLines(q.Hints) {
		icon := theme.InfoIcon()
		imp := widget.MediumImportance
		if strings.Contains(h, "delete") {
			icon, imp = theme.WarningIcon(), widget.DangerImportance
		}
		l := ui.WrapLabel(h)
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
	if q.Runs != "" {
		parts = append(parts, codeBlock("What will run, if you allow it", q.Runs, 8))
	}
	parts = append(parts, codeBlock("What the AI app sends the tool", args, 10))
	if q.ClientInputs != "" {
		parts = append(parts, codeBlock("What the AI app answered the tool's questions", q.ClientInputs, 8))
	}

	answer := func(ans mcpcore.Answer) func() { return func() { a.answerWith(p, ans) } }
	w := &approvalWidgets{
		deny:      ui.NewEscButton("Deny", theme.CancelIcon(), p.refuse, answer(mcpcore.Answer{Action: "decline"})),
		allowOnce: ui.NewEscButton("Allow once", theme.ConfirmIcon(), p.refuse, answer(mcpcore.Answer{Action: "accept"})),
		untilRestart: ui.NewEscButton("Allow until mcptray restarts", nil, p.refuse,
			answer(mcpcore.Answer{Action: "accept", Remember: record.RememberUntilRestart})),
		untilRevoked: ui.NewEscButton("Allow until I revoke it", nil, p.refuse,
			answer(mcpcore.Answer{Action: "accept", Remember: record.RememberUntilRevoked})),
	}
	w.allowOnce.Importance = widget.HighImportance
	if destructive(q) {
		w.allowOnce.Importance = widget.DangerImportance
		w.deny.Importance = widget.HighImportance
	}
	p.approval = w
	unchanged := "the tool stays unchanged"
	if q.ClientInputs != "" {
		unchanged = "the tool and the AI app's answers stay unchanged"
	}
	remember := ui.SmallPrint("Or don't ask again while " + unchanged + " (Settings lists these, to revoke):")
	buttons = container.NewVBox(
		container.NewHBox(w.deny, layout.NewSpacer(), w.allowOnce),
		remember,
		container.NewHBox(layout.NewSpacer(), w.untilRestart, w.untilRevoked))
	return container.NewVBox(parts...), buttons, w.deny
}

// codeLineChars is about how many characters of the fixed-width font a
// line of a question's code block holds.
const codeLineChars = 58

// codeBlock is a titled block of text from the AI app, in a fixed-width
// font on the input background, scrolling past at most lines lines.
func codeBlock(title, text string, lines int) fyne.CanvasObject {
	text = ui.Shown(text)
	label := widget.NewLabelWithStyle(text, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	// Wrapped, not scrolled sideways: the end of a command line is as much
	// what runs as its start, and must be seen without looking for it.
	label.Wrapping = fyne.TextWrapBreak
	scroll := container.NewVScroll(label)
	shown := 0
	for _, l := range strings.Split(text, "\n") {
		shown += max(1, (utf8.RuneCountInString(l)+codeLineChars-1)/codeLineChars)
	}
	h := float32(min(max(shown, 2), lines)) * 20
	scroll.SetMinSize(fyne.NewSize(questionWidth-60, h+16))
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	bg.CornerRadius = theme.InputRadiusSize()
	return container.NewVBox(widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		container.NewStack(bg, scroll))
}

// urlContent builds the URL question: open the page, or not.
func (a *Asker) urlContent(p *pending) (body, buttons fyne.CanvasObject, focus fyne.Focusable) {
	q := p.q
	u, err := url.Parse(q.URL)
	parts := []fyne.CanvasObject{ui.Header(q, fmt.Sprintf("%s asks you to open a web page for %s", ui.AppName(q), ui.ToolName(q)))}
	link := widget.NewLabelWithStyle(ui.Shown(q.URL), fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	link.Wrapping = fyne.TextWrapBreak
	parts = append(parts, widget.NewLabelWithStyle("Page", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), link)
	okURL := err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
	if okURL {
		site := ui.WrapLabel("It opens in your browser, on the site " + u.Hostname() + ". Opening it tells " + ui.AppName(q) + " you agreed.")
		parts = append(parts, site)
	} else {
		bad := ui.WrapLabel("This is not a web address mcptray will open.")
		bad.Importance = widget.DangerImportance
		parts = append(parts, bad)
	}
	cancel := ui.NewEscButton("Don't open", theme.CancelIcon(), p.refuse, p.refuse)
	open := ui.NewEscButton("Open in browser", theme.ComputerIcon(), p.refuse, func() {
		if err := a.app.OpenURL(u); err != nil {
			fyne.LogError("opening "+q.URL, err)
		}
		a.answerWith(p, mcpcore.Answer{Action: "accept"})
	})
	open.Importance = widget.HighImportance
	if !okURL {
		open.Disable()
	}
	p.url = [2]*ui.EscButton{open, cancel}
	return container.NewVBox(parts...), container.NewHBox(layout.NewSpacer(), cancel, open), cancel
}
