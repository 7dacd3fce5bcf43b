package app

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/storage"
)

const (
	// activityKeep caps the records the tab holds: the newest are kept.
	activityKeep = 1000
	// activityPoll is how often the tab looks for new records while it
	// shows. Polling by id sees the records of every process sharing the
	// database (a `mcptray serve` as well as this app's own server).
	activityPoll = time.Second
	// activityBatch caps the new records one poll reads.
	activityBatch = 500
	// allOption is the filter option that filters nothing.
	allOption = "All"
	// activityEmpty is what the tab says before the first request.
	activityEmpty = "No requests yet. Connect an AI app (Server › Connect a client) and ask it to use one of your tools."
)

// ActivityTab is the manager's Activity tab: the live activity log, newest
// first, filtered by client, tool and outcome and by a search text, with
// the details of the selected request. While it shows, new requests appear
// at the top by themselves.
type ActivityTab struct {
	cfg Config

	client, tool, outcome *widget.Select
	search                *widget.Entry
	pause                 *widget.Check
	status                *widget.Label
	problem               *widget.Label
	list                  *widget.List
	empty                 *widget.Label
	detail                *activityDetail
	content               fyne.CanvasObject
	// rowHeight is a list row's height plus the separator: how far the
	// rows move down when one is added above them.
	rowHeight float32

	// all are the records the client, tool and outcome filters select,
	// newest first; shown are those the search text matches too.
	all, shown []storage.ActivityRecord
	// clients, tools and outcomes are the filter options seen so far.
	clients, tools, outcomes map[string]bool
	// selected is the id of the record whose details show, 0 for none.
	selected int64
	// read says whether the log was read once: before, the tab says it
	// is reading rather than that the log is empty.
	read bool
	// gen counts the loads: the answer of a superseded load is dropped.
	gen int
	// stop ends the live follower; nil when none runs.
	stop context.CancelFunc

	// mu serializes the updates. On the real driver they all run on the
	// UI goroutine anyway; the test driver runs fyne.Do inline, on the
	// calling goroutine.
	mu sync.Mutex
	// following counts the goroutines that read the log.
	following sync.WaitGroup
}

func newActivityTab(cfg Config) *ActivityTab {
	t := &ActivityTab{cfg: cfg, clients: map[string]bool{}, tools: map[string]bool{}, outcomes: map[string]bool{}}
	t.client = widget.NewSelect(nil, func(string) { t.Reload() })
	t.tool = widget.NewSelect(nil, func(string) { t.Reload() })
	t.outcome = widget.NewSelect(nil, func(string) { t.Reload() })
	for _, s := range []*widget.Select{t.client, t.tool, t.outcome} {
		s.Options = []string{allOption}
		s.Selected = allOption
	}
	t.search = widget.NewEntry()
	t.search.SetPlaceHolder("Search requests, tools, AI apps, details…")
	t.search.OnChanged = func(string) { t.applySearch() }
	t.pause = widget.NewCheck("Pause live", func(bool) { t.showStatus() })
	t.status = widget.NewLabel("")
	t.problem = ui.WrapLabel("")
	t.problem.Importance = widget.DangerImportance
	t.problem.Hide()

	t.list = widget.NewList(func() int { return len(t.shown) }, newActivityRow,
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < len(t.shown) {
				setActivityRow(o, t.shown[id])
			}
		})
	t.rowHeight = newActivityRow().MinSize().Height + theme.Padding()
	t.list.OnSelected = func(id widget.ListItemID) {
		if id < len(t.shown) {
			t.selected = t.shown[id].ID
			t.detail.show(&t.shown[id])
		}
	}
	t.empty = ui.WrapLabel(activityEmpty)
	t.empty.Alignment = fyne.TextAlignCenter
	t.empty.TextStyle.Italic = true
	t.detail = newActivityDetail()

	filters := container.New(layout.NewFormLayout(),
		widget.NewLabel("AI app"), t.client,
		widget.NewLabel("Tool"), t.tool,
		widget.NewLabel("Outcome"), t.outcome,
		widget.NewLabel("Search"), t.search,
	)
	top := container.NewVBox(filters, container.NewBorder(nil, nil, nil, t.pause, t.status), t.problem)
	// The empty-state line gets the list's width, between spacers: in a
	// Center container a wrapping label is laid out at its minimum width,
	// one character, and its height then grows the whole window.
	rows := container.NewStack(t.list, container.NewVBox(layout.NewSpacer(), t.empty, layout.NewSpacer()))
	split := container.NewHSplit(container.NewBorder(top, nil, nil, nil, rows), t.detail.content)
	split.Offset = 0.55
	t.content = split
	t.showStatus()
	return t
}

// Content is the tab's widget tree.
func (t *ActivityTab) Content() fyne.CanvasObject { return t.content }

// Following says whether the tab follows the log now.
func (t *ActivityTab) Following() bool { return t.stop != nil }

// Reload reads the newest records the filters select again, then follows
// the log while the tab shows. Call it on the UI goroutine.
func (t *ActivityTab) Reload() {
	t.Stop()
	if t.cfg.Store == nil {
		return
	}
	t.gen++
	gen, q := t.gen, t.query()
	ctx, cancel := context.WithCancel(context.Background())
	t.stop = cancel
	t.following.Add(1)
	go func() {
		defer t.following.Done()
		t.follow(ctx, gen, q)
	}()
}

// Stop stops following the log (the tab or its window was left); Reload
// starts again. Call it on the UI goroutine.
func (t *ActivityTab) Stop() {
	if t.stop != nil {
		t.stop()
		t.stop = nil
	}
}

// stopAndWait stops following and waits until nothing reads the log
// (tests: no goroutine outlives the test).
func (t *ActivityTab) stopAndWait() {
	t.locked(t.Stop)
	t.following.Wait()
}

func (t *ActivityTab) locked(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f()
}

// query is what the filters select, as a storage query.
func (t *ActivityTab) query() storage.ActivityQuery {
	pick := func(s *widget.Select) string {
		if s.Selected == allOption {
			return ""
		}
		return s.Selected
	}
	return storage.ActivityQuery{Client: pick(t.client), Target: pick(t.tool), Outcome: outcomeNamed(pick(t.outcome)), Limit: activityKeep}
}

// follow loads the records q selects, then polls for newer ones every
// activityPoll until ctx ends or the tab no longer shows; a failed read is
// shown and tried again at the next poll. It runs off the UI goroutine:
// SQLite never holds up the UI.
func (t *ActivityTab) follow(ctx context.Context, gen int, q storage.ActivityQuery) {
	last, loaded := int64(0), false
	tick := time.NewTicker(activityPoll)
	defer tick.Stop()
	for {
		var apply func()
		if !loaded {
			recs, recent, err := t.load(ctx, q)
			if len(recent) > 0 {
				last = recent[0].ID
			}
			loaded = err == nil
			apply = func() { t.loaded(recs, recent, err) }
		} else {
			newer, err := t.cfg.Store.ActivityAfter(ctx, last, storage.ActivityQuery{Limit: activityBatch})
			if len(newer) > 0 {
				last = newer[len(newer)-1].ID
			}
			apply = func() { t.added(newer, err) }
		}
		if ctx.Err() != nil {
			return
		}
		fyne.Do(func() {
			t.locked(func() {
				if gen == t.gen {
					apply()
				}
			})
		})
		for paused := true; paused; {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			showing := true
			fyne.DoAndWait(func() {
				t.locked(func() {
					showing = gen == t.gen && t.stop != nil && t.content.Visible()
					paused = t.pause.Checked && loaded
					if !showing && gen == t.gen {
						t.Stop() // the tab was left: Reload follows again
					}
				})
			})
			if !showing {
				return
			}
		}
	}
}

// load reads the records q selects (recs) and the newest records whatever
// the filters (recent): the filter options come from those, so a filter
// can be changed to anything seen, and the newest of them is where
// following starts.
func (t *ActivityTab) load(ctx context.Context, q storage.ActivityQuery) (recs, recent []storage.ActivityRecord, err error) {
	recent, err = t.cfg.Store.Activity(ctx, storage.ActivityQuery{Limit: activityKeep})
	if err != nil || q.Client == "" && q.Target == "" && q.Outcome == "" {
		return recent, recent, err
	}
	if len(recent) > 0 {
		q.BeforeID = recent[0].ID + 1 // what existed then: newer records come with the polls
	} else {
		q.BeforeID = 1 // nothing existed
	}
	recs, err = t.cfg.Store.Activity(ctx, q)
	return recs, recent, err
}

// loaded shows a load's records: recs as selected, recent for the filter
// options.
func (t *ActivityTab) loaded(recs, recent []storage.ActivityRecord, err error) {
	if err != nil {
		t.showProblem(fmt.Errorf("could not read the activity log: %w", err))
		return
	}
	t.showProblem(nil)
	t.read = true
	for _, r := range recent {
		t.learn(r)
	}
	t.all = settled(recs)
	t.refreshOptions()
	t.list.ScrollToTop()
	t.applySearch()
}

// added puts new records (oldest first) at the top of the list, keeping
// the selected record selected and, when the list is scrolled, the rows
// in view where they are.
func (t *ActivityTab) added(newer []storage.ActivityRecord, err error) {
	if err != nil {
		t.showProblem(fmt.Errorf("could not read new activity: %w", err))
		return
	}
	t.showProblem(nil)
	if len(newer) == 0 {
		return
	}
	q := t.query()
	var fresh []storage.ActivityRecord
	for _, r := range slices.Backward(newer) {
		t.learn(r)
		if matchesQuery(q, r) {
			fresh = append(fresh, r)
		}
	}
	t.refreshOptions()
	if len(fresh) == 0 {
		return
	}
	t.all = settled(append(fresh, t.all...))
	if len(t.all) > activityKeep {
		t.all = t.all[:activityKeep]
	}
	before := len(t.shown)
	offset := t.list.GetScrollOffset()
	t.applySearch()
	if grown := len(t.shown) - before; grown > 0 && offset > 0 {
		t.list.ScrollToOffset(offset + float32(grown)*t.rowHeight)
	}
}

// settled drops from recs (newest first) the "running" record of each
// call whose final record is there too: the server writes the first when a
// call has run a second, so that the log keeps it should mcptray die, and
// the second when it ends. Shown together, the finished call read as
// still running. A call whose end was never written keeps its "running".
func settled(recs []storage.ActivityRecord) []storage.ActivityRecord {
	type call struct {
		at                                   time.Time
		method, target, client, token, agent string
	}
	key := func(r storage.ActivityRecord) call {
		// Both records of a call are made from one description of it
		// (mcpcore's requestActivity): its start time, who and what.
		return call{r.Time.UTC(), r.Method, r.Target, r.Client, r.Token, r.ClientVersion}
	}
	ended := map[call]int{}
	out := recs[:0:0]
	for _, r := range recs {
		k := key(r)
		if r.Outcome != record.OutcomeRunning {
			ended[k]++
		} else if ended[k] > 0 {
			ended[k]--
			continue
		}
		out = append(out, r)
	}
	return out
}

// applySearch recomputes the rows from all and the search text, and
// reselects the selected record.
func (t *ActivityTab) applySearch() {
	words := strings.Fields(strings.ToLower(t.search.Text))
	t.shown = nil
	for _, r := range t.all {
		if matchesWords(r, words) {
			t.shown = append(t.shown, r)
		}
	}
	t.list.Refresh()
	idx := slices.IndexFunc(t.shown, func(r storage.ActivityRecord) bool { return r.ID == t.selected })
	if idx >= 0 {
		t.list.Select(idx) // same record, new row: details unchanged
	} else {
		t.list.UnselectAll()
		t.selected = 0
		t.detail.show(nil)
	}
	t.showStatus()
}

// learn adds r's client, target and outcome to the filter options.
func (t *ActivityTab) learn(r storage.ActivityRecord) {
	if r.Client != "" {
		t.clients[r.Client] = true
	}
	if r.Target != "" {
		t.tools[r.Target] = true
	}
	if r.Outcome != "" {
		t.outcomes[outcomeWord(r.Outcome)] = true
	}
}

// refreshOptions gives the selects the options seen, sorted, after All.
func (t *ActivityTab) refreshOptions() {
	for _, f := range []struct {
		s    *widget.Select
		seen map[string]bool
	}{{t.client, t.clients}, {t.tool, t.tools}, {t.outcome, t.outcomes}} {
		opts := append([]string{allOption}, slices.Sorted(func(yield func(string) bool) {
			for k := range f.seen {
				if !yield(k) {
					return
				}
			}
		})...)
		if !slices.Equal(opts, f.s.Options) {
			f.s.SetOptions(opts)
		}
	}
}

// showStatus says how many requests show, or why none does.
func (t *ActivityTab) showStatus() {
	switch {
	case !t.read:
		t.empty.SetText("Reading the activity log…")
		t.empty.Show()
	case len(t.all) == 0 && len(t.clients)+len(t.tools)+len(t.outcomes) == 0:
		t.empty.SetText(activityEmpty)
		t.empty.Show()
	case len(t.shown) == 0:
		t.empty.SetText("No request matches these filters.")
		t.empty.Show()
	default:
		t.empty.Hide()
	}
	live := "Live"
	if t.pause.Checked {
		live = "Paused: new requests show when you resume"
	}
	n := fmt.Sprintf("%d requests", len(t.shown))
	if len(t.shown) == 1 {
		n = "1 request"
	}
	t.status.SetText(live + " · " + n)
}

func (t *ActivityTab) showProblem(err error) {
	if err == nil {
		t.problem.Hide()
		return
	}
	t.problem.SetText(err.Error())
	t.problem.Show()
}

// matchesQuery says whether r is what the client, target and outcome of q
// select, as the storage query would.
func matchesQuery(q storage.ActivityQuery, r storage.ActivityRecord) bool {
	return (q.Client == "" || r.Client == q.Client) && (q.Target == "" || r.Target == q.Target) &&
		(q.Outcome == "" || r.Outcome == q.Outcome)
}

// matchesWords says whether every word (lower case) occurs in r's texts.
func matchesWords(r storage.ActivityRecord, words []string) bool {
	if len(words) == 0 {
		return true
	}
	hay := strings.ToLower(strings.Join(append([]string{r.Method, r.Target, r.Client, r.ClientVersion, r.Token,
		r.Era, r.Outcome, outcomeWord(r.Outcome), r.Detail}, r.Approvals...), "\n"))
	for _, w := range words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// outcomeWords are the outcomes as the tab names them.
var outcomeWords = map[string]string{
	record.OutcomeOK:            "ok",
	record.OutcomeToolError:     "tool error",
	record.OutcomeInputRequired: "needs input",
	record.OutcomeError:         "error",
	record.OutcomeTask:          "task",
	record.OutcomeCancelled:     "cancelled",
	storage.OutcomeDropped:      "dropped",
}

// outcomeWord names a stored outcome for people.
func outcomeWord(o string) string { return cmp.Or(outcomeWords[o], o) }

// outcomeNamed is the stored outcome a word names.
func outcomeNamed(word string) string {
	for o, w := range outcomeWords {
		if w == word {
			return o
		}
	}
	return word
}

// outcomeImportance colours an outcome: green when it worked, amber when
// the tool said no or records were lost, red for errors, plain when it was
// cancelled (neither), the primary colour when it goes on (a task, a
// question).
func outcomeImportance(r storage.ActivityRecord) widget.Importance {
	switch r.Outcome {
	case record.OutcomeOK:
		return widget.SuccessImportance
	case record.OutcomeToolError, storage.OutcomeDropped:
		return widget.WarningImportance
	case record.OutcomeError:
		return widget.DangerImportance
	case record.OutcomeCancelled:
		return widget.MediumImportance
	}
	return widget.HighImportance
}

// turnedAway says whether r is a request turned away before the server read
// it (Host, Origin, token, size checks).
func turnedAway(r storage.ActivityRecord) bool { return r.Refused() }

// outcomeLabel is r's outcome in a row or the details.
func outcomeLabel(r storage.ActivityRecord) string {
	if turnedAway(r) {
		return "rejected"
	}
	return outcomeWord(r.Outcome)
}

// newActivityRow is a list row: time, outcome, method and target, client,
// in columns of fixed width (sized for their widest text) so they line up
// from row to row.
func newActivityRow() fyne.CanvasObject {
	column := func(l *widget.Label, widest string) *fyne.Container {
		sample := widget.NewLabelWithStyle(widest, l.Alignment, l.TextStyle)
		return container.NewGridWrap(sample.MinSize(), l)
	}
	when := widget.NewLabel("")
	when.TextStyle.Monospace = true
	outcome := widget.NewLabel("")
	outcome.TextStyle.Bold = true
	what := widget.NewLabel("")
	what.Truncation = fyne.TextTruncateEllipsis
	who := widget.NewLabel("")
	who.Truncation = fyne.TextTruncateEllipsis
	who.TextStyle.Italic = true // secondary, yet readable on either theme
	return container.NewBorder(nil, nil,
		container.NewHBox(column(when, "30 Dec 23:59"), column(outcome, "needs input")),
		column(who, "Claude Desktop 0"), what)
}

// setActivityRow fills a row made by newActivityRow with r.
func setActivityRow(o fyne.CanvasObject, r storage.ActivityRecord) {
	c := o.(*fyne.Container)
	cell := func(o fyne.CanvasObject) *widget.Label { return o.(*fyne.Container).Objects[0].(*widget.Label) }
	left := c.Objects[1].(*fyne.Container)
	what, who := c.Objects[0].(*widget.Label), cell(c.Objects[2])
	when, outcome := cell(left.Objects[0]), cell(left.Objects[1])
	local := r.Time.Local()
	if local.Format(time.DateOnly) == time.Now().Format(time.DateOnly) {
		when.SetText(local.Format("15:04:05"))
	} else {
		when.SetText(local.Format("02 Jan 15:04"))
	}
	outcome.Importance = outcomeImportance(r)
	outcome.SetText(outcomeLabel(r))
	what.SetText(strings.TrimSpace(r.Method + " " + r.Target))
	who.SetText(ui.Shown(cmp.Or(r.Client, r.Token)))
}

// activityDetail is the details panel of one record.
type activityDetail struct {
	values  map[string]*widget.Label
	outcome *widget.Label
	text    *widget.Label
	copy    *widget.Button
	none    *widget.Label
	fields  *fyne.Container
	content fyne.CanvasObject
	// plain is the shown record as text, for Copy.
	plain string
}

// activityFields are the details' rows, in order.
// The panel says them as people do; Copy, for a bug report or a search,
// uses the record's own field names (client, method, target, era).
var activityFields = []struct{ label, key string }{
	{"Time", "time"}, {"AI app", "client"}, {"It can answer", "capabilities"}, {"Token", "token"}, {"Request", "method"}, {"About", "target"},
	{"Outcome", "outcome"}, {"Error code", "errorCode"}, {"Took", "duration"}, {"Task", "task"},
	{"Approvals", "approvals"}, {"Protocol", "era"},
}

func newActivityDetail() *activityDetail {
	d := &activityDetail{values: map[string]*widget.Label{}}
	form := container.New(layout.NewFormLayout())
	for _, f := range activityFields {
		v := widget.NewLabel("")
		v.Selectable = true
		v.Wrapping = fyne.TextWrapWord
		d.values[f.label] = v
		form.Add(widget.NewLabelWithStyle(f.label, fyne.TextAlignTrailing, fyne.TextStyle{Bold: true}))
		form.Add(v)
	}
	d.outcome = d.values["Outcome"]
	d.outcome.TextStyle.Bold = true
	d.text = widget.NewLabel("")
	d.text.Selectable = true
	d.text.Wrapping = fyne.TextWrapBreak
	d.text.TextStyle.Monospace = true
	d.copy = widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() {
		// Fyne's own selectable labels copy through the current app too.
		fyne.CurrentApp().Clipboard().SetContent(d.plain)
	})
	d.fields = container.NewVBox(form, widget.NewLabelWithStyle("Detail", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		d.text, container.NewHBox(layout.NewSpacer(), d.copy))
	d.none = widget.NewLabel("Select a request to see its details.")
	d.none.TextStyle.Italic = true
	d.content = container.NewStack(container.NewVScroll(d.fields), container.NewCenter(d.none))
	d.show(nil)
	return d
}

// answersOf says what a client declared it can answer: why a question of a
// tool went to the AI app or came to this desktop.
func answersOf(caps []string) string {
	switch {
	case caps == nil:
		return "—" // the request did not say
	case len(caps) == 0:
		return "nothing declared: questions come to this desktop"
	}
	return strings.Join(caps, ", ")
}

// show fills the panel with r, or empties it.
func (d *activityDetail) show(r *storage.ActivityRecord) {
	if r == nil {
		d.fields.Hide()
		d.none.Show()
		d.plain = ""
		return
	}
	dash := func(s string) string { return cmp.Or(s, "—") }
	client := dash(r.Client)
	if r.ClientVersion != "" {
		client += " " + r.ClientVersion
	}
	code := "—"
	if r.ErrorCode != 0 {
		code = fmt.Sprint(r.ErrorCode)
	}
	vals := map[string]string{
		"Time":          r.Time.Local().Format("Mon 2 Jan 2006 15:04:05.000 MST"),
		"AI app":        client,
		"It can answer": answersOf(r.Capabilities),
		"Token":         dash(r.Token),
		"Protocol":      dash(r.Era),
		"Request":       dash(r.Method),
		"About":         dash(r.Target),
		"Outcome":       outcomeLabel(*r),
		"Error code":    code,
		"Took":          requestDuration(r.Duration),
		"Task":          dash(taskOf(*r)),
		"Approvals":     dash(strings.Join(r.Approvals, "\n")),
	}
	var plain strings.Builder
	for _, f := range activityFields {
		d.values[f.label].SetText(ui.Shown(vals[f.label]))
		fmt.Fprintf(&plain, "%s: %s\n", f.key, vals[f.label])
	}
	d.outcome.Importance = outcomeImportance(*r)
	d.outcome.Refresh()
	d.text.SetText(ui.Shown(dash(r.Detail)))
	plain.WriteString("detail: " + dash(r.Detail) + "\n")
	d.plain = plain.String()
	d.none.Hide()
	d.fields.Show()
}

// requestDuration is a request's duration for people: ms below a second.
func requestDuration(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
	}
	return d.Round(time.Millisecond).String()
}

// taskOf is the id of the task r created or reports: mcpcore writes its
// detail as "task <id>" or "task <id>: <message>".
func taskOf(r storage.ActivityRecord) string {
	if r.Outcome != record.OutcomeTask && r.Method != record.TaskActivityMethod {
		return ""
	}
	id, ok := strings.CutPrefix(r.Detail, "task ")
	if !ok {
		return ""
	}
	id, _, _ = strings.Cut(id, ":")
	return strings.TrimSpace(id)
}
