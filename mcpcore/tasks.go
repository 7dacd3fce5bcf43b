package mcpcore

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcptray/mcptray/record"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TasksExtension is the id of the 2026-07-28 tasks extension (SEP-2663).
const TasksExtension = "io.modelcontextprotocol/tasks"

// metaClientCapabilities is the per-request _meta key of the client's
// capabilities (2026-07-28).
const metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"

// TaskStore keeps tasks durably, so a task outlives the process that ran it.
type TaskStore interface {
	// CreateTask stores a new task.
	CreateTask(ctx context.Context, t record.Task) error
	// UpdateTask replaces a task.
	UpdateTask(ctx context.Context, t record.Task) error
	// GetTask returns a task or ErrUnknownTask.
	GetTask(ctx context.Context, id string) (record.Task, error)
	// InterruptTasks ends every task still working or input_required as
	// failed with the given message and error; the engine calls it when it
	// starts, since no task of an earlier process can still be running.
	InterruptTasks(ctx context.Context, message string, rpcErr json.RawMessage, at time.Time) (int, error)
	// DeleteExpiredTasks deletes the tasks whose TTL ran out before now.
	DeleteExpiredTasks(ctx context.Context, now time.Time) (int, error)
}

// memTasks is the TaskStore of an engine given none: tasks live as long
// as the process.
type memTasks struct {
	mu    sync.Mutex
	tasks map[string]record.Task
}

func newMemTasks() *memTasks { return &memTasks{tasks: map[string]record.Task{}} }

func (m *memTasks) CreateTask(_ context.Context, t record.Task) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tasks[t.ID] = t
	return nil
}

func (m *memTasks) UpdateTask(_ context.Context, t record.Task) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.tasks[t.ID]; !ok {
		return record.ErrUnknownTask
	}
	m.tasks[t.ID] = t
	return nil
}

func (m *memTasks) GetTask(_ context.Context, id string) (record.Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tasks[id]
	if !ok {
		return record.Task{}, record.ErrUnknownTask
	}
	return t, nil
}

func (m *memTasks) InterruptTasks(_ context.Context, msg string, rpcErr json.RawMessage, at time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for id, t := range m.tasks {
		if !t.Terminal() {
			t.Status, t.StatusMessage, t.Error, t.InputRequests, t.UpdatedAt = record.TaskFailed, msg, rpcErr, nil, at
			m.tasks[id] = t
			n++
		}
	}
	return n, nil
}

func (m *memTasks) DeleteExpiredTasks(_ context.Context, now time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for id, t := range m.tasks {
		if t.Expired(now) {
			delete(m.tasks, id)
			n++
		}
	}
	return n, nil
}

// interruptedError is the JSON-RPC error of a task that was running when
// mcptray stopped.
func interruptedError() json.RawMessage {
	b, _ := json.Marshal(map[string]any{"code": jsonrpc.CodeInternalError, "message": record.InterruptedMessage})
	return b
}

// ---------------------------------------------------------------- wire

// taskWire is the Task of the extension's wire format.
type taskWire struct {
	TaskID         string `json:"taskId"`
	Status         string `json:"status"`
	StatusMessage  string `json:"statusMessage,omitempty"`
	CreatedAt      string `json:"createdAt"`
	LastUpdatedAt  string `json:"lastUpdatedAt"`
	TTLMs          *int64 `json:"ttlMs"`
	PollIntervalMs int64  `json:"pollIntervalMs,omitempty"`
}

func wireOf(t record.Task) taskWire {
	w := taskWire{
		TaskID:         t.ID,
		Status:         t.Status,
		StatusMessage:  t.StatusMessage,
		CreatedAt:      t.CreatedAt.UTC().Format(time.RFC3339Nano),
		LastUpdatedAt:  t.UpdatedAt.UTC().Format(time.RFC3339Nano),
		PollIntervalMs: t.PollIntervalMs,
	}
	if t.TTLMs > 0 {
		ttl := t.TTLMs
		w.TTLMs = &ttl
	}
	return w
}

// createTaskResult is the flat CreateTaskResult a tools/call answers with
// when it runs as a task. It never carries requestState.
type createTaskResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	taskWire
}

// detailedTask answers tasks/get: the task, plus its outstanding input
// requests, its result or its error.
type detailedTask struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	taskWire
	InputRequests json.RawMessage `json:"inputRequests,omitempty"`
	Result        json.RawMessage `json:"result,omitempty"`
	Error         json.RawMessage `json:"error,omitempty"`
}

// taskAck answers tasks/update and tasks/cancel.
type taskAck struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

// taskParams are the params of tasks/get, tasks/update and tasks/cancel.
// The answers are decoded per key, by the kind of the step they answer.
type taskParams struct {
	mcp.ParamsBase
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
}

// declaresTasks reports whether a request's _meta declares the tasks
// extension among its client capabilities.
func declaresTasks(meta map[string]any) bool {
	v, ok := meta[metaClientCapabilities]
	if !ok || v == nil {
		return false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	var caps struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if json.Unmarshal(b, &caps) != nil {
		return false
	}
	_, ok = caps.Extensions[TasksExtension]
	return ok
}

// errTasksUndeclared is -32021 naming the tasks extension.
func errTasksUndeclared(msg string) error {
	return &jsonrpc.Error{
		Code:    mcp.CodeMissingRequiredClientCapabilities,
		Message: msg,
		Data:    json.RawMessage(`{"requiredCapabilities":{"extensions":{"` + TasksExtension + `":{}}}}`),
	}
}

// newTaskID is a random, unguessable task id (task ids are bearer-like).
func newTaskID() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// ---------------------------------------------------------------- tasks/* methods

// addTaskMethods registers tasks/get, tasks/update and tasks/cancel.
func (e *Engine) addTaskMethods(srv *mcp.Server) {
	for _, err := range []error{
		mcp.AddReceivingCustomMethod(srv, "tasks/get", e.tasksGet),
		mcp.AddReceivingCustomMethod(srv, "tasks/update", e.tasksUpdate),
		mcp.AddReceivingCustomMethod(srv, "tasks/cancel", e.tasksCancel),
	} {
		if err != nil {
			e.log.Error("registering the tasks methods", "err", err)
		}
	}
}

// lookupTask checks a tasks/* request and finds its task: the extension
// must be declared on a 2026-07-28 request, and the task must exist, be
// unexpired and belong to the request's client token.
func (e *Engine) lookupTask(ctx context.Context, ss *mcp.ServerSession, method string, p *taskParams) (record.Task, error) {
	if isLegacy(ss) {
		return record.Task{}, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: method + ": tasks are a 2026-07-28 extension; this session uses an earlier revision"}
	}
	if p == nil || !declaresTasks(p.Meta) {
		return record.Task{}, errTasksUndeclared(method + " needs the client capability extensions[\"" + TasksExtension + "\"] in the request's _meta")
	}
	if p.TaskID == "" {
		return record.Task{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: method + ": taskId is required"}
	}
	unknown := &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown task %q (it may have expired)", p.TaskID)}
	t, err := e.taskStore().GetTask(ctx, p.TaskID)
	if errors.Is(err, record.ErrUnknownTask) {
		return record.Task{}, unknown
	}
	if err != nil {
		return record.Task{}, err
	}
	owner := ""
	if c := callRecordOf(ctx); c != nil {
		owner = c.owner
	}
	if t.Owner != owner || t.Expired(time.Now()) {
		return record.Task{}, unknown
	}
	return t, nil
}

func (e *Engine) tasksGet(ctx context.Context, ss *mcp.ServerSession, p *taskParams) (*detailedTask, error) {
	t, err := e.lookupTask(ctx, ss, "tasks/get", p)
	if err != nil {
		return nil, err
	}
	d := &detailedTask{ResultType: "complete", taskWire: wireOf(t)}
	switch t.Status {
	case record.TaskInputRequired:
		d.InputRequests = t.InputRequests
	case record.TaskCompleted:
		d.Result = t.Result
	case record.TaskFailed:
		d.Error = t.Error
	}
	return d, nil
}

func (e *Engine) tasksUpdate(ctx context.Context, ss *mcp.ServerSession, p *taskParams) (*taskAck, error) {
	if _, err := e.lookupTask(ctx, ss, "tasks/update", p); err != nil {
		return nil, err
	}
	if r := e.run(p.TaskID); r != nil {
		r.update(p.InputResponses)
	}
	return &taskAck{ResultType: "complete"}, nil
}

func (e *Engine) tasksCancel(ctx context.Context, ss *mcp.ServerSession, p *taskParams) (*taskAck, error) {
	if _, err := e.lookupTask(ctx, ss, "tasks/cancel", p); err != nil {
		return nil, err
	}
	if r := e.run(p.TaskID); r != nil {
		r.cancelRun("cancelled by the client")
	}
	return &taskAck{ResultType: "complete"}, nil
}

// ---------------------------------------------------------------- observer API

// RunningTasks lists the tasks running in this process, with their latest
// status and progress, oldest first.
func (e *Engine) RunningTasks() []record.Task {
	runs := e.runs()
	out := make([]record.Task, 0, len(runs))
	for _, r := range runs {
		r.mu.Lock()
		out = append(out, r.task)
		r.mu.Unlock()
	}
	slices.SortFunc(out, func(a, b record.Task) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return out
}

// CancelTask cancels a running task on the person's behalf (any owner). It
// returns ErrUnknownTask when no such task is running.
func (e *Engine) CancelTask(id string) error {
	r := e.run(id)
	if r == nil {
		return record.ErrUnknownTask
	}
	r.cancelRun("cancelled on the desktop")
	return nil
}

// SubscribeTasks delivers every change of a task of this process (created,
// progress, input required, ended) until ctx ends. A slow reader misses
// changes rather than slowing tasks down; RunningTasks gives the full state.
func (e *Engine) SubscribeTasks(ctx context.Context) <-chan record.Task {
	ch := make(chan record.Task, 64)
	e.tasks.mu.Lock()
	e.tasks.subs[ch] = struct{}{}
	e.tasks.mu.Unlock()
	go func() {
		<-ctx.Done()
		e.tasks.mu.Lock()
		delete(e.tasks.subs, ch)
		e.tasks.mu.Unlock()
		close(ch)
	}()
	return ch
}

func (e *Engine) publishTask(t record.Task) {
	e.tasks.mu.Lock()
	defer e.tasks.mu.Unlock()
	for ch := range e.tasks.subs {
		select {
		case ch <- t:
		default:
		}
	}
}
