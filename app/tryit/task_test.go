package tryit

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/storage"
)

// putSlow stores a tool that runs only in the background (task mode
// required): it says how far it got, waits for wait, then answers.
func (s *served) putSlow(t *testing.T, name string, wait time.Duration) {
	t.Helper()
	tool := catalog.Tool{Name: name, Description: "slow", TaskMode: catalog.TaskRequired,
		Action: catalog.Action{Respond: &catalog.Respond{
			Steps: []catalog.Step{{Progress: &catalog.ProgressStep{Progress: 3, Total: 10, Message: "synced 3 of 10 folders"}},
				{DelayMs: int(wait / time.Millisecond), Progress: &catalog.ProgressStep{Progress: 10, Total: 10}}},
			Content: []catalog.Content{{Type: "text", Text: "synced"}}}}}
	if err := s.st.PutTool(context.Background(), tool); err != nil {
		t.Fatal(err)
	}
}

// watched keeps what a TaskWatcher heard.
type watched struct {
	mu    sync.Mutex
	tasks []Task
}

func (w *watched) watch(x Task) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.tasks = append(w.tasks, x)
}

func (w *watched) saw(f func(Task) bool) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, x := range w.tasks {
		if f(x) {
			return true
		}
	}
	return false
}

// callWith retries while the engine has not yet picked up a stored tool.
func callWith(t *testing.T, ctx context.Context, tr *Trier, name string, opts CallOptions) (Result, error) {
	t.Helper()
	for {
		res, err := tr.TryToolWith(ctx, name, nil, opts)
		if err == nil || !strings.Contains(err.Error(), "unknown tool") || ctx.Err() != nil {
			return res, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestTryItRunsABackgroundTool: a tool that runs only as a task runs from
// Try it (which declares the tasks extension), which hears its status and
// latest message as it goes and gets its result once it ends.
func TestTryItRunsABackgroundTool(t *testing.T) {
	s := newServed(t)
	s.putSlow(t, "sync_photos", 1500*time.Millisecond) // past the first poll, a second after the start
	tr := newTestTrier(t, s)
	w := &watched{}
	ctx, cancel := context.WithTimeout(context.Background(), testutil.Patience)
	defer cancel()
	res, err := callWith(t, ctx, tr, "sync_photos", CallOptions{Watch: w.watch})
	if err != nil {
		t.Fatalf("the background tool: %v", err)
	}
	if res.Text != "synced" || res.IsError {
		t.Fatalf("result %+v", res)
	}
	if !w.saw(func(x Task) bool { return x.Status == "working" && x.Message == "synced 3 of 10 folders" }) {
		t.Errorf("the progress message was never seen: %+v", w.tasks)
	}
	if !w.saw(func(x Task) bool { return x.Status == "completed" }) {
		t.Errorf("the end was never seen: %+v", w.tasks)
	}
	if !strings.Contains(res.Response, `"resultType": "task"`) || !strings.Contains(res.Response, "synced") {
		t.Errorf("the exchange shown:\n%s", res.Response)
	}
}

// TestTryItCancelsABackgroundTool: cancelling a call that runs as a task
// cancels the task on the server (tasks/cancel), which the activity log
// records as cancelled.
func TestTryItCancelsABackgroundTool(t *testing.T) {
	s := newServed(t)
	s.putSlow(t, "sync_photos", time.Minute)
	tr := newTestTrier(t, s)
	w := &watched{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := callWith(t, ctx, tr, "sync_photos", CallOptions{Watch: func(x Task) {
			w.watch(x)
			if x.Message == "synced 3 of 10 folders" {
				cancel()
			}
		}})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a cancelled call returned no error")
		}
	case <-time.After(testutil.Patience):
		t.Fatal("the cancelled call did not return")
	}
	testutil.EventuallyShows(t, "the task cancelled in the activity log", func() (bool, string) {
		if err := s.activity.Flush(context.Background()); err != nil {
			return false, err.Error()
		}
		recs, err := s.st.Activity(context.Background(), storage.ActivityQuery{Method: record.TaskActivityMethod})
		if err != nil || len(recs) == 0 {
			return false, "no task record"
		}
		return recs[0].Outcome == record.OutcomeCancelled, recs[0].Outcome + " " + recs[0].Detail
	})
}
