package daemon

//lint:file-ignore SA1019 a server fronted may still ask the app for its roots during a task, which go-sdk marks deprecated as of 2026-07-28 (SEP-2577).

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/record"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestUpstreamQuestionsInATask: a server's question during a call the AI
// app runs as a task reaches the app through the task — it waits in
// input_required with the question, which the app answers with
// tasks/update — whether the server asks within its result (2026-07-28,
// "up") or on its own session (2025-11-25, "web"): a form, redacted of
// the server's secret, and its roots. An answer no server could take is
// asked again under another key. An app that shows no forms has the
// person at the computer fill them in, told the call's task; one that
// declared no roots is not asked for them, and the call says why. A task
// cancelled while the app is asked reaches the server: a call waiting on
// its session is cancelled there, and a server that asked within its
// result is not called again.
func TestUpstreamQuestionsInATask(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	f := frontedTwice(ctx, t)
	app := f.taskApp(ctx, t, &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}, RootsV2: &mcp.RootCapabilities{}})
	noForms := f.taskApp(ctx, t, &mcp.ClientCapabilities{})
	for _, server := range []string{"up", "web"} {
		ask, roots := server+"_ask", server+"_roots"
		testutil.Eventually(t, roots+" served", func() bool {
			res, err := app.cs.ListTools(ctx, nil)
			return err == nil && slices.Contains(toolNames(res.Tools), roots)
		})

		// A form, answered by the app through the task; a first answer
		// no server could take is asked again.
		id := app.start(ctx, t, ask, map[string]any{"text": "Who are you? Is your key $UP_KEY?"})
		key, q := app.question(ctx, t, id)
		if p, ok := q.(*mcp.ElicitParams); !ok || !strings.HasPrefix(p.Message, "Who are you? Is your key ") || strings.Contains(p.Message, upSecret) {
			t.Errorf("%s: the server's question in the task (its secret blacked out): %s", ask, testutil.MustJSON(t, q))
		}
		app.update(ctx, t, id, key, `{"action":"maybe"}`)
		again, _ := app.question(ctx, t, id)
		if again == key {
			t.Fatalf("%s: an answer no server could take was not asked again under another key (%q)", ask, key)
		}
		app.update(ctx, t, id, again, `{"action":"accept","content":{"name":"Ada"}}`)
		if got := app.result(ctx, t, id); got != "accept Ada" {
			t.Errorf("%s, answered in the task: %q", ask, got)
		}

		// Its roots.
		id = app.start(ctx, t, roots, nil)
		key, q = app.question(ctx, t, id)
		if _, ok := q.(*mcp.ListRootsParams); !ok {
			t.Errorf("%s: the server's question in the task: %s", roots, testutil.MustJSON(t, q))
		}
		app.update(ctx, t, id, key, `{"roots":[{"uri":"file:///home/ada","name":"home"}]}`)
		if got := app.result(ctx, t, id); got != "file:///home/ada" {
			t.Errorf("%s, answered in the task: %q", roots, got)
		}
		if n := len(f.person.asked()); n != 0 {
			t.Errorf("%s: the desktop was asked %d times what the app answers", server, n)
		}

		// An app that shows no forms: the person at the computer fills
		// the form in, told the call and its task.
		id = noForms.start(ctx, t, ask, map[string]any{"text": "And you?"})
		if got := noForms.result(ctx, t, id); got != "accept Grace" {
			t.Errorf("%s, its form filled in on the desktop: %q", ask, got)
		}
		if qs := f.person.asked(); len(qs) != 1 || qs[0].Kind != catalog.StepForm || qs[0].Message != "And you?" || qs[0].Tool != ask ||
			qs[0].Server != server || qs[0].TaskID != id {
			t.Errorf("%s: the desktop's questions: %s", ask, testutil.MustJSON(t, qs))
		}
		f.person.forget()

		// An app that declared no roots is not asked for them.
		id = noForms.start(ctx, t, roots, nil)
		if v := noForms.ended(ctx, t, id); !strings.Contains(string(v.Result)+string(v.Error), `did not declare the client capability \"roots\"`) {
			t.Errorf("%s from an app without roots: %s", roots, testutil.MustJSON(t, v))
		}

		// Cancelled while the app is asked.
		mark := "cancel-" + server
		id = app.start(ctx, t, ask, map[string]any{"text": mark})
		app.question(ctx, t, id)
		cancels := f.count(server, "cancelled ", "")
		app.cancel(ctx, t, id)
		if v := app.ended(ctx, t, id); v.Status != record.TaskCancelled {
			t.Errorf("%s cancelled: %s", ask, testutil.MustJSON(t, v))
		}
		if server == "web" {
			testutil.Eventually(t, "the call on the server's session cancelled", func() bool { return f.count(server, "cancelled ", "") > cancels })
		} else {
			// The server writes each call as it gets it, in order.
			app.start(ctx, t, server+"_env", map[string]any{"name": "MARK"})
			testutil.Eventually(t, "a later call on the server's standard error", func() bool { return f.count(server, "called env ", "MARK") == 1 })
			if n := f.count(server, "called ask ", mark); n != 1 {
				t.Errorf("%s: the server got %d calls of the task cancelled, want 1 (its question)", server, n)
			}
		}

		// Three answers no server could take end the task, saying why.
		id = app.start(ctx, t, ask, map[string]any{"text": "Again?"})
		for range 3 {
			key, _ := app.question(ctx, t, id)
			app.update(ctx, t, id, key, `{"action":"maybe"}`)
		}
		if v := app.ended(ctx, t, id); v.Status != record.TaskFailed ||
			!strings.Contains(v.StatusMessage, `the server's question "`) || !strings.Contains(v.StatusMessage, `no valid answer after 3 tries: unknown elicitation action "maybe"`) {
			t.Errorf("%s, answered wrong three times: %s", ask, testutil.MustJSON(t, v))
		}
	}
}

// forget forgets the questions asked so far.
func (d *desk) forget() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.questions = nil
}

// taskApp is an AI app on 2026-07-28 that runs calls as tasks: go-sdk's
// client declaring caps and the tasks extension, sending the extension's
// methods as Try it does.
type taskApp struct {
	cs *mcp.ClientSession
	tr *taskTransport
}

// taskApp connects an AI app that declares caps and runs calls as tasks.
func (f *twice) taskApp(ctx context.Context, t *testing.T, caps *mcp.ClientCapabilities) *taskApp {
	t.Helper()
	caps.AddExtension(mcpcore.TasksExtension, map[string]any{})
	c := mcp.NewClient(&mcp.Implementation{Name: "task-app", Version: "1"}, &mcp.ClientOptions{Capabilities: caps})
	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		if err := mcp.AddSendingCustomMethod[*taskParams, *taskResult](c, m); err != nil {
			t.Fatal(err)
		}
	}
	tr := &taskTransport{next: bearer{f.token}}
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: f.d.URL(), MaxRetries: -1, HTTPClient: &http.Client{Transport: tr}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &taskApp{cs: cs, tr: tr}
}

// taskParams are the params of tasks/get, tasks/update and tasks/cancel.
type taskParams struct {
	mcp.ParamsBase
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
}

// taskResult answers tasks/*: the task, its questions, its result.
type taskResult struct {
	mcp.ResultBase
	TaskID        string          `json:"taskId"`
	Status        string          `json:"status"`
	StatusMessage string          `json:"statusMessage"`
	InputRequests json.RawMessage `json:"inputRequests,omitempty"`
	Result        json.RawMessage `json:"result,omitempty"`
	Error         json.RawMessage `json:"error,omitempty"`
}

// taskTransport adds the client token, names a tasks/* request's task in
// Mcp-Name (go-sdk names only tools, prompts and resources), and keeps
// the id of the task a tools/call created: go-sdk's client knows no tasks,
// and reads a CreateTaskResult as an empty tool result.
type taskTransport struct {
	next http.RoundTripper

	mu      sync.Mutex
	created string
}

var (
	taskIDParam = regexp.MustCompile(`"method":"tasks/[a-z]+".*"taskId":"([^"]+)"|"taskId":"([^"]+)".*"method":"tasks/[a-z]+"`)
	createdTask = regexp.MustCompile(`"resultType":"task".*?"taskId":"([^"]+)"|"taskId":"([^"]+)".*?"resultType":"task"`)
)

func (tr *taskTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodPost || r.Body == nil {
		return tr.next.RoundTrip(r)
	}
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	r = r.Clone(r.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	if m := taskIDParam.FindSubmatch(body); m != nil {
		r.Header.Set("Mcp-Name", string(m[1])+string(m[2]))
	}
	resp, err := tr.next.RoundTrip(r)
	if err != nil || !bytes.Contains(body, []byte(`"tools/call"`)) {
		return resp, err
	}
	// A call that runs as a task is answered at once: its whole answer
	// can be read here.
	out, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(out))
	if m := createdTask.FindSubmatch(out); m != nil {
		tr.mu.Lock()
		tr.created = string(m[1]) + string(m[2])
		tr.mu.Unlock()
	}
	return resp, nil
}

// start calls tool as a task and returns the task's id.
func (a *taskApp) start(ctx context.Context, t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	a.tr.mu.Lock()
	a.tr.created = ""
	a.tr.mu.Unlock()
	if _, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args}); err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	a.tr.mu.Lock()
	defer a.tr.mu.Unlock()
	if a.tr.created == "" {
		t.Fatalf("%s did not run as a task", tool)
	}
	return a.tr.created
}

// get is the task id as tasks/get shows it.
func (a *taskApp) get(ctx context.Context, t *testing.T, id string) *taskResult {
	t.Helper()
	v, err := mcp.CallCustomMethod[*taskParams, *taskResult](ctx, a.cs, "tasks/get", &taskParams{TaskID: id})
	if err != nil {
		t.Fatalf("tasks/get: %v", err)
	}
	return v
}

// question waits for the task to ask one question and returns it, with
// its key.
func (a *taskApp) question(ctx context.Context, t *testing.T, id string) (string, mcp.InputRequest) {
	t.Helper()
	var v *taskResult
	testutil.EventuallyShows(t, "the task to ask a question", func() (bool, string) {
		v = a.get(ctx, t, id)
		return v.Status == record.TaskInputRequired, testutil.MustJSON(t, v)
	})
	var reqs mcp.InputRequestMap
	if err := json.Unmarshal(v.InputRequests, &reqs); err != nil || len(reqs) != 1 {
		t.Fatalf("the task's questions: %v %s", err, v.InputRequests)
	}
	for k, q := range reqs {
		return k, q
	}
	return "", nil
}

// update answers the task's question key with answer (JSON).
func (a *taskApp) update(ctx context.Context, t *testing.T, id, key, answer string) {
	t.Helper()
	p := &taskParams{TaskID: id, InputResponses: map[string]json.RawMessage{key: json.RawMessage(answer)}}
	if _, err := mcp.CallCustomMethod[*taskParams, *taskResult](ctx, a.cs, "tasks/update", p); err != nil {
		t.Fatalf("tasks/update: %v", err)
	}
}

// cancel cancels the task.
func (a *taskApp) cancel(ctx context.Context, t *testing.T, id string) {
	t.Helper()
	if _, err := mcp.CallCustomMethod[*taskParams, *taskResult](ctx, a.cs, "tasks/cancel", &taskParams{TaskID: id}); err != nil {
		t.Fatalf("tasks/cancel: %v", err)
	}
}

// ended waits for the task to end and returns it.
func (a *taskApp) ended(ctx context.Context, t *testing.T, id string) *taskResult {
	t.Helper()
	var v *taskResult
	testutil.EventuallyShows(t, "the task to end", func() (bool, string) {
		v = a.get(ctx, t, id)
		switch v.Status {
		case record.TaskCompleted, record.TaskFailed, record.TaskCancelled:
			return true, ""
		}
		return false, testutil.MustJSON(t, v)
	})
	return v
}

// result waits for the task to complete and returns its result's text.
func (a *taskApp) result(ctx context.Context, t *testing.T, id string) string {
	t.Helper()
	v := a.ended(ctx, t, id)
	var res mcp.CallToolResult
	if v.Status != record.TaskCompleted || json.Unmarshal(v.Result, &res) != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("the task's end: %s", testutil.MustJSON(t, v))
	}
	return res.Content[0].(*mcp.TextContent).Text
}
