package mcpcore_test

// Input-step rounds of the 2026 era on the wire (input_required results,
// sealed requestState), and what the server refuses.

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
)

// everyCapability declares what every kind of input step needs.
var everyCapability = map[string]any{"elicitation": map[string]any{"form": map[string]any{}}, "sampling": map[string]any{}, "roots": map[string]any{}}

// toolCall is one raw 2026 tools/call.
type toolCall struct {
	name      string
	args      map[string]any
	caps      map[string]any // nil: everyCapability
	state     string
	responses map[string]any
	token     string
}

// send posts the call.
func (c toolCall) send(t *testing.T, e *env) *reply {
	t.Helper()
	caps := c.caps
	if caps == nil {
		caps = everyCapability
	}
	args := c.args
	if args == nil {
		args = map[string]any{}
	}
	params := map[string]any{"name": c.name, "arguments": args, "_meta": map[string]any{metaCapabilities: caps}}
	if c.state != "" {
		params["requestState"] = c.state
	}
	if c.responses != nil {
		params["inputResponses"] = c.responses
	}
	return e.send(t, e.modern("tools/call", params).as(c.token).Request)
}

// roundResult is a tools/call result: input_required or complete.
type roundResult struct {
	ResultType    string `json:"resultType"`
	InputRequests map[string]struct {
		Method string         `json:"method"`
		Params map[string]any `json:"params"`
	} `json:"inputRequests"`
	RequestState string `json:"requestState"`
	Content      []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

// inputRequired requires an input_required result asking exactly keys,
// and returns its state.
func inputRequired(t *testing.T, rep *reply, keys ...string) (roundResult, string) {
	t.Helper()
	var r roundResult
	rep.result(t, &r)
	if r.ResultType != "input_required" {
		t.Fatalf("resultType %q, want input_required: %v", r.ResultType, rep)
	}
	if got := slices.Sorted(maps.Keys(r.InputRequests)); !slices.Equal(got, keys) {
		t.Fatalf("input requests %v, want %v", got, keys)
	}
	if !strings.HasPrefix(r.RequestState, "v1.") {
		t.Fatalf("requestState %q is not a sealed v1 state", r.RequestState)
	}
	return r, r.RequestState
}

// completed requires a complete, successful result and returns its text.
func completed(t *testing.T, rep *reply) string {
	t.Helper()
	var r roundResult
	rep.result(t, &r)
	if r.ResultType != "complete" || r.IsError || len(r.Content) != 1 {
		t.Fatalf("want a complete result with one block, got %v", rep)
	}
	return r.Content[0].Text
}

// refusedState requires the -32602 a bad requestState gets.
func refusedState(t *testing.T, rep *reply) *rpcError {
	t.Helper()
	re := rep.wantError(t, http.StatusBadRequest, codeInvalidParams)
	if !strings.Contains(re.Message, "requestState") {
		t.Errorf("error %q does not name the requestState", re.Message)
	}
	return re
}

func accepted(content map[string]any) map[string]any {
	return map[string]any{"action": "accept", "content": content}
}

var (
	nameAnswer  = map[string]any{"user_name": accepted(map[string]any{"name": "Ada"})}
	step1Answer = map[string]any{"step1": accepted(map[string]any{"name": "Ada"})}
	step2Answer = map[string]any{"step2": accepted(map[string]any{"color": "blue"})}
)

func TestMRTRRounds(t *testing.T) {
	e := newEnv(t, envOptions{})

	t.Run("one round", func(t *testing.T) {
		call := toolCall{name: "test_input_required_result_elicitation"}
		r, state := inputRequired(t, call.send(t, e), "user_name")
		ask := r.InputRequests["user_name"]
		if ask.Method != "elicitation/create" || ask.Params["message"] != "What is your name?" {
			t.Errorf("input request %+v", ask)
		}
		call.state, call.responses = state, nameAnswer
		if got := completed(t, call.send(t, e)); got != "Hello, Ada!" {
			t.Errorf("result %q, want %q", got, "Hello, Ada!")
		}
	})

	t.Run("three round trips", func(t *testing.T) {
		call := toolCall{name: "test_input_required_result_multi_round"}
		r1, state1 := inputRequired(t, call.send(t, e), "step1")
		if msg := r1.InputRequests["step1"].Params["message"]; msg != "What is your name?" {
			t.Errorf("round 1 asks %q", msg)
		}
		call.state, call.responses = state1, step1Answer
		r2, state2 := inputRequired(t, call.send(t, e), "step2")
		if msg := r2.InputRequests["step2"].Params["message"]; msg != "What is your favourite colour?" {
			t.Errorf("round 2 asks %q", msg)
		}
		if state2 == state1 {
			t.Errorf("the state did not change between rounds")
		}
		call.state, call.responses = state2, step2Answer
		if got := completed(t, call.send(t, e)); got != "Ada likes blue" {
			t.Errorf("result %q, want %q", got, "Ada likes blue")
		}
	})

	t.Run("missing capability", func(t *testing.T) {
		call := toolCall{name: "test_missing_capability", caps: map[string]any{"elicitation": map[string]any{}}}
		re := call.send(t, e).wantError(t, http.StatusBadRequest, codeMissingCapability)
		var data struct {
			RequiredCapabilities map[string]any `json:"requiredCapabilities"`
		}
		if err := json.Unmarshal(re.Data, &data); err != nil {
			t.Fatalf("error data %s: %v", re.Data, err)
		}
		if _, ok := data.RequiredCapabilities["sampling"].(map[string]any); !ok || len(data.RequiredCapabilities) != 1 {
			t.Errorf("data.requiredCapabilities = %v, want exactly sampling: {}", data.RequiredCapabilities)
		}
	})
}

func TestRequestStateRefused(t *testing.T) {
	e := newEnv(t, envOptions{})
	mint := func(t *testing.T, c toolCall, key string) string {
		t.Helper()
		c.responses = nil // answers sent with the first call would complete it at once
		_, state := inputRequired(t, c.send(t, e), key)
		return state
	}
	elicitation := toolCall{name: "test_input_required_result_elicitation", responses: nameAnswer}
	state := mint(t, elicitation, "user_name")

	t.Run("honoured", func(t *testing.T) {
		c := elicitation
		c.state = state
		if got := completed(t, c.send(t, e)); got != "Hello, Ada!" {
			t.Errorf("result %q", got)
		}
	})
	t.Run("not minted here", func(t *testing.T) {
		garbage := make([]byte, 64)
		if _, err := rand.Read(garbage); err != nil {
			t.Fatal(err)
		}
		for _, forged := range []string{"not-a-state", "v1." + base64.RawURLEncoding.EncodeToString(garbage)} {
			c := elicitation
			c.state = forged
			refusedState(t, c.send(t, e))
		}
	})
	t.Run("tampered", func(t *testing.T) {
		c := elicitation
		c.state = state + "AAAA"
		refusedState(t, c.send(t, e))
		b := []byte(state)
		if i := len(b) / 2; b[i] == 'A' { // change one letter inside the sealed bytes
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		c.state = string(b)
		refusedState(t, c.send(t, e))
	})
	t.Run("another tool", func(t *testing.T) {
		// Same step key, same schema, same (empty) arguments: only the tool differs.
		c := toolCall{name: "test_input_required_result_tampered_state", state: state, responses: nameAnswer}
		refusedState(t, c.send(t, e))
	})
	t.Run("other arguments", func(t *testing.T) {
		ask := toolCall{name: "test_elicitation", args: map[string]any{"message": "hi"}}
		s := mint(t, ask, "user_info")
		ask.state = s
		ask.responses = map[string]any{"user_info": accepted(map[string]any{"username": "ada", "email": "ada@example.com"})}
		if got := completed(t, ask.send(t, e)); !strings.HasPrefix(got, "User response: accept") {
			t.Fatalf("with the minting arguments: %q", got)
		}
		ask.args = map[string]any{"message": "bye"}
		refusedState(t, ask.send(t, e))
	})
}

func TestRequestStateExpires(t *testing.T) {
	testutil.Long(t, "waits for request state to expire")
	e := newEnv(t, envOptions{settings: func(s *catalog.Settings) { s.RequestStateTTLSeconds = 1 }})
	if got := e.eng.Settings().RequestStateTTLSeconds; got != 1 {
		t.Fatalf("RequestStateTTLSeconds = %d, want 1", got)
	}
	call := toolCall{name: "test_input_required_result_elicitation"}
	_, state := inputRequired(t, call.send(t, e), "user_name")
	minted := time.Now()
	call.state, call.responses = state, nameAnswer
	if got := completed(t, call.send(t, e)); got != "Hello, Ada!" {
		t.Fatalf("a fresh state was refused: %q", got)
	}
	// The state expires at the whole second after mint+1 s and is refused
	// once the clock passes that second.
	expired := time.Unix(minted.Unix()+2, 0).Add(20 * time.Millisecond)
	time.Sleep(time.Until(expired))
	re := refusedState(t, call.send(t, e))
	if !strings.Contains(re.Message, "expired") {
		t.Errorf("error %q does not say the state expired", re.Message)
	}
}

func TestRequestStateBoundToToken(t *testing.T) {
	e := newEnv(t, envOptions{auth: true})
	ctx := testCtx(t)
	alice, err := e.st.CreateToken(ctx, "alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	bob, err := e.st.CreateToken(ctx, "bob", nil)
	if err != nil {
		t.Fatal(err)
	}
	call := toolCall{name: "test_input_required_result_elicitation", token: alice}
	_, call.state = inputRequired(t, call.send(t, e), "user_name")
	call.responses = nameAnswer

	call.token = bob
	refusedState(t, call.send(t, e))
	call.token = alice
	if got := completed(t, call.send(t, e)); got != "Hello, Ada!" {
		t.Errorf("the minting token's state was refused: %q", got)
	}
}

// gatedTool asks an optional model question, then a required approval,
// then required details, each in its own round.
var gatedTool = catalog.Tool{
	Name:        "gated_delete",
	Description: "Deletes after an approval.",
	Steps: []catalog.InputStep{
		{Key: "hint", Kind: catalog.StepSampling, Message: "Suggest a reason.", Optional: true},
		{Key: "approve", Kind: catalog.StepForm, Round: 1, Message: "Delete everything?", Schema: okForm},
		{Key: "details", Kind: catalog.StepForm, Round: 2, Message: "Why?", Schema: whyForm},
	},
	Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "approve={{.inputs.approve.action}} details={{.inputs.details.action}}"}}}},
}

var (
	okForm  = json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)
	whyForm = json.RawMessage(`{"type":"object","properties":{"why":{"type":"string"}},"required":["why"]}`)
)

// wantAsked requires the reply to refuse the call or to ask key next —
// anything but completing the call without the required step's answer.
func wantAsked(t *testing.T, rep *reply, key string) {
	t.Helper()
	if m := rep.response(t); m.Error != nil {
		return // refusing the state is fine too
	}
	var r roundResult
	rep.result(t, &r)
	if r.ResultType == "complete" {
		t.Fatalf("the call completed without the required %q step: %s", key, rep.response(t).Result)
	}
	if _, ok := r.InputRequests[key]; !ok {
		t.Errorf("the next round does not ask the required %q step: %v", key, rep)
	}
}

// TestRequiredStepCannotBeSkipped: a sealed state must not let a call past
// a required step it never answered. The state counts rounds by position
// among the steps that are active for the request at hand, so when that
// list changes between rounds — the client drops an optional step's
// capability, or the tool is edited — the position points at a later round.
func TestRequiredStepCannotBeSkipped(t *testing.T) {
	e := newEnv(t, envOptions{extra: &catalog.Catalog{Tools: []catalog.Tool{gatedTool}}})
	formOnly := map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}

	t.Run("capability dropped", func(t *testing.T) {
		call := toolCall{name: gatedTool.Name}
		_, call.state = inputRequired(t, call.send(t, e), "hint")
		call.responses = map[string]any{"hint": map[string]any{"role": "assistant", "model": "m", "content": map[string]any{"type": "text", "text": "cleanup"}}}
		_, call.state = inputRequired(t, call.send(t, e), "approve")
		// The same state, now without the sampling capability, answering
		// only the last round.
		call.caps = formOnly
		call.responses = map[string]any{"details": accepted(map[string]any{"why": "because"})}
		wantAsked(t, call.send(t, e), "approve")
	})

	t.Run("tool edited", func(t *testing.T) {
		tool := catalog.Tool{
			Name:        "edited_between_rounds",
			Description: "v1",
			Steps: []catalog.InputStep{
				{Key: "name", Kind: catalog.StepForm, Message: "Name?", Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)},
				{Key: "details", Kind: catalog.StepForm, Round: 1, Message: "Why?", Schema: whyForm},
			},
			Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "approve={{.inputs.approve.action}}"}}}},
		}
		ctx := testCtx(t)
		if err := e.st.PutTool(ctx, tool); err != nil {
			t.Fatal(err)
		}
		e.waitDescription(t, tool.Name, "v1")
		call := toolCall{name: tool.Name, caps: formOnly}
		_, call.state = inputRequired(t, call.send(t, e), "name")
		call.responses = map[string]any{"name": accepted(map[string]any{"name": "Ada"})}
		_, call.state = inputRequired(t, call.send(t, e), "details")

		// While the call is between rounds, the tool gains a required
		// approval in its first round.
		tool.Description = "v2"
		tool.Steps = append(tool.Steps, catalog.InputStep{Key: "approve", Kind: catalog.StepForm, Message: "Delete everything?", Schema: okForm})
		if err := e.st.PutTool(ctx, tool); err != nil {
			t.Fatal(err)
		}
		e.waitDescription(t, tool.Name, "v2")
		call.responses = map[string]any{"details": accepted(map[string]any{"why": "because"})}
		wantAsked(t, call.send(t, e), "approve")
	})
}

// waitDescription waits until tools/list describes tool as description,
// i.e. the engine serves that version of it.
func (e *env) waitDescription(t *testing.T, tool, description string) {
	t.Helper()
	testutil.Eventually(t, tool+" to be served as "+description, func() bool {
		return slices.Contains(e.listTools(t, "").Tools, listedTool{Name: tool, Description: description})
	})
}
