package words

import (
	"testing"

	"github.com/mcptray/mcptray/record"
)

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "no problems", 1: "1 problem", 2: "2 problems", 12: "12 problems"} {
		if got := Count(n, "problem", "problems"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestClock(t *testing.T) {
	for s, want := range map[int]string{-3: "0:00", 0: "0:00", 59: "0:59", 61: "1:01", 3600: "1:00:00", 3725: "1:02:05"} {
		if got := Clock(s); got != want {
			t.Errorf("Clock(%d) = %q, want %q", s, got, want)
		}
	}
}

func TestQuestionLine(t *testing.T) {
	for n, want := range map[int]string{0: "No question waiting", 1: "A question is waiting for you…", 3: "3 questions are waiting for you…"} {
		if got := QuestionLine(n); got != want {
			t.Errorf("QuestionLine(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestTaskStatus(t *testing.T) {
	for _, c := range []struct {
		task record.Task
		want string
	}{
		{record.Task{Status: record.TaskWorking, StatusMessage: "working"}, "Running…"},
		{record.Task{Status: record.TaskWorking, StatusMessage: "working", ProgressMessage: "3 of 10"}, "3 of 10"},
		{record.Task{Status: record.TaskInputRequired}, "Waiting for an answer from the AI app"},
		{record.Task{Status: record.TaskCompleted, StatusMessage: "completed"}, "Done"},
		{record.Task{Status: record.TaskCompleted, StatusMessage: "completed with a tool error"}, "Done, but the tool reported a problem"},
		{record.Task{Status: record.TaskFailed, StatusMessage: "mcptray stopped while this task ran"}, "Failed: mcptray stopped while this task ran"},
		{record.Task{Status: record.TaskCancelled, StatusMessage: "cancelled by the client"}, "Cancelled by the AI app"},
		{record.Task{Status: record.TaskCancelled, StatusMessage: "cancelled on the desktop"}, "Cancelled here"},
		{record.Task{Status: TaskEnded}, "Ended"},
	} {
		if got := TaskStatus(c.task); got != c.want {
			t.Errorf("%s/%q: %q, want %q", c.task.Status, c.task.StatusMessage, got, c.want)
		}
	}
	if got := TaskTitle(record.Task{Tool: "sync.run"}); got != "sync.run" {
		t.Errorf("untitled tool: %q", got)
	}
	if got := TaskTitle(record.Task{Tool: "sync.run", Title: "Sync my folders"}); got != "Sync my folders" {
		t.Errorf("titled tool: %q", got)
	}
}
