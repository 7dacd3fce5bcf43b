package tryit

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tasksExtension is the tasks extension Try it declares (SEP-2663): a tool
// that runs in the background (its task mode optional or required) then
// runs as a task, which Try it follows with tasks/get until it ends.
const tasksExtension = "io.modelcontextprotocol/tasks"

// Task is a call running as a task, as Try it last saw it.
type Task struct {
	ID string
	// Status is the extension's: working, input_required, completed,
	// failed or cancelled.
	Status string
	// Message is the task's latest status message (a command's latest
	// progress line, say).
	Message string
}

// TaskWatcher hears each change of a call's task, from its start to its
// end; it must not block.
type TaskWatcher func(Task)

// Poll intervals: the server's pollIntervalMs within these bounds.
const (
	defaultTaskPoll = time.Second
	minTaskPoll     = 100 * time.Millisecond
	maxTaskPoll     = 2 * time.Second
	// cancelTimeout bounds the tasks/cancel sent when the person cancels.
	cancelTimeout = 10 * time.Second
)

// taskWire is the Task of the extension's wire format.
type taskWire struct {
	TaskID         string `json:"taskId"`
	Status         string `json:"status"`
	StatusMessage  string `json:"statusMessage,omitempty"`
	PollIntervalMs int64  `json:"pollIntervalMs,omitempty"`
}

// taskResult answers tasks/get (and is the CreateTaskResult, flat).
type taskResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	taskWire
	InputRequests json.RawMessage `json:"inputRequests,omitempty"`
	Result        json.RawMessage `json:"result,omitempty"`
	Error         json.RawMessage `json:"error,omitempty"`
}

// taskParams are the params of tasks/get, tasks/update and tasks/cancel.
type taskParams struct {
	mcp.ParamsBase
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
}

// clientCapabilities are go-sdk's defaults with the tasks extension: the
// roots Try it declared before it declared tasks are declared still.
func clientCapabilities() *mcp.ClientCapabilities {
	//lint:ignore SA1019 go-sdk's own default, which Try it kept declaring
	caps := &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{ListChanged: true}}
	caps.AddExtension(tasksExtension, map[string]any{})
	return caps
}

// addTaskMethods lets the client send the extension's methods.
func addTaskMethods(c *mcp.Client) error {
	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		if err := mcp.AddSendingCustomMethod[*taskParams, *taskResult](c, m); err != nil {
			return fmt.Errorf("try it: registering %s: %w", m, err)
		}
	}
	return nil
}

// createdTask is the task the latest tools/call was answered with, if it
// was: go-sdk's client knows no tasks, and reads a CreateTaskResult as an
// empty tool result, so the task is read from the exchange as recorded.
func (r *recorder) createdTask() (taskWire, bool) {
	_, resp := r.exchange()
	var msg struct {
		Result *taskResult `json:"result"`
	}
	if json.Unmarshal([]byte(resp), &msg) != nil || msg.Result == nil || msg.Result.ResultType != "task" || msg.Result.TaskID == "" {
		return taskWire{}, false
	}
	return msg.Result.taskWire, true
}

// follow polls the task created by the call until it ends, telling watch
// of each change, answering the forms it asks with answer; ctx ending
// cancels the task (tasks/cancel) and ends the wait. out carries the
// call's exchange, and gets the task's result.
func (t *Trier) follow(ctx context.Context, name string, created taskWire, answer FormAnswerer, watch TaskWatcher, out Result) (Result, error) {
	seen := Task{ID: created.TaskID, Status: created.Status, Message: created.StatusMessage}
	tell := func(x Task) {
		if watch != nil && x != seen {
			watch(x)
		}
		seen = x
	}
	if watch != nil {
		watch(seen)
	}
	every := pollEvery(created.PollIntervalMs)
	answered := map[string]bool{}
	for {
		select {
		case <-ctx.Done():
			return out, t.cancelTask(created.TaskID, name, ctx.Err())
		case <-time.After(every):
		}
		got, err := mcp.CallCustomMethod[*taskParams, *taskResult](ctx, t.session, "tasks/get", &taskParams{TaskID: created.TaskID})
		if err != nil {
			if ctx.Err() != nil {
				return out, t.cancelTask(created.TaskID, name, ctx.Err())
			}
			return out, fmt.Errorf("following the task of %q: %w", name, err)
		}
		every = pollEvery(got.PollIntervalMs)
		tell(Task{ID: got.TaskID, Status: got.Status, Message: got.StatusMessage})
		switch got.Status {
		case "completed":
			var res mcp.CallToolResult
			if err := json.Unmarshal(got.Result, &res); err != nil {
				return out, fmt.Errorf("the task of %q ended with a result that cannot be read: %w", name, err)
			}
			out.Text, out.IsError = resultText(&res), res.IsError
			out.Response += "\n\nThe task's result (tasks/get):\n" + indent(got.Result)
			return out, nil
		case "failed":
			var e struct {
				Message string `json:"message"`
			}
			_ = json.Unmarshal(got.Error, &e)
			return out, fmt.Errorf("the task of %q failed: %s", name, cmp.Or(e.Message, got.StatusMessage))
		case "cancelled":
			return out, fmt.Errorf("cancelled: %s", got.StatusMessage)
		case "input_required":
			if err := t.answerTask(ctx, got, answer, answered); err != nil {
				_ = t.cancelTask(created.TaskID, name, err)
				return out, err
			}
		}
	}
}

// pollEvery is the wait between two tasks/get for a pollIntervalMs.
func pollEvery(ms int64) time.Duration {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case ms <= 0:
		return defaultTaskPoll
	case d < minTaskPoll:
		return minTaskPoll
	case d > maxTaskPoll:
		return maxTaskPoll
	}
	return d
}

// cancelTask asks the server to cancel the task, under a context of its
// own (the call's has ended), and returns why the call ended.
func (t *Trier) cancelTask(id, name string, why error) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.closing), cancelTimeout)
	defer cancel()
	if _, err := mcp.CallCustomMethod[*taskParams, *taskResult](ctx, t.session, "tasks/cancel", &taskParams{TaskID: id}); err != nil {
		return fmt.Errorf("cancelling the task of %q: %w (it may still run: see the task window)", name, err)
	}
	return why
}

// answerTask answers the forms a task waits for (tasks/update), each key
// once; a task asking for something else (sampling, roots) cannot be
// answered here.
func (t *Trier) answerTask(ctx context.Context, got *taskResult, answer FormAnswerer, answered map[string]bool) error {
	var reqs mcp.InputRequestMap
	if err := json.Unmarshal(got.InputRequests, &reqs); err != nil {
		return fmt.Errorf("the task's questions cannot be read: %w", err)
	}
	responses := map[string]json.RawMessage{}
	for key, req := range reqs {
		if answered[key] {
			continue
		}
		p, ok := req.(*mcp.ElicitParams)
		if !ok || answer == nil {
			return errors.New("the tool asks the AI app for something Try it cannot answer (only forms can be answered here); the task was cancelled")
		}
		schema, err := json.Marshal(p.RequestedSchema)
		if err != nil {
			return fmt.Errorf("the form's schema: %w", err)
		}
		a, err := answer(ctx, FormRequest{Message: p.Message, Schema: schema})
		if err != nil {
			return err
		}
		b, err := json.Marshal(&mcp.ElicitResult{Action: a.Action, Content: a.Content})
		if err != nil {
			return err
		}
		responses[key], answered[key] = b, true
	}
	if len(responses) == 0 {
		return nil
	}
	_, err := mcp.CallCustomMethod[*taskParams, *taskResult](ctx, t.session, "tasks/update", &taskParams{TaskID: got.TaskID, InputResponses: responses})
	if err != nil {
		return fmt.Errorf("answering the task: %w", err)
	}
	return nil
}

// taskHeader is the Mcp-Name a tasks/* request must carry over HTTP: its
// task id (go-sdk sets it only for tools, prompts and resources); "" for
// any other request.
func taskHeader(body []byte) string {
	var m struct {
		Method string `json:"method"`
		Params struct {
			TaskID string `json:"taskId"`
		} `json:"params"`
	}
	if len(body) == 0 || !bytes.Contains(body, []byte(`"tasks/`)) || json.Unmarshal(body, &m) != nil {
		return ""
	}
	switch m.Method {
	case "tasks/get", "tasks/update", "tasks/cancel":
		return m.Params.TaskID
	}
	return ""
}
