package editor

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/tryit"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/record"
)

// This file holds Try it for a tool that runs in the background: Try it
// declares the tasks extension, as an AI app that can follow tasks does, so
// such a tool runs as a task; the panel shows how far it got and its
// latest message while it runs, Cancel cancels the task, and its result
// shows once it ends.

// TaskProgress is how a call running in the background goes.
type TaskProgress struct {
	// Status is the task's: working, input_required, completed, failed or
	// cancelled.
	Status string
	// Message is its latest status message (a command's latest progress
	// line, say).
	Message string
	// Progress and Total are the action's latest progress; Total 0 when
	// none was said.
	Progress, Total float64
}

// taskFeed is the serving process's feed of its tasks' changes, which
// carries their progress (tasks/get tells only the status and message).
type taskFeed interface {
	SubscribeTasks(ctx context.Context) <-chan record.Task
}

// followTrier is a ToolTrier that can answer the forms a tool asks and
// tell how a call running as a task goes.
type followTrier interface {
	TryToolFollowing(ctx context.Context, name string, args map[string]any,
		answer func(context.Context, mcpcore.Question) (mcpcore.Answer, error), follow func(TaskProgress)) (TryResult, error)
}

// TryToolFollowing is TryToolAnswering, follow (when set) told how the
// call goes when it runs as a task.
func (a tryitAdapter) TryToolFollowing(ctx context.Context, name string, args map[string]any,
	answer func(context.Context, mcpcore.Question) (mcpcore.Answer, error), follow func(TaskProgress)) (TryResult, error) {
	if a.eng != nil {
		if err := a.eng.Sync(ctx); err != nil {
			return TryResult{}, fmt.Errorf("bringing the server up to date: %w", err)
		}
	}
	opts := tryit.CallOptions{}
	if answer != nil {
		opts.Answer = func(ctx context.Context, req tryit.FormRequest) (tryit.FormAnswer, error) {
			ans, err := answer(ctx, mcpcore.Question{Client: tryit.ClientName, Tool: name, Kind: catalog.StepForm, Message: req.Message, Schema: req.Schema})
			return tryit.FormAnswer{Action: ans.Action, Content: ans.Content}, err
		}
	}
	if follow != nil {
		feed, _ := a.eng.(taskFeed)
		ctx, stop := context.WithCancel(ctx)
		defer stop()
		opts.Watch = newTaskMerger(ctx, feed, follow).watch
	}
	r, err := a.t.TryToolWith(ctx, name, args, opts)
	return TryResult(r), err
}

// taskMerger tells follow how a call's task goes: its status and message
// as Try it polls them, and its progress as the serving process's feed
// tells it, as soon as either changes.
type taskMerger struct {
	follow func(TaskProgress)
	mu     sync.Mutex
	id     string
	cur    TaskProgress
	// seen keeps the feed's latest of each task until the call's task is
	// known: the feed may tell of it before its id comes back.
	seen map[string]record.Task
}

func newTaskMerger(ctx context.Context, feed taskFeed, follow func(TaskProgress)) *taskMerger {
	m := &taskMerger{follow: follow, seen: map[string]record.Task{}}
	if feed == nil {
		return m
	}
	ch := feed.SubscribeTasks(ctx)
	go func() {
		for t := range ch {
			m.fromFeed(t)
		}
	}()
	return m
}

// watch takes what Try it polled.
func (m *taskMerger) watch(t tryit.Task) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.id == "" {
		m.id = t.ID
		if f, ok := m.seen[t.ID]; ok {
			m.cur.Progress, m.cur.Total = f.Progress, f.Total
		}
		m.seen = nil
	}
	m.cur.Status, m.cur.Message = t.Status, t.Message
	m.follow(m.cur)
}

// fromFeed takes what the serving process told of a task.
func (m *taskMerger) fromFeed(t record.Task) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.id == "" {
		m.seen[t.ID] = t
		return
	}
	if t.ID != m.id || t.Terminal() {
		return // the end is told by the poll, with the result
	}
	m.cur.Progress, m.cur.Total = t.Progress, t.Total
	if t.StatusMessage != "" {
		m.cur.Message = t.StatusMessage
	}
	m.follow(m.cur)
}

// showProgress shows how a call running in the background goes: the bar
// when the tool says how far it got, and its latest message.
func (p *tryPanel) showProgress(tp TaskProgress) {
	if p.cancel == nil {
		return // it ended: its outcome shows
	}
	if tp.Total > 0 {
		p.progress.Max = tp.Total
		p.progress.SetValue(min(tp.Progress, tp.Total))
		if !p.progress.Visible() {
			p.progress.Show()
			p.box.Refresh() // laid out again, with the bar
		}
	}
	line := fmt.Sprintf("Running %q in the background (as a task): Cancel stops it.", p.e.Orig.Name)
	if tp.Status == "input_required" {
		line = fmt.Sprintf("%q waits for an answer.", p.e.Orig.Name)
	}
	if msg := strings.TrimSpace(tp.Message); msg != "" && msg != "working" {
		line += "\nLatest: " + msg
	}
	p.result.Importance = widget.MediumImportance
	p.result.SetText(line)
}

// SetMissingSecrets says, in Try it, which secrets the tool reads that
// have no value yet (nil: none): a call would fail on them.
func (e *ToolEditor) SetMissingSecrets(names []string) { e.Try.showMissing(names) }

// showMissing says which secrets the tool lacks, or nothing.
func (p *tryPanel) showMissing(names []string) {
	if len(names) == 0 {
		p.missing.Hide()
		return
	}
	what := "the secret " + names[0] + ", which has"
	if len(names) > 1 {
		what = "the secrets " + strings.Join(names, ", ") + ", which have"
	}
	p.missing.SetText(fmt.Sprintf("This tool reads %s no value yet: it fails until you give it one in Settings › Secrets.", what))
	p.missing.Show()
}
