package mcpcore

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TasksExtension is the id of the 2026-07-28 tasks extension (SEP-2663).
const TasksExtension = "io.modelcontextprotocol/tasks"

// metaClientCapabilities is the per-request _meta key of the client's
// capabilities (2026-07-28).
const metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"

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

// InterruptedMessage is the status message of a task that was still running
// when mcptray stopped; the next start reports it failed with this message.
const InterruptedMessage = "mcptray stopped while this task ran; call the tool again"

// ErrUnknownTask is what a TaskStore returns for a task it does not hold.
var ErrUnknownTask = errors.New("unknown task")

// Task is one task of the tasks extension as the store keeps it.
type Task struct {
	ID string `json:"taskId"`
	// Owner is the client token that created the task (empty when auth is
	// off); only the same token can see or steer it.
	Owner         string    `json:"owner,omitempty"`
	Tool          string    `json:"tool"`
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

// TaskStore keeps tasks durably, so a task outlives the process that ran it.
type TaskStore interface {
	CreateTask(ctx context.Context, t Task) error
	// UpdateTask replaces a task.
	UpdateTask(ctx context.Context, t Task) error
	// GetTask returns a task or ErrUnknownTask.
	GetTask(ctx context.Context, id string) (Task, error)
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
	tasks map[string]Task
}

func newMemTasks() *memTasks { return &memTasks{tasks: map[string]Task{}} }

func (m *memTasks) CreateTask(_ context.Context, t Task) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tasks[t.ID] = t
	return nil
}

func (m *memTasks) UpdateTask(_ context.Context, t Task) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.tasks[t.ID]; !ok {
		return ErrUnknownTask
	}
	m.tasks[t.ID] = t
	return nil
}

func (m *memTasks) GetTask(_ context.Context, id string) (Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tasks[id]
	if !ok {
		return Task{}, ErrUnknownTask
	}
	return t, nil
}

func (m *memTasks) InterruptTasks(_ context.Context, msg string, rpcErr json.RawMessage, at time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for id, t := range m.tasks {
		if !t.Terminal() {
			t.Status, t.StatusMessage, t.Error, t.InputRequests, t.UpdatedAt = TaskFailed, msg, rpcErr, nil, at
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
	b, _ := json.Marshal(map[string]any{"code": jsonrpc.CodeInternalError, "message": InterruptedMessage})
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

func wireOf(t Task) taskWire {
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

// ---------------------------------------------------------------- engine side

// taskRun is a task running in this process.
type taskRun struct {
	e      *Engine
	cancel context.CancelFunc
	done   chan struct{}

	mu   sync.Mutex
	task Task
	// pending are the outstanding input requests of the current round, by
	// wire key; answers the answers so far, by step key.
	pending   map[string]*pendingStep
	answers   map[string]json.RawMessage
	asked     map[string]int
	roundDone chan struct{}
	// client names the AI client; approvals are the approvals given or
	// refused while the task ran, for its activity record.
	client    string
	approvals []string
}

type pendingStep struct {
	step InputStep
	req  mcp.InputRequest
	// left is how many more times the step may be asked after an invalid
	// answer.
	left int
}

// taskRegistry holds the tasks running in this process and the observers.
type taskRegistry struct {
	mu   sync.Mutex
	runs map[string]*taskRun
	subs map[chan Task]struct{}
}

// taskStore returns the engine's task store.
func (e *Engine) taskStore() TaskStore { return e.opts.Tasks }

// saveLocked writes the run's task; r.mu is held.
func (r *taskRun) saveLocked() {
	r.task.UpdatedAt = time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.e.taskStore().UpdateTask(ctx, r.task); err != nil {
		r.e.log.Error("saving a task", "task", r.task.ID, "err", err)
	}
	r.e.publishTask(r.task)
}

// startTask creates the task of a tools/call (durably, before it answers)
// and runs the rest of the call in the background: the steps asked inside
// the task, then the action.
// taskPlan is what a task still has to do once it is created.
type taskPlan struct {
	tool   Tool
	output *jsonschema.Resolved
	desk   deskCall
	// all are the tool's steps; inputs the answers given before the task.
	all    []InputStep
	inputs map[string]any
	// deskFirst are the desktop steps of the steps before the task; later
	// the in-task steps the client answers (tasks/update), laterDesk those
	// the desktop answers.
	deskFirst, later, laterDesk []InputStep
}

func (e *Engine) startTask(ctx context.Context, plan taskPlan) (*createTaskResult, error) {
	t, owner := plan.tool, plan.desk.token
	set := e.currentSettings()
	now := time.Now()
	task := Task{
		ID:             newTaskID(),
		Owner:          owner,
		Tool:           t.Name,
		Status:         TaskWorking,
		CreatedAt:      now,
		UpdatedAt:      now,
		TTLMs:          set.TaskTTLMs,
		PollIntervalMs: set.TaskPollIntervalMs,
	}
	store := e.taskStore()
	if _, err := store.DeleteExpiredTasks(ctx, now); err != nil {
		e.log.Warn("deleting expired tasks", "err", err)
	}
	e.expireRuns(now)
	if err := store.CreateTask(ctx, task); err != nil {
		return nil, fmt.Errorf("creating the task: %w", err)
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	runCtx, rc := withCall(runCtx)
	r := &taskRun{e: e, cancel: cancel, done: make(chan struct{}), task: task, answers: map[string]json.RawMessage{}, asked: map[string]int{},
		client: plan.desk.client}
	plan.desk.approved = func(s string) {
		r.mu.Lock()
		r.approvals = append(r.approvals, s)
		r.mu.Unlock()
	}
	e.tasks.mu.Lock()
	e.tasks.runs[task.ID] = r
	e.tasks.mu.Unlock()
	e.publishTask(task)
	go func() {
		defer close(r.done)
		defer cancel()
		defer func() {
			e.tasks.mu.Lock()
			delete(e.tasks.runs, task.ID)
			e.tasks.mu.Unlock()
		}()
		data := e.data(runCtx, plan.desk.args)
		maps.Copy(data.Inputs, plan.inputs)
		plan.desk.taskID = task.ID
		res, err := r.run(runCtx, plan, data)
		rc.secrets.Store(true) // redact whatever secret the run resolved
		r.finish(runCtx, rc, res, err)
	}()
	return &createTaskResult{ResultType: "task", taskWire: wireOf(task)}, nil
}

// run asks the desktop and the in-task steps, then runs the action.
func (r *taskRun) run(ctx context.Context, plan taskPlan, data *actions.Data) (*mcp.CallToolResult, error) {
	desktop := func(steps []InputStep) error {
		if len(steps) == 0 {
			return nil
		}
		r.setMessage("waiting for an answer on the desktop")
		answers, err := r.e.askDesktop(ctx, plan.desk, steps, data)
		if err != nil {
			return err
		}
		data.Inputs = mergeInputs(data.Inputs, decodeAnswers(answers))
		r.setMessage("working")
		return nil
	}
	if err := desktop(plan.deskFirst); err != nil {
		return nil, err
	}
	if len(plan.later) > 0 {
		answers, err := r.ask(ctx, plan.later, data)
		if err != nil {
			return nil, err
		}
		data.Inputs = mergeInputs(data.Inputs, decodeAnswers(answers))
	}
	if err := desktop(plan.laterDesk); err != nil {
		return nil, err
	}
	if err := declined(plan.all, data.Inputs); err != nil {
		return errorResult(err.Error()), nil
	}
	if err := deniedOnDesktop(plan.all, data.Inputs); err != nil {
		return errorResult(err.Error()), nil
	}
	t, output := plan.tool, plan.output
	res, structured, err := r.e.runAction(ctx, t, output, data, &taskReporter{r: r, data: data})
	if err != nil {
		return nil, err
	}
	if structured != nil {
		res.StructuredContent = structured
		if len(res.Content) == 0 {
			b, _ := json.Marshal(structured)
			res.Content = []mcp.Content{&mcp.TextContent{Text: string(b)}}
		}
	}
	return res, nil
}

// finish records how the run ended, unless the task ended already (a
// cancelled task stays cancelled).
func (r *taskRun) finish(ctx context.Context, rc *call, res *mcp.CallToolResult, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.task.Terminal() {
		return
	}
	r.task.InputRequests = nil
	var je *jsonrpc.Error
	switch {
	case ctx.Err() != nil:
		r.task.Status, r.task.StatusMessage = TaskCancelled, "cancelled"
	case err != nil && errors.As(err, &je):
		// A protocol-level error: the task failed.
		msg := rc.redact(je.Message)
		r.task.Status, r.task.StatusMessage = TaskFailed, msg
		r.task.Error, _ = json.Marshal(map[string]any{"code": je.Code, "message": msg, "data": je.Data})
		if je.Data == nil {
			r.task.Error, _ = json.Marshal(map[string]any{"code": je.Code, "message": msg})
		}
	default:
		if err != nil {
			// A plain error is a tool error, as go-sdk makes it for a call
			// that does not run as a task.
			res = errorResult(err.Error())
		}
		if res.Content == nil {
			res.Content = []mcp.Content{}
		}
		res = rc.redactResult(res).(*mcp.CallToolResult)
		b, merr := json.Marshal(res)
		if merr != nil {
			r.task.Status, r.task.StatusMessage = TaskFailed, "the result cannot be encoded"
			r.task.Error, _ = json.Marshal(map[string]any{"code": jsonrpc.CodeInternalError, "message": "the result cannot be encoded: " + merr.Error()})
			break
		}
		r.task.Status, r.task.Result = TaskCompleted, b
		r.task.StatusMessage = "completed"
		if res.IsError {
			r.task.StatusMessage = "completed with a tool error"
		}
	}
	r.saveLocked()
	r.recordLocked()
}

// recordLocked writes the activity record of a task that ended: the
// tools/call that created it was recorded with the outcome "task".
func (r *taskRun) recordLocked() {
	sink := r.e.opts.Activity
	if sink == nil {
		return
	}
	t := r.task
	a := Activity{Time: t.CreatedAt, Era: modernVersion, Client: r.client, Token: t.Owner, Method: TaskActivityMethod,
		Target: t.Tool, Duration: time.Since(t.CreatedAt), Outcome: OutcomeOK,
		Detail: excerpt("task " + t.ID + ": " + t.StatusMessage), Approvals: slices.Clone(r.approvals)}
	switch t.Status {
	case TaskCompleted:
		var res struct {
			IsError bool `json:"isError"`
		}
		if json.Unmarshal(t.Result, &res) == nil && res.IsError {
			a.Outcome = OutcomeToolError
		}
	case TaskFailed:
		a.Outcome, a.ErrorCode = OutcomeError, jsonrpc.CodeInternalError
		var e struct {
			Code int64 `json:"code"`
		}
		if json.Unmarshal(t.Error, &e) == nil && e.Code != 0 {
			a.ErrorCode = e.Code
		}
	case TaskCancelled:
		a.Outcome = OutcomeError
	}
	sink.Record(a)
}

// TaskActivityMethod is the activity-log method of a task's own record,
// written when the task ends.
const TaskActivityMethod = "task"

// ask parks the task in input_required, one round of steps at a time, until
// tasks/update answered every step of the round.
func (r *taskRun) ask(ctx context.Context, steps []InputStep, data *actions.Data) (map[string]json.RawMessage, error) {
	for _, round := range roundsOf(steps) {
		r.mu.Lock()
		data.Inputs = mergeInputs(data.Inputs, decodeAnswers(r.answers))
		r.pending = map[string]*pendingStep{}
		for _, s := range inRound(steps, round) {
			ir, err := inputRequest(s, data)
			if err != nil {
				r.mu.Unlock()
				return nil, err
			}
			r.pending[r.keyLocked(s.Key)] = &pendingStep{step: s, req: ir, left: maxAsks - 1}
		}
		r.roundDone = make(chan struct{})
		done := r.roundDone
		r.task.Status, r.task.StatusMessage = TaskInputRequired, "waiting for input from the client"
		r.task.InputRequests = r.pendingJSONLocked()
		r.saveLocked()
		r.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.answers), nil
}

func mergeInputs(a, b map[string]any) map[string]any {
	out := maps.Clone(a)
	if out == nil {
		out = map[string]any{}
	}
	maps.Copy(out, b)
	return out
}

// keyLocked is a fresh wire key for a step: keys are never reused over a
// task's lifetime, so a step asked again gets a new one.
func (r *taskRun) keyLocked(stepKey string) string {
	r.asked[stepKey]++
	if n := r.asked[stepKey]; n > 1 {
		return fmt.Sprintf("%s-%d", stepKey, n)
	}
	return stepKey
}

func (r *taskRun) pendingJSONLocked() json.RawMessage {
	m := mcp.InputRequestMap{}
	for k, p := range r.pending {
		m[k] = p.req
	}
	b, err := json.Marshal(m)
	if err != nil {
		r.e.log.Error("encoding a task's input requests", "task", r.task.ID, "err", err)
		return nil
	}
	return b
}

// update takes answers from tasks/update. Unknown or already answered keys
// are ignored; an invalid answer asks the step again under a new key (up to
// maxAsks times, then the task fails); the task goes back to working once
// the round is fully answered.
func (r *taskRun) update(responses map[string]json.RawMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.task.Status != TaskInputRequired {
		return
	}
	changed := false
	for _, key := range slices.Sorted(maps.Keys(responses)) {
		p, ok := r.pending[key]
		if !ok {
			continue
		}
		changed = true
		delete(r.pending, key)
		resp, err := decodeInputResponse(p.step.Kind, responses[key])
		var ans json.RawMessage
		if err == nil {
			ans, err = answerOf(p.step, resp)
		}
		if err == nil {
			r.answers[p.step.Key] = ans
			continue
		}
		if p.left <= 0 {
			r.task.Status, r.task.InputRequests = TaskFailed, nil
			r.task.StatusMessage = fmt.Sprintf("input step %q: no valid answer after %d tries: %v", p.step.Key, maxAsks, err)
			r.task.Error, _ = json.Marshal(map[string]any{"code": jsonrpc.CodeInvalidParams, "message": r.task.StatusMessage})
			r.saveLocked()
			r.recordLocked()
			r.cancel()
			return
		}
		r.pending[r.keyLocked(p.step.Key)] = &pendingStep{step: p.step, req: p.req, left: p.left - 1}
	}
	if !changed {
		return
	}
	if len(r.pending) == 0 {
		r.task.Status, r.task.StatusMessage, r.task.InputRequests = TaskWorking, "working", nil
		close(r.roundDone)
	} else {
		r.task.InputRequests = r.pendingJSONLocked()
	}
	r.saveLocked()
}

// decodeInputResponse decodes one answer as the response its step asked for.
func decodeInputResponse(kind string, raw json.RawMessage) (mcp.InputResponse, error) {
	var v mcp.InputResponse
	switch kind {
	case StepSampling:
		v = &mcp.CreateMessageWithToolsResult{}
	case StepRoots:
		v = &mcp.ListRootsResult{}
	default:
		v = &mcp.ElicitResult{}
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, err
	}
	return v, nil
}

// setMessage sets the status message of a working task.
func (r *taskRun) setMessage(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.task.Status == TaskWorking && r.task.StatusMessage != msg {
		r.task.StatusMessage = msg
		r.saveLocked()
	}
}

// cancelRun ends a running task as cancelled and stops its action.
func (r *taskRun) cancelRun(msg string) {
	r.mu.Lock()
	if !r.task.Terminal() {
		r.task.Status, r.task.StatusMessage, r.task.InputRequests = TaskCancelled, msg, nil
		r.saveLocked()
		r.recordLocked()
	}
	r.mu.Unlock()
	r.cancel()
}

// taskReporter keeps an action's progress on its task; a task sends no
// progress or log notifications.
type taskReporter struct {
	r    *taskRun
	data *actions.Data
}

func (t *taskReporter) Progress(_ context.Context, progress, total float64, message string) error {
	r := t.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.task.Terminal() {
		return nil
	}
	r.task.Progress, r.task.Total, r.task.ProgressMessage = progress, total, t.data.Redact(message)
	if message != "" {
		r.task.StatusMessage = r.task.ProgressMessage
	}
	r.saveLocked()
	return nil
}

func (t *taskReporter) Log(context.Context, string, string, any) error { return nil }

var _ actions.Reporter = (*taskReporter)(nil)

// expireRuns cancels the running tasks that outlived their TTL.
func (e *Engine) expireRuns(now time.Time) {
	for _, r := range e.runs() {
		r.mu.Lock()
		expired := r.task.Expired(now)
		r.mu.Unlock()
		if expired {
			r.cancelRun("the task outlived its time to live")
		}
	}
}

// runs lists the tasks running in this process. Lock order: a run's mu may
// be held when taking tasks.mu, never the other way round.
func (e *Engine) runs() []*taskRun {
	e.tasks.mu.Lock()
	defer e.tasks.mu.Unlock()
	return slices.Collect(maps.Values(e.tasks.runs))
}

// interruptTasks ends the tasks running in this process as failed, the
// way the next start would report them, and stops their actions.
func (e *Engine) interruptTasks() {
	for _, r := range e.runs() {
		r.mu.Lock()
		if !r.task.Terminal() {
			r.task.Status, r.task.StatusMessage, r.task.InputRequests = TaskFailed, InterruptedMessage, nil
			r.task.Error = interruptedError()
			r.saveLocked()
			r.recordLocked()
		}
		r.mu.Unlock()
		r.cancel()
	}
}

func (e *Engine) run(id string) *taskRun {
	e.tasks.mu.Lock()
	defer e.tasks.mu.Unlock()
	return e.tasks.runs[id]
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
func (e *Engine) lookupTask(ctx context.Context, ss *mcp.ServerSession, method string, p *taskParams) (Task, error) {
	if isLegacy(ss) {
		return Task{}, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: method + ": tasks are a 2026-07-28 extension; this session uses an earlier revision"}
	}
	if p == nil || !declaresTasks(p.Meta) {
		return Task{}, errTasksUndeclared(method + " needs the client capability extensions[\"" + TasksExtension + "\"] in the request's _meta")
	}
	if p.TaskID == "" {
		return Task{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: method + ": taskId is required"}
	}
	unknown := &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown task %q (it may have expired)", p.TaskID)}
	t, err := e.taskStore().GetTask(ctx, p.TaskID)
	if errors.Is(err, ErrUnknownTask) {
		return Task{}, unknown
	}
	if err != nil {
		return Task{}, err
	}
	owner := ""
	if c := callOf(ctx); c != nil {
		owner = c.owner
	}
	if t.Owner != owner || t.Expired(time.Now()) {
		return Task{}, unknown
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
	case TaskInputRequired:
		d.InputRequests = t.InputRequests
	case TaskCompleted:
		d.Result = t.Result
	case TaskFailed:
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
func (e *Engine) RunningTasks() []Task {
	runs := e.runs()
	out := make([]Task, 0, len(runs))
	for _, r := range runs {
		r.mu.Lock()
		out = append(out, r.task)
		r.mu.Unlock()
	}
	slices.SortFunc(out, func(a, b Task) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return out
}

// CancelTask cancels a running task on the person's behalf (any owner). It
// returns ErrUnknownTask when no such task is running.
func (e *Engine) CancelTask(id string) error {
	r := e.run(id)
	if r == nil {
		return ErrUnknownTask
	}
	r.cancelRun("cancelled on the desktop")
	return nil
}

// SubscribeTasks delivers every change of a task of this process (created,
// progress, input required, ended) until ctx ends. A slow reader misses
// changes rather than slowing tasks down; RunningTasks gives the full state.
func (e *Engine) SubscribeTasks(ctx context.Context) <-chan Task {
	ch := make(chan Task, 64)
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

func (e *Engine) publishTask(t Task) {
	e.tasks.mu.Lock()
	defer e.tasks.mu.Unlock()
	for ch := range e.tasks.subs {
		select {
		case ch <- t:
		default:
		}
	}
}
