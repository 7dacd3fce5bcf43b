package tryit

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testcatalog"
	"github.com/mcptray/mcptray/internal/testserver"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/storage"
)

// served is a real store and engine, with token auth on, behind a real
// HTTP server.
type served struct {
	st       *storage.Store
	activity *storage.ActivityWriter
	url      string
}

func newServed(t *testing.T) *served {
	t.Helper()
	s := testserver.Start(t, testserver.Options{Auth: true})
	return &served{st: s.Store, activity: s.Activity, url: s.URL}
}

// putRespond stores a respond tool with an optional string parameter who.
func (s *served) putRespond(t *testing.T, name, text string) {
	t.Helper()
	tool := catalog.Tool{Name: name, Description: "test tool", Params: []catalog.Param{{Name: "who", Type: "string"}},
		Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: catalog.Template(text)}}}}}
	if err := s.st.PutTool(context.Background(), tool); err != nil {
		t.Fatal(err)
	}
}

func newTestTrier(t *testing.T, s *served) *Trier {
	t.Helper()
	tr, err := New(s.st, func() string { return s.url })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

// call retries while the engine has not yet picked up a stored tool.
func call(t *testing.T, tr *Trier, name string, args map[string]any) (Result, error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, err := tr.TryTool(ctx, name, args)
		cancel()
		if err == nil || !strings.Contains(err.Error(), "unknown tool") || time.Now().After(deadline) {
			return res, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestTryToolReturnsTheRespondText(t *testing.T) {
	s := newServed(t)
	s.putRespond(t, "greet", "Hello, {{.args.who}}!")
	tr := newTestTrier(t, s)

	res, err := call(t, tr, "greet", map[string]any{"who": "Ada"})
	if err != nil {
		t.Fatalf("TryTool: %v", err)
	}
	if res.Text != "Hello, Ada!" || res.IsError {
		t.Fatalf("result %+v", res)
	}
	for _, want := range []string{`"tools/call"`, `"greet"`, `"Ada"`} {
		if !strings.Contains(res.Request, want) {
			t.Errorf("Request lacks %s:\n%s", want, res.Request)
		}
	}
	if !strings.Contains(res.Response, `"result"`) || !strings.Contains(res.Response, "Hello, Ada!") {
		t.Errorf("Response:\n%s", res.Response)
	}

	// The session is kept: a second call works on it, and the token the
	// Trier made is the only one, seeing all tools.
	first := tr.session
	if _, err := call(t, tr, "greet", map[string]any{"who": "Bob"}); err != nil {
		t.Fatal(err)
	}
	if tr.session != first {
		t.Error("a second call opened another session")
	}
	toks, err := s.st.ListTokens(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(toks) != 1 || toks[0].Name != TokenName || toks[0].Tools != nil {
		t.Fatalf("tokens %+v", toks)
	}
}

func TestTryToolUnknownToolIsAnError(t *testing.T) {
	s := newServed(t)
	tr := newTestTrier(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := tr.TryTool(ctx, "no_such_tool", nil)
	if err == nil {
		t.Fatalf("no error; result %+v", res)
	}
	if !strings.Contains(err.Error(), "no_such_tool") {
		t.Errorf("error %q does not name the tool", err)
	}
	if !strings.Contains(res.Request, `"no_such_tool"`) || !strings.Contains(res.Response, `"error"`) {
		t.Errorf("raw exchange not shown:\nrequest %s\nresponse %s", res.Request, res.Response)
	}
}

func TestTryToolWithARevokedToken(t *testing.T) {
	s := newServed(t)
	s.putRespond(t, "greet", "hi")
	tr := newTestTrier(t, s)
	if _, err := call(t, tr, "greet", nil); err != nil {
		t.Fatal(err)
	}
	if err := s.st.RevokeToken(context.Background(), TokenName); err != nil {
		t.Fatal(err)
	}
	// Refused on the open session, and again when connecting anew.
	for range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := tr.TryTool(ctx, "greet", nil)
		cancel()
		if err == nil || !strings.Contains(err.Error(), "refused mcptray's own client token") {
			t.Fatalf("error %v, want a clear word about the token", err)
		}
	}
}

func TestNewReplacesAnOlderToken(t *testing.T) {
	s := newServed(t)
	s.putRespond(t, "greet", "hi")
	old := newTestTrier(t, s)
	tr := newTestTrier(t, s)
	if _, err := call(t, tr, "greet", nil); err != nil {
		t.Fatalf("the new Trier: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := old.TryTool(ctx, "greet", nil); err == nil {
		t.Fatal("the replaced token still works")
	}
}

func TestTryToolFollowsTheURL(t *testing.T) {
	a, b := newServed(t), newServed(t)
	a.putRespond(t, "greet", "from a")
	url := a.url
	tr, err := New(a.st, func() string { return url })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	if res, err := call(t, tr, "greet", nil); err != nil || res.Text != "from a" {
		t.Fatalf("on a: %+v, %v", res, err)
	}
	// b does not know a's token: moving there must reconnect and be refused.
	url = b.url
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := tr.TryTool(ctx, "greet", nil); err == nil || !strings.Contains(err.Error(), b.url) {
		t.Fatalf("after the URL moved: %v", err)
	}
}

// TestCloseCancelsARunningCall: quitting the app must not wait for a call
// that may never end (a long command, an approval nobody answers).
func TestCloseCancelsARunningCall(t *testing.T) {
	s := newServed(t)
	slow := catalog.Tool{Name: "slow", Description: "Takes a minute.",
		Action: catalog.Action{Respond: &catalog.Respond{Steps: []catalog.Step{{DelayMs: 60000, Log: &catalog.LogStep{Level: "info", Data: "still going"}}},
			Content: []catalog.Content{{Type: "text", Text: "done"}}}}}
	if err := s.st.PutTool(context.Background(), slow); err != nil {
		t.Fatal(err)
	}
	tr := newTestTrier(t, s)
	done := make(chan error, 1)
	go func() {
		for {
			// No deadline: only Close can end it.
			_, err := tr.TryTool(context.Background(), "slow", nil)
			if err == nil || !strings.Contains(err.Error(), "unknown tool") {
				done <- err
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	time.Sleep(500 * time.Millisecond) // the call is under way
	closed := make(chan struct{})
	go func() { tr.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for the running call")
	}
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the cancelled call succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the running call was not cancelled")
	}
}

// TestStoppedCallIsLoggedCancelled: a call Try it stops (its context
// cancelled, as the panel's Stop does) is in the activity log as
// cancelled, like any call its client cancels, not as a tool error.
func TestStoppedCallIsLoggedCancelled(t *testing.T) {
	s := newServed(t)
	if err := s.st.PutTool(context.Background(), testcatalog.CommandTool("wait", "sleep", "30")); err != nil {
		t.Fatal(err)
	}
	records := s.activity.SubscribeActivity(t.Context())
	// next waits for the next record of the call of wait that ok accepts.
	next := func(what string, ok func(record.Activity) bool) record.Activity {
		t.Helper()
		deadline := time.After(testutil.Patience)
		for {
			select {
			case a := <-records:
				if a.Target == "wait" && ok(a) {
					return a
				}
			case <-deadline:
				t.Fatalf("no activity record of %s within %v", what, testutil.Patience)
			}
		}
	}
	tr := newTestTrier(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		for {
			_, err := tr.TryTool(ctx, "wait", nil)
			if err == nil || !strings.Contains(err.Error(), "unknown tool") {
				done <- err
				return
			}
			time.Sleep(50 * time.Millisecond) // the engine has not picked up the stored tool yet
		}
	}()
	// A call still running after a second is logged as running.
	next("the call running", func(a record.Activity) bool { return a.Outcome == record.OutcomeRunning })
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the stopped call succeeded")
	}
	a := next("the call's end", func(a record.Activity) bool { return a.Outcome != record.OutcomeRunning })
	if a.Outcome != record.OutcomeCancelled {
		t.Fatalf("the stopped call is logged as %q (%s), want %q", a.Outcome, a.Detail, record.OutcomeCancelled)
	}
}

// TestTryToolAnswersTheToolsForm: Try it is the client, so a form step the
// client answers is answered by the FormAnswerer of the call; a plain
// TryTool cancels it.
func TestTryToolAnswersTheToolsForm(t *testing.T) {
	s := newServed(t)
	tool := catalog.Tool{Name: "ask", Description: "asks",
		Steps: []catalog.InputStep{{Key: "q", Kind: catalog.StepForm, Message: "Your name?",
			Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)}},
		Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "Hi {{.inputs.q.content.name}}"}}}}}
	if err := s.st.PutTool(context.Background(), tool); err != nil {
		t.Fatal(err)
	}
	tr := newTestTrier(t, s)
	var asked FormRequest
	answer := func(_ context.Context, req FormRequest) (FormAnswer, error) {
		asked = req
		return FormAnswer{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	}
	var res Result
	var err error
	testutil.Eventually(t, "the tool served", func() bool {
		res, err = tr.TryToolAnswering(context.Background(), "ask", nil, answer)
		return err == nil || !strings.Contains(err.Error(), "unknown tool")
	})
	if err != nil || res.Text != "Hi Ada" || asked.Message != "Your name?" || !strings.Contains(string(asked.Schema), `"name"`) {
		t.Fatalf("result %+v, %v; asked %+v", res, err, asked)
	}
	res, err = tr.TryTool(context.Background(), "ask", nil)
	if err != nil || !res.IsError {
		t.Fatalf("unanswered: %+v, %v", res, err)
	}
}
