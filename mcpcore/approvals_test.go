package mcpcore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/record"
)

// pendingCall is a tools/call waiting in the background, maybe for a
// question on the desktop.
type pendingCall chan *mcp.CallToolResult

func callInBackground(t *testing.T, cs *mcp.ClientSession, tool string) pendingCall {
	ch := make(pendingCall, 1)
	go func() {
		res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: tool})
		if err != nil {
			t.Errorf("calling %s: %v", tool, err)
		}
		ch <- res
	}()
	return ch
}

// text is the call's result text; the call must end.
func (c pendingCall) text(t *testing.T) string {
	t.Helper()
	res := <-c
	if res == nil {
		t.FailNow()
	}
	return text(t, res)
}

// callAsking calls tool, answers the question it asks on the desktop with
// ans, and returns the result text.
func callAsking(t *testing.T, asker *fakeAsker, cs *mcp.ClientSession, tool string, ans mcpcore.Answer) (mcpcore.Question, string) {
	t.Helper()
	call := callInBackground(t, cs, tool)
	q := asker.next(t)
	q.answer <- ans
	return q.q, call.text(t)
}

// callNotAsking calls tool and checks that nothing is asked.
func callNotAsking(t *testing.T, asker *fakeAsker, cs *mcp.ClientSession, tool string) string {
	t.Helper()
	got := callInBackground(t, cs, tool).text(t)
	asker.none(t)
	return got
}

// approvalsOf lists the engine's remembered approvals.
func approvalsOf(t *testing.T, e *env) []record.RememberedApproval {
	t.Helper()
	list, err := e.eng.RememberedApprovals(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func TestRememberedApprovals(t *testing.T) {
	db := filepath.Join(t.TempDir(), "mcptray.db")
	asker := newFakeAsker()
	allowOnce := mcpcore.Answer{Action: "accept"}
	untilRevoked := mcpcore.Answer{Action: "accept", Remember: record.RememberUntilRevoked}
	untilRestart := mcpcore.Answer{Action: "accept", Remember: record.RememberUntilRestart}
	deny := mcpcore.Answer{Action: "decline"}
	var laptop, desk string
	otherApp := newClientNamed("other-app")

	t.Run("first run", func(t *testing.T) {
		sink := &memActivity{}
		e := newEnv(t, envOptions{db: db, auth: true, extra: taskTools, asker: asker, activity: sink})
		var err error
		if laptop, err = e.st.CreateToken(testCtx(t), "laptop", nil); err != nil {
			t.Fatal(err)
		}
		if desk, err = e.st.CreateToken(testCtx(t), "desk", nil); err != nil {
			t.Fatal(err)
		}
		cs := e.connect(t, modern, nil, laptop)
		events := e.eng.SubscribeApprovals(testCtx(t))

		if _, got := callAsking(t, asker, cs, "t_wipe", untilRevoked); got != "wiped true" {
			t.Fatalf("allowed: %q", got)
		}
		select {
		case <-events:
		default:
			t.Error("no signal on SubscribeApprovals for a new remembered approval")
		}
		if got := callNotAsking(t, asker, cs, "t_wipe"); got != "wiped true" {
			t.Errorf("remembered: %q", got)
		}
		sink.find(t, "the remembered approval's line", func(a record.Activity) bool {
			return slices.Equal(a.Approvals, []string{"approval: allowed without asking (remembered until revoked)"})
		})
		// Another app on the same token, or the same app on another
		// token, is asked.
		if _, got := callAsking(t, asker, e.connect(t, modern, otherApp, laptop), "t_wipe", deny); got != `The person at the computer denied running "t_wipe".` {
			t.Errorf("another app, denied: %q", got)
		}
		if _, got := callAsking(t, asker, e.connect(t, modern, nil, desk), "t_wipe", allowOnce); got != "wiped true" {
			t.Errorf("another token: %q", got)
		}
		// Until mcptray restarts: not asked again in this run.
		callAsking(t, asker, cs, "t_wipe_task", untilRestart)
		callNotAsking(t, asker, cs, "t_wipe_task")

		list := approvalsOf(t, e)
		if len(list) != 2 || list[0].Tool != "t_wipe_task" || list[0].UntilRevoked || list[1].Tool != "t_wipe" || !list[1].UntilRevoked ||
			list[1].Token != "laptop" || list[1].Client != "mcpcore-integration-test" || !list[0].Matches || !list[1].Matches {
			t.Errorf("remembered: %+v", list)
		}
	})

	t.Run("after a restart", func(t *testing.T) {
		// Lists are not cached: the client sees an edit once the engine
		// serves it.
		e := newEnv(t, envOptions{db: db, auth: true, extra: taskTools, asker: asker, settings: func(s *catalog.Settings) { s.CacheTTLMs = 0 }})
		cs := e.connect(t, modern, nil, laptop)
		if got := callNotAsking(t, asker, cs, "t_wipe"); got != "wiped true" {
			t.Errorf("kept until revoked: %q", got)
		}
		// The one kept until mcptray restarts is gone.
		callAsking(t, asker, cs, "t_wipe_task", allowOnce)
		list := approvalsOf(t, e)
		if len(list) != 1 || list[0].Tool != "t_wipe" || !list[0].UntilRevoked {
			t.Fatalf("remembered after the restart: %+v", list)
		}

		// Revoked: asked again.
		if err := e.eng.ForgetApproval(testCtx(t), list[0].ApprovalKey); err != nil {
			t.Fatal(err)
		}
		callAsking(t, asker, cs, "t_wipe", untilRevoked)
		callNotAsking(t, asker, cs, "t_wipe")

		// Turned off, the tool is still the one allowed: turned on again,
		// it is not asked.
		served := func(want bool) {
			t.Helper()
			testutil.Eventually(t, fmt.Sprintf("t_wipe served: %v", want), func() bool {
				res, err := cs.ListTools(testCtx(t), nil)
				return err == nil && want == slices.ContainsFunc(res.Tools, func(x *mcp.Tool) bool { return x.Name == "t_wipe" })
			})
		}
		if err := e.st.SetToolDisabled(testCtx(t), "t_wipe", true); err != nil {
			t.Fatal(err)
		}
		served(false)
		if list := approvalsOf(t, e); len(list) != 1 || !list[0].Matches {
			t.Errorf("remembered while the tool is off: %+v", list)
		}
		if err := e.st.SetToolDisabled(testCtx(t), "t_wipe", false); err != nil {
			t.Fatal(err)
		}
		served(true)
		callNotAsking(t, asker, cs, "t_wipe")

		// Edited: no longer matches, and asks again.
		tool, err := e.st.Tool(testCtx(t), "t_wipe")
		if err != nil {
			t.Fatal(err)
		}
		tool.Description = "Wipes everything (pretends to)."
		if err := e.st.PutTool(testCtx(t), tool); err != nil {
			t.Fatal(err)
		}
		if list := approvalsOf(t, e); len(list) != 1 || list[0].Matches {
			t.Errorf("remembered after the edit: %+v", list)
		}
		testutil.Eventually(t, "the edit to reach the engine", func() bool {
			res, err := cs.ListTools(testCtx(t), nil)
			return err == nil && slices.ContainsFunc(res.Tools, func(x *mcp.Tool) bool { return x.Description == tool.Description })
		})
		q, _ := callAsking(t, asker, cs, "t_wipe", allowOnce)
		if q.Tool != "t_wipe" {
			t.Errorf("question: %+v", q)
		}

		if err := e.eng.ForgetAllApprovals(testCtx(t)); err != nil {
			t.Fatal(err)
		}
		if list := approvalsOf(t, e); len(list) != 0 {
			t.Errorf("after revoking all: %+v", list)
		}
	})
}

func TestNobodyAnswersMessages(t *testing.T) {
	asker := newFakeAsker()
	sink := &memActivity{}
	e := newEnv(t, envOptions{extra: taskTools, asker: asker, activity: sink})
	cs := e.connect(t, modern, nil, "")
	for _, tc := range []struct {
		ans        mcpcore.Answer
		text, line string
	}{
		{mcpcore.Answer{Action: "decline"}, `The person at the computer denied running "t_wipe".`, "approval: denied"},
		{mcpcore.Answer{Action: "decline", Reason: "Not on a Friday."}, `The person at the computer denied running "t_wipe": Not on a Friday.`, "approval: denied: Not on a Friday."},
		{mcpcore.Answer{Action: "decline", Unanswered: true, Reason: "Nobody at the computer answered within 5 minutes"},
			`Nobody at the computer answered within 5 minutes, so "t_wipe" did not run.`, "approval: nobody at the computer answered within 5 minutes"},
	} {
		if _, got := callAsking(t, asker, cs, "t_wipe", tc.ans); got != tc.text {
			t.Errorf("%+v: the model reads %q, want %q", tc.ans, got, tc.text)
		}
		sink.find(t, tc.line, func(a record.Activity) bool { return slices.Equal(a.Approvals, []string{tc.line}) })
	}
	// A desktop form the person cancels.
	call := callInBackground(t, cs, "t_desk_form")
	asker.next(t).answer <- mcpcore.Answer{Action: "cancel"}
	if got, want := call.text(t), `The person at the computer cancelled the form "who", so "t_desk_form" did not run.`; got != want {
		t.Errorf("cancelled form: %q, want %q", got, want)
	}
	// An unknown remember choice is refused, not taken as "once".
	call = callInBackground(t, cs, "t_wipe")
	asker.next(t).answer <- mcpcore.Answer{Action: "accept", Remember: "forever"}
	res := <-call
	if res == nil || !res.IsError || text(t, res) != `remembering the approval of "t_wipe": unknown duration "forever" (want "restart" or "revoked")` {
		t.Errorf("unknown remember choice: %+v", res)
	}
}

// newClientNamed is a go-sdk client that calls itself name.
func newClientNamed(name string) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil)
}

// withdrawingAsker withdraws every question, as the daemon's Asker does
// when the server stops while the call goes on.
type withdrawingAsker struct{}

func (withdrawingAsker) Ask(context.Context, mcpcore.Question) (mcpcore.Answer, error) {
	return mcpcore.Answer{}, context.Canceled
}

func TestWithdrawnQuestionMessage(t *testing.T) {
	e := newEnv(t, envOptions{extra: taskTools, asker: withdrawingAsker{}})
	res, err := e.connect(t, modern, nil, "").CallTool(testCtx(t), &mcp.CallToolParams{Name: "t_wipe"})
	if want := `mcptray stopped before anyone at the computer answered, so "t_wipe" did not run`; err != nil || !res.IsError || text(t, res) != want {
		t.Errorf("withdrawn: %+v %v, want %q", res, err, want)
	}
}

// TestAnApprovalShowsWhatWillRun: a tool whose command takes a folder the
// AI app gives in a form, then asks the person. The approval shows the
// command line as it will run, with the app's answer in it and the secret
// masked, and the app's answers; a remembered approval covers those
// answers only, so another folder asks again.
func TestAnApprovalShowsWhatWillRun(t *testing.T) {
	asker := newFakeAsker()
	tidy := catalog.Tool{
		Name: "tidy", Description: "Tidies a folder.",
		Steps: []catalog.InputStep{
			{Key: "target", Kind: catalog.StepForm, AnsweredBy: catalog.AnsweredByClient, Message: "Which folder?",
				Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Key: "ok", Kind: catalog.StepApproval, Message: "Tidy up?"},
		},
		Action: catalog.Action{Command: &catalog.Command{
			Argv: []catalog.Template{"echo", "tidied", "{{.inputs.target.content.path}}", `--key={{urlquery (secret "api")}}`},
		}},
	}
	e := newEnv(t, envOptions{asker: asker, secrets: memSecrets{"api": oddSecret},
		extra: &catalog.Catalog{Tools: []catalog.Tool{tidy}}})
	var mu sync.Mutex
	folder := "/home/victim/.ssh"
	client := newClient(&mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		defer mu.Unlock()
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"path": folder}}, nil
	}})
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			cs := e.connect(t, era, client, "")
			setFolder := func(f string) { mu.Lock(); folder = f; mu.Unlock() }
			setFolder("/home/victim/.ssh")
			q, got := callAsking(t, asker, cs, "tidy", mcpcore.Answer{Action: "accept", Remember: record.RememberUntilRestart})
			if want := "Runs: echo tidied /home/victim/.ssh --key=[secret:api]"; q.Runs != want {
				t.Errorf("the approval shows what runs as %q, want %q", q.Runs, want)
			}
			if !strings.Contains(q.ClientInputs, `"path": "/home/victim/.ssh"`) {
				t.Errorf("the approval shows the app's answers as %q", q.ClientInputs)
			}
			if !strings.HasPrefix(got, "tidied /home/victim/.ssh") {
				t.Errorf("result %q", got)
			}
			// Remembered for this folder: not asked again.
			callNotAsking(t, asker, cs, "tidy")
			// Another folder: the person did not see it, so asked again.
			setFolder("/home/victim/Documents")
			q, _ = callAsking(t, asker, cs, "tidy", mcpcore.Answer{Action: "decline"})
			if !strings.Contains(q.Runs, "/home/victim/Documents") {
				t.Errorf("asked again showing %q", q.Runs)
			}
			if err := e.eng.ForgetAllApprovals(testCtx(t)); err != nil {
				t.Fatal(err)
			}
		})
	}
}
