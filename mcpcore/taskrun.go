package mcpcore

//lint:file-ignore SA1019 a task decodes sampling and roots answers given through tasks/update; go-sdk marks both deprecated as of 2026-07-28 (SEP-2577).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/mcptray/mcptray/record"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A task running in this process: created by a tools/call (toolcall.go),
// it runs the rest of the call in the background, parks in input_required
// while tasks/update answers its in-task steps, keeps its status and
// progress in the TaskStore, and writes its activity record when it ends.

// taskRun is a task running in this process.
type taskRun struct {
	e *Engine
	// id is the task's id, which never changes (task.ID, readable without
	// mu).
	id     string
	cancel context.CancelFunc
	done   chan struct{}

	mu   sync.Mutex
	task record.Task
	// pending are the outstanding input requests of the current round, by
	// wire key; answers the answers so far, by step key; passed the
	// answers to the current round of a server's questions passed on, by
	// the server's key.
	pending   map[string]*pendingStep
	answers   map[string]json.RawMessage
	passed    mcp.InputResponseMap
	asked     map[string]int
	roundDone chan struct{}
	// rounds lets one round at a time wait for the client: a server on a
	// session of its own may ask several questions at once.
	rounds sync.Mutex
	// client names the AI client; approvals are the approvals given or
	// refused while the task ran, for its activity record.
	client    string
	approvals []string
}

// pendingStep is a step a task waits for tasks/update to answer.
type pendingStep struct {
	step catalog.InputStep
	req  mcp.InputRequest
	// left is how many more times the step may be asked after an invalid
	// answer.
	left int
	// passed says req is a question of an upstream tool's server, passed
	// on, and step only its kind and the server's key: the answer goes
	// back to the server as the client gave it (its checks are the
	// server's).
	passed bool
}

// name words the pending step for an error.
func (p *pendingStep) name() string {
	if p.passed {
		return fmt.Sprintf("the server's question %q", p.step.Key)
	}
	return fmt.Sprintf("input step %q", p.step.Key)
}

// taskRegistry holds the tasks running in this process and the observers.
type taskRegistry struct {
	mu   sync.Mutex
	runs map[string]*taskRun
	subs map[chan record.Task]struct{}
	// limitMu makes counting a token's tasks and changing the count one
	// step (maxTasksPerToken, maxWaitingTasksPerToken). It is never taken
	// with mu or a run's mu held.
	limitMu sync.Mutex
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

// startTask creates the task a tools/call runs as — durably, before the
// call answers — and runs work as that task in the background, recording
// how it ends. c names the call: its tool, its client, and the client token
// that owns the task.
func (e *Engine) startTask(ctx context.Context, c deskCall, work func(context.Context, *taskRun) (*mcp.CallToolResult, error)) (*createTaskResult, error) {
	set := e.currentSettings()
	now := time.Now()
	task := record.Task{
		ID:             newTaskID(),
		Owner:          c.token,
		Tool:           c.tool,
		Title:          c.title,
		Status:         record.TaskWorking,
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
	// Counted and registered under one lock, so parallel calls cannot all
	// pass the count.
	e.tasks.limitMu.Lock()
	if n := e.tasksOf(c.token, false); n >= set.MaxTasksPerToken {
		e.tasks.limitMu.Unlock()
		return nil, limitError("maxTasksPerToken", int64(set.MaxTasksPerToken), 0,
			"%s has %d tasks running or waiting for input, the most it may (maxTasksPerToken); wait for one to end or cancel one (tasks/cancel), or raise the limit in mcptray's settings", tokenLabel(c.token), n)
	}
	// The task outlives the request: it gets a context and a call record
	// of its own.
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	runCtx, rc := withCallRecord(runCtx)
	r := &taskRun{e: e, id: task.ID, cancel: cancel, done: make(chan struct{}), task: task,
		answers: map[string]json.RawMessage{}, asked: map[string]int{}, client: c.client}
	rc.run = r
	e.tasks.mu.Lock()
	e.tasks.runs[task.ID] = r
	e.tasks.mu.Unlock()
	e.tasks.limitMu.Unlock()
	if err := store.CreateTask(ctx, task); err != nil {
		e.forgetRun(task.ID)
		cancel()
		return nil, fmt.Errorf("creating the task: %w", err)
	}
	e.publishTask(task)
	go func() {
		defer close(r.done)
		defer cancel()
		defer e.forgetRun(task.ID)
		res, err := work(runCtx, r)
		rc.secrets.Store(true) // redact whatever secret the run resolved
		r.finish(runCtx, rc, res, err)
	}()
	return &createTaskResult{ResultType: "task", taskWire: wireOf(task)}, nil
}

// forgetRun drops a task from those running in this process.
func (e *Engine) forgetRun(id string) {
	e.tasks.mu.Lock()
	defer e.tasks.mu.Unlock()
	delete(e.tasks.runs, id)
}

// tasksOf counts the tasks of token running in this process that have not
// ended; with waiting, only those waiting for input.
func (e *Engine) tasksOf(token string, waiting bool) int {
	n := 0
	for _, r := range e.runs() {
		r.mu.Lock()
		t := r.task
		r.mu.Unlock()
		if t.Owner == token && !t.Terminal() && (!waiting || t.Status == record.TaskInputRequired) {
			n++
		}
	}
	return n
}

// addApproval records an approval given or refused while the task ran, for
// its activity record.
func (r *taskRun) addApproval(s string) {
	r.mu.Lock()
	r.approvals = append(r.approvals, s)
	r.mu.Unlock()
}

// askDesktop asks steps on the desktop (asker.go) while the task's status
// says it waits for them.
func (r *taskRun) askDesktop(ctx context.Context, c deskCall, steps []catalog.InputStep, data *actions.Data) error {
	if len(steps) == 0 {
		return nil
	}
	r.setMessage("waiting for an answer on the desktop")
	if err := r.e.askDesktop(ctx, c, steps, data); err != nil {
		return err
	}
	r.setMessage("working")
	return nil
}

// finish records how the run ended, unless the task ended already (a
// cancelled task stays cancelled).
func (r *taskRun) finish(ctx context.Context, rc *callRecord, res *mcp.CallToolResult, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.task.Terminal() {
		return
	}
	r.task.InputRequests = nil
	var je *jsonrpc.Error
	switch {
	case ctx.Err() != nil:
		r.task.Status, r.task.StatusMessage = record.TaskCancelled, "cancelled"
	case err != nil && errors.As(err, &je):
		// A protocol-level error: the task failed.
		msg := rc.redact(je.Message)
		r.task.Status, r.task.StatusMessage = record.TaskFailed, msg
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
			r.task.Status, r.task.StatusMessage = record.TaskFailed, "the result cannot be encoded"
			r.task.Error, _ = json.Marshal(map[string]any{"code": jsonrpc.CodeInternalError, "message": "the result cannot be encoded: " + merr.Error()})
			break
		}
		if max := r.e.currentSettings().MaxResultBytes; int64(len(b)) > max {
			var je *jsonrpc.Error
			errors.As(errResultTooLarge(int64(len(b)), max), &je)
			r.task.Status, r.task.StatusMessage = record.TaskFailed, je.Message
			r.task.Error, _ = json.Marshal(je)
			break
		}
		r.task.Status, r.task.Result = record.TaskCompleted, b
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
	a := record.Activity{Time: t.CreatedAt, Era: modernVersion, Client: r.client, Token: t.Owner, Method: record.TaskActivityMethod,
		Target: t.Tool, Duration: time.Since(t.CreatedAt), Outcome: record.OutcomeOK,
		Detail: excerpt("task " + t.ID + ": " + t.StatusMessage), Approvals: slices.Clone(r.approvals)}
	switch t.Status {
	case record.TaskCompleted:
		var res struct {
			IsError bool `json:"isError"`
		}
		if json.Unmarshal(t.Result, &res) == nil && res.IsError {
			a.Outcome = record.OutcomeToolError
		}
	case record.TaskFailed:
		a.Outcome, a.ErrorCode = record.OutcomeError, jsonrpc.CodeInternalError
		var e struct {
			Code int64 `json:"code"`
		}
		if json.Unmarshal(t.Error, &e) == nil && e.Code != 0 {
			a.ErrorCode = e.Code
		}
	case record.TaskCancelled:
		a.Outcome = record.OutcomeCancelled
	}
	sink.Record(a)
}

// askClient parks the task in input_required, one round of steps at a
// time, until tasks/update answered every step of the round, and adds the
// answers to data.Inputs.
func (r *taskRun) askClient(ctx context.Context, steps []catalog.InputStep, data *actions.Data) error {
	if len(steps) == 0 {
		return nil
	}
	r.rounds.Lock()
	defer r.rounds.Unlock()
	for _, round := range roundsOf(steps) {
		err := r.park(ctx, func(add func(*pendingStep)) error {
			// A later round's questions may use the earlier answers.
			data.Inputs = mergeInputs(data.Inputs, decodeAnswers(r.answers))
			for _, s := range inRound(steps, round) {
				ir, err := inputRequest(s, data)
				if err != nil {
					return err
				}
				add(&pendingStep{step: s, req: ir, left: maxAsks - 1})
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	r.mu.Lock()
	answers := maps.Clone(r.answers)
	r.mu.Unlock()
	data.Inputs = mergeInputs(data.Inputs, decodeAnswers(answers))
	return nil
}

// passOn asks the client a round of questions of the server of the task's
// call (reqs, by the server's keys, redacted already): the task waits in
// input_required until tasks/update answered each. The answers are as the
// client gave them, by the server's keys. A question the client did not
// declare it can answer (its capabilities are on ctx's call record) is
// not asked: the task would wait for an answer that never comes.
func (r *taskRun) passOn(ctx context.Context, reqs mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	keys := slices.Sorted(maps.Keys(reqs))
	for _, key := range keys {
		switch kind := kindOf(reqs[key]); {
		case kind == "":
			return nil, fmt.Errorf("the server asked %q with a request mcptray cannot pass on (%T)", key, reqs[key])
		case !callerCan(ctx, kind):
			name, _ := requiredCapability(kind)
			return nil, fmt.Errorf("the server asked %q, which the AI app cannot be asked: its call, running as task %s, did not declare the client capability %q", key, r.id, name)
		}
	}
	r.rounds.Lock()
	defer r.rounds.Unlock()
	err := r.park(ctx, func(add func(*pendingStep)) error {
		r.passed = mcp.InputResponseMap{}
		for _, key := range keys {
			add(&pendingStep{step: catalog.InputStep{Key: key, Kind: kindOf(reqs[key])}, req: reqs[key], left: maxAsks - 1, passed: true})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.passed
	r.passed = nil
	return out, nil
}

// park has the task wait in input_required for one round: the requests
// fill adds (with r.mu held), until tasks/update answered each (update),
// or ctx ends.
func (r *taskRun) park(ctx context.Context, fill func(add func(*pendingStep)) error) error {
	parked, err := r.e.parking(r)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.pending = map[string]*pendingStep{}
	if err := fill(func(p *pendingStep) { r.pending[r.keyLocked(p.step.Key)] = p }); err != nil {
		r.pending = nil
		r.mu.Unlock()
		parked()
		return err
	}
	r.roundDone = make(chan struct{})
	done := r.roundDone
	r.task.Status, r.task.StatusMessage = record.TaskInputRequired, "waiting for input from the client"
	r.task.InputRequests = r.pendingJSONLocked()
	r.saveLocked()
	r.mu.Unlock()
	parked()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// parking checks, before r parks in input_required, that its token's tasks
// waiting for input stay within maxWaitingTasksPerToken: each holds its
// state until the task's TTL, so one token must not park thousands. On
// success the count stays locked until parked is called, once r's status
// says it waits.
func (e *Engine) parking(r *taskRun) (parked func(), err error) {
	max := e.currentSettings().MaxWaitingTasksPerToken
	e.tasks.limitMu.Lock()
	r.mu.Lock()
	owner, already := r.task.Owner, r.task.Status == record.TaskInputRequired
	r.mu.Unlock()
	if already {
		return e.tasks.limitMu.Unlock, nil
	}
	if n := e.tasksOf(owner, true); n >= max {
		e.tasks.limitMu.Unlock()
		return nil, limitError("maxWaitingTasksPerToken", int64(max), 0,
			"%s has %d tasks waiting for input, the most it may (maxWaitingTasksPerToken); answer them (tasks/update) or cancel some, or raise the limit in mcptray's settings", tokenLabel(owner), n)
	}
	return e.tasks.limitMu.Unlock, nil
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

// pendingJSONLocked is the wire map of the outstanding input requests, as
// tasks/get shows them.
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
	if r.task.Status != record.TaskInputRequired {
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
		err := r.takeLocked(p, responses[key])
		if err == nil {
			continue
		}
		if p.left <= 0 {
			r.task.Status, r.task.InputRequests = record.TaskFailed, nil
			r.task.StatusMessage = fmt.Sprintf("%s: no valid answer after %d tries: %v", p.name(), maxAsks, err)
			r.task.Error, _ = json.Marshal(map[string]any{"code": jsonrpc.CodeInvalidParams, "message": r.task.StatusMessage})
			r.saveLocked()
			r.recordLocked()
			r.cancel()
			return
		}
		again := *p
		again.left--
		r.pending[r.keyLocked(p.step.Key)] = &again
	}
	if !changed {
		return
	}
	if len(r.pending) == 0 {
		r.task.Status, r.task.StatusMessage, r.task.InputRequests = record.TaskWorking, "working", nil
		close(r.roundDone)
	} else {
		r.task.InputRequests = r.pendingJSONLocked()
	}
	r.saveLocked()
}

// takeLocked takes the client's answer raw to p, or says why it cannot;
// r.mu is held. A step's answer joins the answers as templates see it; a
// server's question's is kept as the response its request asks for.
func (r *taskRun) takeLocked(p *pendingStep, raw json.RawMessage) error {
	if p.passed {
		resp, err := decodeResponseTo(p.req, raw)
		if err != nil {
			return err
		}
		r.passed[p.step.Key] = resp
		return nil
	}
	resp, err := decodeInputResponse(p.step.Kind, raw)
	if err != nil {
		return err
	}
	ans, err := answerOf(p.step, resp)
	if err != nil {
		return err
	}
	r.answers[p.step.Key] = ans
	return nil
}

// decodeInputResponse decodes one answer as the response its step asked for.
func decodeInputResponse(kind string, raw json.RawMessage) (mcp.InputResponse, error) {
	var v mcp.InputResponse
	switch kind {
	case catalog.StepSampling:
		v = &mcp.CreateMessageWithToolsResult{}
	case catalog.StepRoots:
		v = &mcp.ListRootsResult{}
	default:
		v = &mcp.ElicitResult{}
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, err
	}
	return v, nil
}

// decodeResponseTo decodes a client's answer to a server's request req as
// the response of req's kind the server expects: a sampling request
// without tools gets a result without tools. Only what no server could
// take is refused: an answer that is no such response, or a form's with
// no action MCP knows.
func decodeResponseTo(req mcp.InputRequest, raw json.RawMessage) (mcp.InputResponse, error) {
	var v mcp.InputResponse
	var err error
	if _, plain := req.(*mcp.CreateMessageParams); plain {
		v = &mcp.CreateMessageResult{}
		err = json.Unmarshal(raw, v)
	} else {
		v, err = decodeInputResponse(kindOf(req), raw)
	}
	if err != nil {
		return nil, err
	}
	if er, ok := v.(*mcp.ElicitResult); ok {
		switch er.Action {
		case "accept", "decline", "cancel":
		default:
			return nil, fmt.Errorf("unknown elicitation action %q", er.Action)
		}
	}
	return v, nil
}

// setMessage sets the status message of a working task.
func (r *taskRun) setMessage(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.task.Status == record.TaskWorking && r.task.StatusMessage != msg {
		r.task.StatusMessage = msg
		r.saveLocked()
	}
}

// cancelRun ends a running task as cancelled and stops its action.
func (r *taskRun) cancelRun(msg string) {
	r.mu.Lock()
	if !r.task.Terminal() {
		r.task.Status, r.task.StatusMessage, r.task.InputRequests = record.TaskCancelled, msg, nil
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

// Progress keeps the action's latest progress on the task, its message as
// the task's status message.
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

// Log drops the message: a task has no stream to send it on.
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
			r.task.Status, r.task.StatusMessage, r.task.InputRequests = record.TaskFailed, record.InterruptedMessage, nil
			r.task.Error = interruptedError()
			r.saveLocked()
			r.recordLocked()
		}
		r.mu.Unlock()
		r.cancel()
	}
}

// run is the task of id running in this process, or nil.
func (e *Engine) run(id string) *taskRun {
	e.tasks.mu.Lock()
	defer e.tasks.mu.Unlock()
	return e.tasks.runs[id]
}
