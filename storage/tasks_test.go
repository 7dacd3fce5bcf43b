package storage

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/mcptray/mcptray/record"
)

func TestTasks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mcptray.db")
	s := openAt(t, path)
	changes := s.Changes(t.Context())
	now := time.Now().UTC().Truncate(time.Millisecond)
	running := record.Task{ID: "t1", Owner: "alice", Tool: "slow", Status: record.TaskInputRequired, StatusMessage: "waiting",
		CreatedAt: now, UpdatedAt: now, TTLMs: 60_000, PollIntervalMs: 1000,
		InputRequests: json.RawMessage(`{"a":{"method":"elicitation/create","params":{"message":"A?"}}}`), Progress: 1, Total: 2, ProgressMessage: "half"}
	done := record.Task{ID: "t2", Tool: "quick", Status: record.TaskCompleted, CreatedAt: now, UpdatedAt: now, TTLMs: 60_000,
		PollIntervalMs: 1000, Result: json.RawMessage(`{"content":[{"type":"text","text":"ok"}]}`)}
	old := record.Task{ID: "t3", Tool: "quick", Status: record.TaskCompleted, CreatedAt: now.Add(-2 * time.Minute), UpdatedAt: now, TTLMs: 60_000}
	for _, task := range []record.Task{running, done, old} {
		if err := s.CreateTask(ctx, task); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := s.GetTask(ctx, "t1"); err != nil || !reflect.DeepEqual(got, running) {
		t.Fatalf("GetTask = %+v, %v\nwant %+v", got, err, running)
	}
	if _, err := s.GetTask(ctx, "nope"); !errors.Is(err, record.ErrUnknownTask) {
		t.Errorf("unknown task: %v", err)
	}
	if err := s.UpdateTask(ctx, record.Task{ID: "nope"}); !errors.Is(err, record.ErrUnknownTask) {
		t.Errorf("updating an unknown task: %v", err)
	}
	if receive(changes, 300*time.Millisecond) {
		t.Error("task writes were reported as catalog changes")
	}

	// A new process: what ran is failed; what ended stays.
	rpcErr := json.RawMessage(`{"code":-32603,"message":"stopped"}`)
	if n, err := openAt(t, path).InterruptTasks(ctx, "stopped", rpcErr, now); err != nil || n != 1 {
		t.Fatalf("InterruptTasks = %d, %v", n, err)
	}
	got, _ := s.GetTask(ctx, "t1")
	if got.Status != record.TaskFailed || got.StatusMessage != "stopped" || string(got.Error) != string(rpcErr) || got.InputRequests != nil {
		t.Errorf("interrupted task: %+v", got)
	}
	if got, _ := s.GetTask(ctx, "t2"); !reflect.DeepEqual(got, done) {
		t.Errorf("completed task changed: %+v", got)
	}

	if n, err := s.DeleteExpiredTasks(ctx, now); err != nil || n != 1 {
		t.Fatalf("DeleteExpiredTasks = %d, %v", n, err)
	}
	if _, err := s.GetTask(ctx, "t3"); !errors.Is(err, record.ErrUnknownTask) {
		t.Errorf("expired task still there: %v", err)
	}
	if list, err := s.Tasks(ctx, 0); err != nil || len(list) != 2 {
		t.Errorf("Tasks = %d, %v", len(list), err)
	}
}
