package app

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/app/words"
	"github.com/mcptray/mcptray/record"
)

// cancelTimeout bounds the wait for the server to cancel a task.
const cancelTimeout = 30 * time.Second

// maxRecentTasks is how many ended tasks the window keeps showing.
const maxRecentTasks = 20

// TaskWindow shows the tasks the server runs (and those that ended while
// it was open) with their progress, status message, elapsed time and a
// Cancel button. It follows the server's tasks: the current ones when it
// opens, then every change.
type TaskWindow struct {
	app   fyne.App
	tasks TaskSource
	win   fyne.Window
	// onClosed, when set, runs once the window has closed.
	onClosed func()

	stop  context.CancelFunc
	rows  map[string]*taskRow
	list  *fyne.Container
	empty *widget.Label
	// heading counts the running tasks.
	heading *widget.Label
	outer   *fyne.Container
	// endedHeading starts the list of ended tasks.
	endedHeading *widget.Label
	// now is the clock (tests may fix it).
	now func() time.Time
	// mu serializes the updates. On the real driver they all run on the
	// UI goroutine anyway; the test driver runs fyne.Do inline, on the
	// calling goroutine.
	mu sync.Mutex
	// running counts the goroutines that follow the engine.
	running sync.WaitGroup
}

// NewTaskWindow builds (without showing) a task window of the server's
// tasks.
func NewTaskWindow(a fyne.App, tasks TaskSource) *TaskWindow {
	return &TaskWindow{app: a, tasks: tasks, rows: map[string]*taskRow{}, now: time.Now}
}

// Show opens the window (subscribing to task changes) or raises it.
func (tw *TaskWindow) Show() {
	if tw.win != nil {
		tw.win.Show()
		tw.win.RequestFocus()
		return
	}
	w := tw.app.NewWindow("mcptray — tasks")
	tw.win = w
	// A new window starts afresh: the rows of a closed one are gone.
	tw.rows = map[string]*taskRow{}
	tw.empty = widget.NewLabel("Tools that run as tasks show their progress here, and can be cancelled here.")
	tw.empty.Wrapping = fyne.TextWrapWord
	tw.empty.TextStyle.Italic = true
	tw.list = container.NewVBox()
	tw.heading = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	tw.endedHeading = widget.NewLabelWithStyle("Ended recently", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	tw.outer = container.NewVBox(tw.heading, tw.empty, tw.list)
	scroll := ui.NewPage(tw.outer)
	scroll.SetMinSize(fyne.NewSize(480, 260))
	w.SetContent(container.NewPadded(scroll))
	w.Resize(fyne.NewSize(540, 440))
	w.CenterOnScreen()

	ctx, cancel := context.WithCancel(context.Background())
	tw.stop = cancel
	changes := tw.tasks.SubscribeTasks(ctx) // before the snapshot: nothing falls between
	tw.locked(tw.relayout)
	tw.running.Add(2)
	go func() {
		defer tw.running.Done()
		if running, err := tw.tasks.RunningTasks(ctx); err == nil {
			tw.onUI(ctx, func() {
				for _, t := range running {
					tw.update(t)
				}
				tw.relayout()
			})
		}
		for t := range changes {
			if ctx.Err() != nil {
				continue // closed: drain what is buffered, show nothing
			}
			tw.onUI(ctx, func() { tw.update(t); tw.relayout() })
		}
	}()
	go func() {
		defer tw.running.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				// A slow subscriber may miss changes: the tasks running
				// tell which ended meanwhile.
				running, err := tw.tasks.RunningTasks(ctx)
				if err != nil {
					continue
				}
				tw.onUI(ctx, func() { tw.tick(running) })
			}
		}
	}()
	w.SetOnClosed(func() {
		cancel()
		tw.win = nil
		if tw.onClosed != nil {
			tw.onClosed()
		}
	})
	w.Show()
	w.RequestFocus()
}

// onUI runs f on the UI goroutine, unless the window closed meanwhile.
func (tw *TaskWindow) onUI(ctx context.Context, f func()) {
	fyne.Do(func() {
		if ctx.Err() == nil {
			tw.locked(f)
		}
	})
}

func (tw *TaskWindow) locked(f func()) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	f()
}

// Close closes the window and stops following the engine.
func (tw *TaskWindow) Close() {
	if tw.win != nil {
		tw.win.Close()
	}
}

// tick refreshes elapsed times, shows the tasks running as they are now,
// and notices those that ended while their last change was missed.
func (tw *TaskWindow) tick(now []record.Task) {
	running := map[string]bool{}
	for _, t := range now {
		running[t.ID] = true
		tw.update(t)
	}
	for id, r := range tw.rows {
		if !r.task.Terminal() && !running[id] && tw.now().Sub(r.task.UpdatedAt) > 2*time.Second {
			t := r.task
			t.Status, t.StatusMessage = words.TaskEnded, words.TaskEnded
			r.set(t, tw.now())
		}
		r.refreshElapsed(tw.now())
	}
	tw.relayout()
}

// update applies a task change.
func (tw *TaskWindow) update(t record.Task) {
	r := tw.rows[t.ID]
	if r == nil {
		r = newTaskRow(tw.tasks)
		tw.rows[t.ID] = r
	} else if r.task.Terminal() {
		return // a late change of a task that ended
	}
	r.set(t, tw.now())
}

// relayout orders the rows: running first (oldest first), then ended ones
// (newest first), dropping the oldest ended beyond maxRecentTasks.
func (tw *TaskWindow) relayout() {
	var running, ended []*taskRow
	for _, r := range tw.rows {
		if r.task.Terminal() || r.task.Status == words.TaskEnded {
			ended = append(ended, r)
		} else {
			running = append(running, r)
		}
	}
	slices.SortFunc(running, func(a, b *taskRow) int { return a.task.CreatedAt.Compare(b.task.CreatedAt) })
	slices.SortFunc(ended, func(a, b *taskRow) int { return b.task.UpdatedAt.Compare(a.task.UpdatedAt) })
	if len(ended) > maxRecentTasks {
		for _, r := range ended[maxRecentTasks:] {
			delete(tw.rows, r.task.ID)
		}
		ended = ended[:maxRecentTasks]
	}
	objs := make([]fyne.CanvasObject, 0, len(running)+len(ended))
	for _, r := range running {
		objs = append(objs, r.box)
	}
	if len(ended) > 0 {
		objs = append(objs, tw.endedHeading)
	}
	for _, r := range ended {
		objs = append(objs, r.box)
	}
	switch len(running) {
	case 0:
		tw.heading.SetText("No task running")
		tw.empty.Show()
	case 1:
		tw.heading.SetText("1 task running")
		tw.empty.Hide()
	default:
		tw.heading.SetText(fmt.Sprintf("%d tasks running", len(running)))
		tw.empty.Hide()
	}
	if !slices.Equal(objs, tw.list.Objects) {
		tw.list.Objects = objs
	}
	// Rows change height (bars and buttons come and go): lay out again.
	tw.list.Refresh()
	tw.outer.Refresh()
}

// closeAndWait closes the window and waits until nothing follows the
// engine any more (tests: no goroutine outlives the test).
func (tw *TaskWindow) closeAndWait() {
	tw.Close()
	tw.running.Wait()
}

// row returns the row of a task, for tests.
func (tw *TaskWindow) row(id string) *taskRow { return tw.rows[id] }

// taskRow is one task in the window.
type taskRow struct {
	task     record.Task
	title    *widget.Label
	status   *widget.Label
	elapsed  *widget.Label
	bar      *widget.ProgressBar
	spinner  *widget.ProgressBarInfinite
	cancel   *widget.Button
	problem  *widget.Label
	box      *fyne.Container
	barBox   *fyne.Container // bar or spinner
	finished time.Time
}

func newTaskRow(tasks TaskSource) *taskRow {
	r := &taskRow{
		title:   widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		status:  ui.WrapLabel(""),
		elapsed: widget.NewLabel(""),
		bar:     widget.NewProgressBar(),
		spinner: widget.NewProgressBarInfinite(),
		problem: ui.WrapLabel(""),
	}
	r.problem.Importance = widget.DangerImportance
	r.problem.Hide()
	r.cancel = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), func() {
		r.cancel.Disable()
		r.cancel.SetText("Cancelling…")
		id := r.task.ID
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), cancelTimeout)
			defer cancel()
			if err := tasks.CancelTask(ctx, id); err != nil {
				fyne.Do(func() {
					r.problem.SetText("Could not cancel: " + err.Error())
					r.problem.Show()
				})
			}
		}()
	})
	top := container.NewBorder(nil, nil, nil, container.NewHBox(r.elapsed, r.cancel), r.title)
	r.barBox = container.NewStack(r.bar, r.spinner)
	r.box = container.NewVBox(top, r.barBox, r.status, r.problem, widget.NewSeparator())
	return r
}

// set shows t.
func (r *taskRow) set(t record.Task, now time.Time) {
	wasTerminal := r.task.Terminal()
	r.task = t
	r.title.SetText(words.TaskTitle(t))
	r.status.SetText(words.TaskStatus(t))
	ended := t.Terminal() || t.Status == words.TaskEnded
	switch {
	case ended:
		r.spinner.Stop()
		r.spinner.Hide()
		r.bar.Show()
		switch {
		case t.Status == record.TaskCompleted:
			r.bar.Max, r.bar.Value = 1, 1
		case t.Total > 0:
			r.bar.Max, r.bar.Value = t.Total, min(t.Progress, t.Total)
		default:
			// An ended task that never knew its total: no bar to show.
			r.bar.Hide()
			r.barBox.Hide()
		}
		r.bar.Refresh()
		r.cancel.Hide()
		if !wasTerminal {
			r.finished = now
		}
		r.status.Importance = widget.MediumImportance
		if t.Status == record.TaskFailed {
			r.status.Importance = widget.DangerImportance
		}
		r.status.Refresh()
	case t.Total > 0:
		r.spinner.Stop()
		r.spinner.Hide()
		r.bar.Max = t.Total
		r.bar.SetValue(min(t.Progress, t.Total))
		r.bar.Show()
	default:
		r.bar.Hide()
		r.spinner.Show()
		r.spinner.Start()
	}
	if !ended {
		r.cancel.Show()
	}
	r.refreshElapsed(now)
}

// refreshElapsed shows how long the task ran (so far).
func (r *taskRow) refreshElapsed(now time.Time) {
	t := r.task
	end := now
	if t.Terminal() || t.Status == words.TaskEnded {
		end = t.UpdatedAt
	}
	d := end.Sub(t.CreatedAt).Round(time.Second)
	if d < 0 {
		d = 0
	}
	if t.Terminal() || t.Status == words.TaskEnded {
		r.elapsed.SetText("took " + words.Clock(int(d/time.Second)))
	} else {
		r.elapsed.SetText(words.Clock(int(d / time.Second)))
	}
}
