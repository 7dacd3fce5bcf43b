package editor

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/storage"
)

// TestTryItFollowsABackgroundTool: a tool that runs only in the background
// (task mode "always") runs from Try it: the panel shows how far it got
// and its latest message while it runs, and Cancel cancels the task, which
// the activity log records as cancelled.
func TestTryItFollowsABackgroundTool(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewAuthServed(t)
	tool := catalog.Tool{Name: "sync_photos", Title: "Sync photos", Description: "Pretends to sync photo folders, slowly.", TaskMode: catalog.TaskRequired,
		Action: catalog.Action{Respond: &catalog.Respond{
			Steps: []catalog.Step{{Progress: &catalog.ProgressStep{Progress: 3, Total: 10, Message: "synced 3 of 10 folders"}},
				{DelayMs: 60000, Progress: &catalog.ProgressStep{Progress: 10, Total: 10}}},
			Content: []catalog.Content{{Type: "text", Text: "synced"}}}}}
	if err := s.St.PutTool(context.Background(), tool); err != nil {
		t.Fatal(err)
	}
	tr := newTrier(t, s)
	e := NewToolEditor(s.St, tool, false, nil)
	w := test.NewTempWindow(t, e.Content())
	w.Resize(fyne.NewSize(900, 1400))
	e.SetTrier(TryItTrier(tr, s.Eng))
	e.TryBox.Open()
	p := e.Try
	test.Tap(p.run)
	testutil.EventuallyShows(t, "the task's progress and latest message in Try it", func() (bool, string) {
		var ok bool
		var saw string
		fyne.DoAndWait(func() {
			ok = p.progress.Visible() && p.progress.Value == 3 && p.progress.Max == 10 &&
				strings.Contains(p.result.Text, "Latest: synced 3 of 10 folders") && p.stop.Visible()
			saw = p.result.Text
		})
		return ok, saw
	})
	uitest.Sees(t, "Try it on a background tool", uitest.Seen(p.content()),
		"button: Cancel", "progress: 3/10",
		"label: Running \"sync_photos\" in the background (as a task): Cancel stops it.\nLatest: synced 3 of 10 folders")
	uitest.Capture(t, w, "tryit-background.png")
	test.Tap(p.stop)
	p.Calls.Wait()
	if p.result.Text != "cancelled" || p.progress.Visible() || p.stop.Visible() {
		t.Errorf("after Cancel the panel says %q (progress shown %v, Cancel shown %v)", p.result.Text, p.progress.Visible(), p.stop.Visible())
	}
	testutil.EventuallyShows(t, "the task cancelled in the activity log", func() (bool, string) {
		if err := s.D.Activity().Flush(context.Background()); err != nil {
			return false, err.Error()
		}
		recs, err := s.St.Activity(context.Background(), storage.ActivityQuery{Method: record.TaskActivityMethod, Target: "sync_photos"})
		if err != nil || len(recs) == 0 {
			return false, "no record of the task"
		}
		return recs[0].Outcome == record.OutcomeCancelled, recs[0].Outcome + ": " + recs[0].Detail
	})
}
