//go:build unix

package mcpcore_test

// Tasks whose action is a real child process (t_sleeper runs sh): what a
// restart and a cancel do to it. Unix-only, like sh and signal 0.

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/internal/process"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/record"
)

func TestTaskCompletesAndSurvivesRestart(t *testing.T) {
	a := newEnv(t, envOptions{extra: taskTools})
	quick := startTask(t, a, "t_quick", map[string]any{"x": "one"}, "")
	done := a.waitTask(t, quick.TaskID, "", "completed", terminal)
	if done.Status != record.TaskCompleted || done.Result == nil || len(done.Result.Content) != 1 || done.Result.Content[0].Text != "quick one" {
		t.Fatalf("completed task: %+v", done)
	}

	pidfile := filepath.Join(t.TempDir(), "pid")
	sleeper := startTask(t, a, "t_sleeper", map[string]any{"pidfile": pidfile}, "")
	testutil.WaitPID(t, pidfile)
	if v := a.getTask(t, sleeper.TaskID, ""); v.Status != record.TaskWorking || v.Result != nil || v.Error != nil {
		t.Fatalf("running task: %+v", v)
	}

	// A new process on the same database, while the first one is as good
	// as dead: what ran is failed, saying why; what ended is still there.
	b := newEnv(t, envOptions{extra: taskTools, db: a.db})
	got := b.getTask(t, quick.TaskID, "")
	if got.Status != record.TaskCompleted || got.Result == nil || got.Result.Content[0].Text != "quick one" {
		t.Errorf("completed task after the restart: %+v", got)
	}
	got = b.getTask(t, sleeper.TaskID, "")
	if got.Status != record.TaskFailed || got.Error == nil || !strings.Contains(got.StatusMessage, "mcptray stopped while this task ran") || got.Result != nil {
		t.Errorf("running task after the restart: %+v", got)
	}
	if got.Error != nil && got.Error.Code != -32603 {
		t.Errorf("error code %d, want -32603", got.Error.Code)
	}
}

func TestTaskCancelStopsTheProcess(t *testing.T) {
	e := newEnv(t, envOptions{extra: taskTools})
	pidfile := filepath.Join(t.TempDir(), "pid")
	v := startTask(t, e, "t_sleeper", map[string]any{"pidfile": pidfile}, "")
	pid := testutil.WaitPID(t, pidfile)
	if !process.Alive(pid) {
		t.Fatal("the command is not running")
	}
	if len(e.eng.RunningTasks()) != 1 {
		t.Errorf("RunningTasks: %+v", e.eng.RunningTasks())
	}
	for range 2 { // idempotent
		var ack map[string]any
		e.taskCall(t, "tasks/cancel", v.TaskID, withTasks, "", nil).result(t, &ack)
		if ack["resultType"] != "complete" || ack["taskId"] != nil || ack["status"] != nil {
			t.Errorf("cancel ack: %v", ack)
		}
		if got := e.getTask(t, v.TaskID, ""); got.Status != record.TaskCancelled {
			t.Errorf("status after cancel: %+v", got)
		}
	}
	testutil.Eventually(t, "the cancelled task's process to end", func() bool { return !process.Alive(pid) })
	testutil.Eventually(t, "no running task", func() bool { return len(e.eng.RunningTasks()) == 0 })

	// Cancelled on the desktop (the observer API).
	if err := e.eng.CancelTask("no-such-task"); !errors.Is(err, record.ErrUnknownTask) {
		t.Errorf("CancelTask of an unknown task: %v", err)
	}
	pidfile = filepath.Join(t.TempDir(), "pid2")
	v = startTask(t, e, "t_sleeper", map[string]any{"pidfile": pidfile}, "")
	pid = testutil.WaitPID(t, pidfile)
	if err := e.eng.CancelTask(v.TaskID); err != nil {
		t.Fatal(err)
	}
	if got := e.getTask(t, v.TaskID, ""); got.Status != record.TaskCancelled || got.StatusMessage != "cancelled on the desktop" {
		t.Errorf("after CancelTask: %+v", got)
	}
	testutil.Eventually(t, "the process to end", func() bool { return !process.Alive(pid) })
}
