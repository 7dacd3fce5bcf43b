// Package words says things to people the same way in both of mcptray's
// desktop processes, the tray's menu and the windows: counts, times, what
// a task is doing, how many questions wait. It imports no GUI toolkit.
package words

import (
	"cmp"
	"fmt"

	"github.com/mcptray/mcptray/record"
)

// Count words a number of things for people: "1 problem", "3 problems",
// "no problems".
func Count(n int, one, many string) string {
	switch n {
	case 0:
		return "no " + many
	case 1:
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Clock formats a number of seconds as m:ss (or h:mm:ss).
func Clock(seconds int) string {
	s := max(seconds, 0)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// QuestionLine is the menu line that brings up the question waiting, if
// any (the tray hides it when none waits; the window's menu disables it).
func QuestionLine(waiting int) string {
	switch waiting {
	case 0:
		return "No question waiting"
	case 1:
		return "A question is waiting for you…"
	}
	return fmt.Sprintf("%d questions are waiting for you…", waiting)
}

// TaskTitle names a task for people: its tool's title, else the tool's
// name. Task ids mean nothing to a person; no window shows them.
func TaskTitle(t record.Task) string { return cmp.Or(t.Title, t.Tool) }

// TaskEnded is the status of a task a window saw running and then lost
// track of: it ended, how is not known.
const TaskEnded = "ended"

// TaskStatus says where a task is, for people: the action's latest
// progress message while it runs (not the protocol's "working"), what it
// waits for, or how it ended.
func TaskStatus(t record.Task) string {
	switch t.Status {
	case record.TaskWorking:
		return cmp.Or(t.ProgressMessage, "Running…")
	case record.TaskInputRequired:
		return "Waiting for an answer from the AI app"
	case record.TaskCompleted:
		if t.StatusMessage == "completed with a tool error" {
			return "Done, but the tool reported a problem"
		}
		return "Done"
	case record.TaskFailed:
		return "Failed: " + t.StatusMessage
	case record.TaskCancelled:
		switch t.StatusMessage {
		case "cancelled on the desktop":
			return "Cancelled here"
		case "cancelled by the client":
			return "Cancelled by the AI app"
		case "the task outlived its time to live":
			return "Cancelled: it ran longer than a task may"
		}
		return "Cancelled"
	case TaskEnded:
		return "Ended"
	}
	return t.Status
}
