package record

import (
	"encoding/json"
	"errors"
	"time"
)

// Task statuses. A task starts working, may move between working and
// input_required, and ends in one of the three terminal statuses, which
// never change.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// TaskActivityMethod is the activity-log method of a task's own record,
// written when the task ends.
const TaskActivityMethod = "task"

// InterruptedMessage is the status message of a task that was still running
// when mcptray stopped; the next start reports it failed with this message.
const InterruptedMessage = "mcptray stopped while this task ran, and stopped its programs: it may have done part of its work; check before calling the tool again"

// ErrUnknownTask is what a TaskStore returns for a task it does not hold.
var ErrUnknownTask = errors.New("unknown task")

// Task is one task of the tasks extension as the store keeps it.
type Task struct {
	ID string `json:"taskId"`
	// Owner is the client token that created the task (empty when auth is
	// off); only the same token can see or steer it.
	Owner string `json:"owner,omitempty"`
	Tool  string `json:"tool"`
	// Title is the tool's title for people, known to the process that runs
	// the task (it is not stored).
	Title         string    `json:"-"`
	Status        string    `json:"status"`
	StatusMessage string    `json:"statusMessage,omitempty"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"lastUpdatedAt"`
	TTLMs         int64     `json:"ttlMs"`
	// PollIntervalMs is the polling interval suggested to the client.
	PollIntervalMs int64 `json:"pollIntervalMs"`
	// InputRequests are the outstanding input requests (input_required),
	// as their wire map.
	InputRequests json.RawMessage `json:"inputRequests,omitempty"`
	// Result is the tools/call result (completed); Error the JSON-RPC
	// error (failed).
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
	// Progress, Total and ProgressMessage are the latest progress the
	// action reported.
	Progress        float64 `json:"progress,omitempty"`
	Total           float64 `json:"total,omitempty"`
	ProgressMessage string  `json:"progressMessage,omitempty"`
}

// Terminal reports whether the task has ended.
func (t Task) Terminal() bool {
	return t.Status == TaskCompleted || t.Status == TaskFailed || t.Status == TaskCancelled
}

// Expired reports whether the task outlived its TTL at now.
func (t Task) Expired(now time.Time) bool {
	return t.TTLMs > 0 && now.After(t.CreatedAt.Add(time.Duration(t.TTLMs)*time.Millisecond))
}
