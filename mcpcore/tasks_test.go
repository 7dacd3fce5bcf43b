package mcpcore_test

// The tasks extension on the wire (real HTTP, real SQLite, real child
// processes), and input steps answered on the desktop through an Asker.

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/record"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// withTasks declares form elicitation and the tasks extension.
var withTasks = map[string]any{
	"elicitation": map[string]any{"form": map[string]any{}},
	"extensions":  map[string]any{mcpcore.TasksExtension: map[string]any{}},
}

var yes = true

// taskTools are the tools the task and approval tests call.
var taskTools = &catalog.Catalog{Format: catalog.CatalogFormat, Version: catalog.CatalogVersion, Tools: []catalog.Tool{
	{
		Name: "t_quick", Description: "Answers at once.", TaskMode: catalog.TaskOptional,
		Params: []catalog.Param{{Name: "x", Type: "string"}},
		Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "quick {{.args.x}}"}}}},
	},
	{
		// Writes its pid, then sleeps: the process a cancel must stop.
		Name: "t_sleeper", Description: "Sleeps a minute.", TaskMode: catalog.TaskOptional,
		Params: []catalog.Param{{Name: "pidfile", Type: "string", Required: true}},
		Action: catalog.Action{Command: &catalog.Command{
			Argv:      []catalog.Template{"sh", "-c", `echo $$ > "$1.tmp" && mv "$1.tmp" "$1" && exec sleep 60`, "t_sleeper", "{{.args.pidfile}}"},
			TimeoutMs: 120000,
		}},
	},
	{
		Name: "t_must", Description: "Runs only as a task.", TaskMode: catalog.TaskRequired,
		Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "must"}}}},
	},
	{
		Name: "t_wipe", Description: "Wipes (pretends to).", Hints: &catalog.Hints{Destructive: &yes},
		Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "wiped {{.inputs.approval.approved}}"}}}},
	},
	{
		Name: "t_wipe_unchecked", Description: "Wipes without asking.", Hints: &catalog.Hints{Destructive: &yes}, Approval: catalog.ApprovalOff,
		Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "wiped unchecked"}}}},
	},
	{
		Name: "t_wipe_task", Description: "Wipes, as a task.", Hints: &catalog.Hints{Destructive: &yes}, TaskMode: catalog.TaskOptional,
		Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "wiped in a task"}}}},
	},
	{
		Name: "t_desk_form", Description: "Asks a name on the desktop.",
		Steps: []catalog.InputStep{{Key: "who", Kind: catalog.StepForm, AnsweredBy: catalog.AnsweredByDesktop, Message: "Your name?",
			Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)}},
		Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "name={{.inputs.who.content.name}}"}}}},
	},
	{
		Name: "t_auto", Description: "Asks a name, of the client when it can, else on the desktop.",
		Steps: []catalog.InputStep{{Key: "who", Kind: catalog.StepForm, AnsweredBy: catalog.AnsweredByAuto, Message: "Your name?",
			Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)}},
		Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "name={{.inputs.who.content.name}}"}}}},
	},
}}

// taskView is a CreateTaskResult or a tasks/get result.
type taskView struct {
	ResultType     string          `json:"resultType"`
	TaskID         string          `json:"taskId"`
	Status         string          `json:"status"`
	StatusMessage  string          `json:"statusMessage"`
	TTLMs          *int64          `json:"ttlMs"`
	PollIntervalMs int64           `json:"pollIntervalMs"`
	InputRequests  json.RawMessage `json:"inputRequests"`
	Result         *roundResult    `json:"result"`
	Error          *rpcError       `json:"error"`
	RequestState   *string         `json:"requestState"`
}

// startTask calls a task tool declaring the extension and requires a task.
func startTask(t *testing.T, e *env, name string, args map[string]any, token string) taskView {
	t.Helper()
	var v taskView
	raw := toolCall{name: name, args: args, caps: withTasks, token: token}.send(t, e).result(t, &v)
	if v.ResultType != "task" || v.TaskID == "" || v.Status != record.TaskWorking || v.RequestState != nil {
		t.Fatalf("want a CreateTaskResult, got %s", raw)
	}
	if v.TTLMs == nil || *v.TTLMs <= 0 || v.PollIntervalMs <= 0 {
		t.Errorf("ttlMs/pollIntervalMs missing: %s", raw)
	}
	return v
}

// taskCall sends a tasks/* request for id (Mcp-Name set to it).
func (e *env) taskCall(t *testing.T, method, id string, caps map[string]any, token string, extra map[string]any) *reply {
	t.Helper()
	params := map[string]any{"taskId": id, "_meta": map[string]any{metaCapabilities: caps}}
	maps.Copy(params, extra)
	r := e.modern(method, params)
	r.Header.Set("Mcp-Name", id)
	return e.send(t, r.as(token).Request)
}

func (e *env) getTask(t *testing.T, id, token string) taskView {
	t.Helper()
	var v taskView
	e.taskCall(t, "tasks/get", id, withTasks, token, nil).result(t, &v)
	if v.ResultType != "complete" || v.TaskID != id {
		t.Fatalf("tasks/get: resultType %q, taskId %q", v.ResultType, v.TaskID)
	}
	return v
}

// waitTask polls tasks/get until ok accepts the task.
func (e *env) waitTask(t *testing.T, id, token, what string, ok func(taskView) bool) taskView {
	t.Helper()
	var v taskView
	testutil.Eventually(t, "task "+what, func() bool {
		v = e.getTask(t, id, token)
		return ok(v)
	})
	return v
}

func terminal(v taskView) bool {
	return v.Status == record.TaskCompleted || v.Status == record.TaskFailed || v.Status == record.TaskCancelled
}

// rpcErrorOf requires a JSON-RPC error (any HTTP status) with code.
func rpcErrorOf(t *testing.T, rep *reply, code int64) *rpcError {
	t.Helper()
	m := rep.response(t)
	if m.Error == nil || m.Error.Code != code {
		t.Fatalf("want JSON-RPC error %d, got %v", code, rep)
	}
	return m.Error
}

func TestTaskWireRules(t *testing.T) {
	e := newEnv(t, envOptions{auth: true, extra: taskTools})
	ctx := testCtx(t)
	alice, err := e.st.CreateToken(ctx, "alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	bob, err := e.st.CreateToken(ctx, "bob", nil)
	if err != nil {
		t.Fatal(err)
	}
	v := startTask(t, e, "t_quick", map[string]any{"x": "wire"}, alice)

	// Without the extension declared: -32021, for tasks/* and for a tool
	// that runs only as a task.
	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		rpcErrorOf(t, e.taskCall(t, m, v.TaskID, map[string]any{}, alice, nil), codeMissingCapability)
	}
	re := rpcErrorOf(t, toolCall{name: "t_must", caps: map[string]any{}, token: alice}.send(t, e), codeMissingCapability)
	if field(decode(t, re.Data), "requiredCapabilities", "extensions", mcpcore.TasksExtension) == nil {
		t.Errorf("-32021 data: %s", re.Data)
	}
	// A task-optional tool without the extension answers in the request.
	if got := completed(t, toolCall{name: "t_quick", args: map[string]any{"x": "sync"}, caps: map[string]any{}, token: alice}.send(t, e)); got != "quick sync" {
		t.Errorf("sync answer %q", got)
	}

	// Unknown task, and another token's task: -32602.
	rpcErrorOf(t, e.taskCall(t, "tasks/get", "no-such-task", withTasks, alice, nil), codeInvalidParams)
	rpcErrorOf(t, e.taskCall(t, "tasks/get", v.TaskID, withTasks, bob, nil), codeInvalidParams)
	rpcErrorOf(t, e.taskCall(t, "tasks/cancel", v.TaskID, withTasks, bob, nil), codeInvalidParams)
	e.waitTask(t, v.TaskID, alice, "completed", terminal)

	// Mcp-Name must be the task id.
	r := e.modern("tasks/get", map[string]any{"taskId": v.TaskID, "_meta": map[string]any{metaCapabilities: withTasks}})
	r.Header.Set("Mcp-Name", "another-task")
	e.send(t, r.as(alice).Request).wantError(t, http.StatusBadRequest, codeHeaderMismatch)
	r = e.modern("tasks/get", map[string]any{"taskId": v.TaskID, "_meta": map[string]any{metaCapabilities: withTasks}})
	e.send(t, r.as(alice).Request).wantError(t, http.StatusBadRequest, codeHeaderMismatch)

	// Removed methods.
	for _, m := range []string{"tasks/result", "tasks/list"} {
		rpcErrorOf(t, e.send(t, e.modern(m, map[string]any{"taskId": v.TaskID, "_meta": map[string]any{metaCapabilities: withTasks}}).as(alice).Request), -32601)
	}

	// The extension is advertised.
	var disc map[string]any
	e.send(t, e.modern("server/discover", nil).as(alice).Request).result(t, &disc)
	if field(disc, "capabilities", "extensions", mcpcore.TasksExtension) == nil {
		t.Errorf("server/discover does not advertise the tasks extension: %v", disc)
	}
}

// A 2025-11-25 session has no tasks: a task-only tool runs in the request.
func TestTaskToolInLegacySession(t *testing.T) {
	e := newEnv(t, envOptions{extra: taskTools})
	cs := e.connect(t, legacy, nil, "")
	res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "t_must"})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got != "must" {
		t.Errorf("legacy call: %q", got)
	}
}

func TestTaskInputPartialAnswers(t *testing.T) {
	twoQuestions := &catalog.Catalog{Format: catalog.CatalogFormat, Version: catalog.CatalogVersion, Tools: []catalog.Tool{{
		Name: "t_two", Description: "Asks two things inside its task.", TaskMode: catalog.TaskOptional,
		Steps: []catalog.InputStep{
			{Key: "a", Kind: catalog.StepForm, InTask: true, Message: "A?", Schema: json.RawMessage(`{"type":"object","properties":{"v":{"type":"string"}},"required":["v"]}`)},
			{Key: "b", Kind: catalog.StepForm, InTask: true, Message: "B?", Schema: json.RawMessage(`{"type":"object","properties":{"v":{"type":"string"}},"required":["v"]}`)},
		},
		Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "{{.inputs.a.content.v}}+{{.inputs.b.content.v}}"}}}},
	}}}
	e := newEnv(t, envOptions{extra: twoQuestions})
	v := startTask(t, e, "t_two", nil, "")
	got := e.waitTask(t, v.TaskID, "", "input_required", func(v taskView) bool { return v.Status == record.TaskInputRequired })
	keys := func(v taskView) []string {
		var m map[string]any
		_ = json.Unmarshal(v.InputRequests, &m)
		return slices.Sorted(maps.Keys(m))
	}
	if k := keys(got); !slices.Equal(k, []string{"a", "b"}) {
		t.Fatalf("input requests %v", k)
	}
	answer := func(key string, content any) {
		e.taskCall(t, "tasks/update", v.TaskID, withTasks, "", map[string]any{"inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": content}}}).result(t, nil)
	}
	answer("a", map[string]any{"v": "x"})
	got = e.getTask(t, v.TaskID, "")
	if got.Status != record.TaskInputRequired || !slices.Equal(keys(got), []string{"b"}) {
		t.Fatalf("after a partial answer: %s %v", got.Status, keys(got))
	}
	// An invalid answer asks again under a new key; an unknown key is ignored.
	answer("b", map[string]any{"v": 5})
	answer("zzz", map[string]any{"v": "ignored"})
	got = e.getTask(t, v.TaskID, "")
	if got.Status != record.TaskInputRequired || !slices.Equal(keys(got), []string{"b-2"}) {
		t.Fatalf("after an invalid answer: %s %v", got.Status, keys(got))
	}
	answer("b-2", map[string]any{"v": "y"})
	done := e.waitTask(t, v.TaskID, "", "completed", terminal)
	if done.Status != record.TaskCompleted || done.Result.Content[0].Text != "x+y" {
		t.Errorf("final: %+v", done)
	}
}

// ---------------------------------------------------------------- desktop steps

// fakeAsker hands each question to the test and waits for its answer.
type fakeAsker struct{ asked chan *question }

type question struct {
	q      mcpcore.Question
	ctx    context.Context
	answer chan mcpcore.Answer
}

func newFakeAsker() *fakeAsker { return &fakeAsker{asked: make(chan *question, 8)} }

func (f *fakeAsker) Ask(ctx context.Context, q mcpcore.Question) (mcpcore.Answer, error) {
	x := &question{q: q, ctx: ctx, answer: make(chan mcpcore.Answer, 1)}
	f.asked <- x
	select {
	case a := <-x.answer:
		return a, nil
	case <-ctx.Done():
		return mcpcore.Answer{}, ctx.Err()
	}
}

func (f *fakeAsker) next(t *testing.T) *question {
	t.Helper()
	select {
	case q := <-f.asked:
		return q
	case <-time.After(testutil.Patience):
		t.Fatal("nothing was asked on the desktop")
		return nil
	}
}

func (f *fakeAsker) none(t *testing.T) {
	t.Helper()
	select {
	case q := <-f.asked:
		t.Fatalf("asked on the desktop: %+v", q.q)
	default:
	}
}

func TestApprovalBlocksUntilTheDesktopAnswers(t *testing.T) {
	asker := newFakeAsker()
	sink := &memActivity{}
	e := newEnv(t, envOptions{extra: taskTools, asker: asker, activity: sink})
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			cs := e.connect(t, era, nil, "")
			type outcome struct {
				res *mcp.CallToolResult
				err error
			}
			call := func(ctx context.Context) chan outcome {
				ch := make(chan outcome, 1)
				go func() {
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "t_wipe"})
					ch <- outcome{res, err}
				}()
				return ch
			}

			// Allowed.
			ch := call(testCtx(t))
			q := asker.next(t)
			if q.q.Tool != "t_wipe" || q.q.Kind != catalog.StepApproval || q.q.Client != "mcpcore-integration-test" || q.q.Key != "approval" {
				t.Errorf("question: %+v", q.q)
			}
			select {
			case o := <-ch:
				t.Fatalf("the call did not wait for the approval: %+v", o)
			case <-time.After(100 * time.Millisecond):
			}
			q.answer <- mcpcore.Answer{Action: "accept"}
			o := <-ch
			if o.err != nil || o.res.IsError || text(t, o.res) != "wiped true" {
				t.Fatalf("allowed call: %+v %v", o.res, o.err)
			}
			sink.find(t, "the approval", func(a record.Activity) bool {
				return a.Target == "t_wipe" && a.Era == era && slices.Contains(a.Approvals, "approval: allowed once")
			})

			// Denied.
			ch = call(testCtx(t))
			asker.next(t).answer <- mcpcore.Answer{Action: "decline", Reason: "not today"}
			o = <-ch
			if o.err != nil || !o.res.IsError || text(t, o.res) != `The person at the computer denied running "t_wipe": not today.` {
				t.Fatalf("denied call: %+v %v", o.res, o.err)
			}

			// Withdrawn when the client gives up.
			ctx, cancel := context.WithCancel(testCtx(t))
			ch = call(ctx)
			q = asker.next(t)
			cancel()
			select {
			case <-q.ctx.Done():
			case <-time.After(testutil.Patience):
				t.Fatal("the question was not withdrawn when the client cancelled")
			}
			<-ch
		})
	}
	// Approval off: no question.
	cs := e.connect(t, modern, nil, "")
	res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "t_wipe_unchecked"})
	if err != nil || text(t, res) != "wiped unchecked" {
		t.Fatalf("%+v %v", res, err)
	}
	asker.none(t)
}

func TestUnansweredApprovalIsDeclinedInTime(t *testing.T) {
	testutil.Long(t, "waits out an approval timeout")
	asker := newFakeAsker()
	e := newEnv(t, envOptions{extra: taskTools, asker: asker, settings: func(s *catalog.Settings) { s.AskTimeoutSeconds = 1 }})
	cs := e.connect(t, modern, nil, "")
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "t_wipe"})
		if err != nil {
			t.Errorf("call: %v", err)
		}
		done <- res
	}()
	q := asker.next(t)
	if d, ok := q.ctx.Deadline(); !ok || time.Until(d) > time.Second {
		t.Errorf("the question's deadline (shown by the dialog): %v %v", d, ok)
	}
	// Nobody answers.
	select {
	case res := <-done:
		if res == nil || !res.IsError || text(t, res) != `Nobody at the computer answered within 1 second, so "t_wipe" did not run.` {
			t.Fatalf("unanswered approval: %+v", res)
		}
	case <-time.After(testutil.Patience):
		t.Fatal("the call still waits for an answer nobody gives")
	}
}

func TestApprovalInsideATask(t *testing.T) {
	asker := newFakeAsker()
	e := newEnv(t, envOptions{extra: taskTools, asker: asker})
	v := startTask(t, e, "t_wipe_task", nil, "")
	q := asker.next(t)
	if q.q.TaskID != v.TaskID {
		t.Errorf("question of task %q, want %q", q.q.TaskID, v.TaskID)
	}
	if got := e.getTask(t, v.TaskID, ""); got.Status != record.TaskWorking || !strings.Contains(got.StatusMessage, "desktop") {
		t.Errorf("while the desktop is asked: %+v", got)
	}
	// Cancelling the task withdraws the question.
	e.taskCall(t, "tasks/cancel", v.TaskID, withTasks, "", nil).result(t, nil)
	select {
	case <-q.ctx.Done():
	case <-time.After(testutil.Patience):
		t.Fatal("the question was not withdrawn when the task was cancelled")
	}
	if got := e.getTask(t, v.TaskID, ""); got.Status != record.TaskCancelled {
		t.Errorf("after cancel: %+v", got)
	}
}

func TestAutoStepRouting(t *testing.T) {
	asker := newFakeAsker()
	e := newEnv(t, envOptions{extra: taskTools, asker: asker})

	// A 2026 client that declared elicitation is asked itself.
	inputRequired(t, toolCall{name: "t_auto"}.send(t, e), "who")
	asker.none(t)

	// One that did not: the desktop answers, in the request.
	ch := make(chan *reply, 1)
	go func() { ch <- toolCall{name: "t_auto", caps: map[string]any{}}.send(t, e) }()
	q := asker.next(t)
	if q.q.Kind != catalog.StepForm || q.q.Message != "Your name?" {
		t.Errorf("question: %+v", q.q)
	}
	q.answer <- mcpcore.Answer{Action: "accept", Content: map[string]any{"name": "Desk"}}
	if got := completed(t, <-ch); got != "name=Desk" {
		t.Errorf("desktop answer: %q", got)
	}

	// A legacy client with elicitation is asked with elicitation/create.
	withElicit := newClient(&mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Client"}}, nil
	}})
	res, err := e.connect(t, legacy, withElicit, "").CallTool(testCtx(t), &mcp.CallToolParams{Name: "t_auto"})
	if err != nil || text(t, res) != "name=Client" {
		t.Fatalf("legacy client answer: %+v %v", res, err)
	}
	asker.none(t)

	// A legacy client without elicitation: the desktop.
	done := make(chan *mcp.CallToolResult, 1)
	cs := e.connect(t, legacy, nil, "")
	go func() {
		res, _ := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "t_auto"})
		done <- res
	}()
	asker.next(t).answer <- mcpcore.Answer{Action: "accept", Content: map[string]any{"name": "Desk2"}}
	if res := <-done; res == nil || text(t, res) != "name=Desk2" {
		t.Fatalf("legacy desktop answer: %+v", res)
	}
}

func TestHeadlessPolicyDeclinesApprovals(t *testing.T) {
	for _, policy := range catalog.AskPolicies {
		t.Run(policy, func(t *testing.T) {
			e := newEnv(t, envOptions{extra: taskTools, asker: mcpcore.PolicyAsker{Policy: policy}})
			res, err := e.connect(t, modern, nil, "").CallTool(testCtx(t), &mcp.CallToolParams{Name: "t_wipe"})
			if err != nil || !res.IsError || !strings.Contains(text(t, res), "desktop app is not running") {
				t.Fatalf("%+v %v", res, err)
			}
			// A desktop form: declined under deny; asked of a client that
			// can answer it under client-only.
			rep := toolCall{name: "t_desk_form"}.send(t, e)
			if policy == catalog.AskClientOnly {
				inputRequired(t, rep, "who")
				return
			}
			var r roundResult
			rep.result(t, &r)
			if !r.IsError || len(r.Content) != 1 || !strings.Contains(r.Content[0].Text, "desktop app is not running") {
				t.Errorf("desktop form under deny: %v", rep)
			}
		})
	}
}

func TestTaskApprovalRememberedAndRecorded(t *testing.T) {
	asker := newFakeAsker()
	sink := &memActivity{}
	e := newEnv(t, envOptions{extra: taskTools, asker: asker, activity: sink})
	events := e.eng.SubscribeTasks(testCtx(t))
	v := startTask(t, e, "t_wipe_task", nil, "")
	asker.next(t).answer <- mcpcore.Answer{Action: "accept", Remember: record.RememberUntilRestart}
	done := e.waitTask(t, v.TaskID, "", "completed", terminal)
	if done.Status != record.TaskCompleted || done.Result.Content[0].Text != "wiped in a task" {
		t.Fatalf("task: %+v", done)
	}
	sink.find(t, "the task's end", func(a record.Activity) bool {
		return a.Method == record.TaskActivityMethod && a.Target == "t_wipe_task" && a.Outcome == record.OutcomeOK &&
			slices.Equal(a.Approvals, []string{"approval: allowed until mcptray restarts"})
	})
	sink.find(t, "the call that created it", func(a record.Activity) bool {
		return a.Method == "tools/call" && a.Target == "t_wipe_task" && a.Outcome == record.OutcomeTask
	})
	var seen []string
	testutil.Eventually(t, "the task's changes on the observer channel", func() bool {
		for {
			select {
			case ev := <-events:
				if ev.ID == v.TaskID {
					seen = append(seen, ev.Status)
				}
			default:
				return slices.Contains(seen, record.TaskCompleted)
			}
		}
	})
	if seen[0] != record.TaskWorking {
		t.Errorf("observed statuses %v", seen)
	}

	// Remembered for this client: not asked again.
	v = startTask(t, e, "t_wipe_task", nil, "")
	if done := e.waitTask(t, v.TaskID, "", "completed", terminal); done.Status != record.TaskCompleted {
		t.Fatalf("second task: %+v", done)
	}
	asker.none(t)
}

func TestTaskExpires(t *testing.T) {
	testutil.Long(t, "waits for a task to expire")
	e := newEnv(t, envOptions{extra: taskTools, settings: func(s *catalog.Settings) { s.TaskTTLMs = 1000; s.TaskPollIntervalMs = 250 }})
	v := startTask(t, e, "t_quick", map[string]any{"x": "ttl"}, "")
	if *v.TTLMs != 1000 || v.PollIntervalMs != 250 {
		t.Errorf("ttlMs %d, pollIntervalMs %d", *v.TTLMs, v.PollIntervalMs)
	}
	e.waitTask(t, v.TaskID, "", "completed", terminal)
	time.Sleep(1100 * time.Millisecond)
	rpcErrorOf(t, e.taskCall(t, "tasks/get", v.TaskID, withTasks, "", nil), codeInvalidParams)
}

// TestDesktopDenialEndsATaskBeforeItsInTaskSteps: refused on the desktop,
// a task asks its client nothing more and ends with the denial.
func TestDesktopDenialEndsATaskBeforeItsInTaskSteps(t *testing.T) {
	cat := &catalog.Catalog{Format: catalog.CatalogFormat, Version: catalog.CatalogVersion, Tools: []catalog.Tool{{
		Name: "t_guarded", Description: "Asks the desktop, then the client inside its task.", TaskMode: catalog.TaskOptional,
		Approval: catalog.ApprovalAlways,
		Steps: []catalog.InputStep{{Key: "more", Kind: catalog.StepForm, InTask: true, Message: "More?",
			Schema: json.RawMessage(`{"type":"object","properties":{"v":{"type":"string"}}}`)}},
		Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "ran"}}}},
	}}}
	asker := newFakeAsker()
	e := newEnv(t, envOptions{extra: cat, asker: asker})
	v := startTask(t, e, "t_guarded", nil, "")
	asker.next(t).answer <- mcpcore.Answer{Action: "decline"}
	got := e.waitTask(t, v.TaskID, "", "ended", func(v taskView) bool {
		return terminal(v) || v.Status == record.TaskInputRequired
	})
	if got.Status != record.TaskCompleted || got.Result == nil || !got.Result.IsError || len(got.InputRequests) > 0 {
		t.Fatalf("after a denial on the desktop: %+v", got)
	}
	if txt := got.Result.Content[0].Text; !strings.Contains(txt, "denied") || strings.Contains(txt, "ran") {
		t.Fatalf("the task's result: %q", txt)
	}
}
