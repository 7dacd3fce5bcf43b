package storage

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcptray/mcptray/record"
)

// TestEndedTaskStaysEnded: once a task completed, failed or was cancelled,
// no update changes its status, result or error — a runner finishing after
// the task was failed (a second server marking it interrupted, once) must
// not flip it to completed.
func TestEndedTaskStaysEnded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	now := time.Now().UTC().Truncate(time.Millisecond)
	for _, end := range []string{record.TaskFailed, record.TaskCompleted, record.TaskCancelled} {
		task := record.Task{ID: "t-" + end, Tool: "slow", Status: record.TaskWorking, CreatedAt: now, UpdatedAt: now, TTLMs: 60_000}
		if err := s.CreateTask(ctx, task); err != nil {
			t.Fatal(err)
		}
		task.Status, task.StatusMessage = end, "ended"
		if end == record.TaskFailed {
			task.Error = json.RawMessage(`{"code":-32603,"message":"mcptray stopped"}`)
		}
		if err := s.UpdateTask(ctx, task); err != nil {
			t.Fatalf("ending the task %s: %v", end, err)
		}
		// Progress on the ended task is harmless; a new end is not.
		for _, later := range []record.Task{
			{Status: record.TaskCompleted, Result: json.RawMessage(`{"content":[]}`)},
			{Status: record.TaskWorking},
			{Status: end, Result: json.RawMessage(`{"content":[{"type":"text","text":"late"}]}`)},
		} {
			flip := task
			flip.Status, flip.Result, flip.Error = later.Status, later.Result, later.Error
			if err := s.UpdateTask(ctx, flip); err == nil {
				t.Errorf("%s task: an update to %s (result %s) was accepted", end, later.Status, later.Result)
			}
		}
		if n, err := s.InterruptTasks(ctx, "stopped", json.RawMessage(`{"code":-32603,"message":"x"}`), now); err != nil || n != 0 {
			t.Errorf("InterruptTasks changed %d ended tasks, %v", n, err)
		}
		got, err := s.GetTask(ctx, task.ID)
		if err != nil || got.Status != end || string(got.Error) != string(task.Error) || got.Result != nil {
			t.Errorf("%s task now reads %s, result %s, error %s (%v)", end, got.Status, got.Result, got.Error, err)
		}
	}
}
