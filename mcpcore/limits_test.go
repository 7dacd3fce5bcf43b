package mcpcore_test

// The per-token limits: calls in flight, tasks, tasks waiting for input,
// 2025-11-25 sessions, and the size of a result once encoded.

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/record"
)

// limitTools are the tools the limit tests call.
var limitTools = &catalog.Catalog{Format: catalog.CatalogFormat, Version: catalog.CatalogVersion, Tools: []catalog.Tool{
	{
		Name: "l_slow", Description: "Answers after two seconds.",
		Action: catalog.Action{Respond: &catalog.Respond{Steps: []catalog.Step{{DelayMs: 2000, Log: &catalog.LogStep{Level: "info", Data: "slept"}}},
			Content: []catalog.Content{{Type: "text", Text: "slow"}}}},
	},
	{
		Name: "l_held", Description: "Asks the person first.", Approval: catalog.ApprovalAlways,
		Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "held"}}}},
	},
	{
		// 20 KiB of NUL bytes: 120 KiB once JSON escapes each as \u0000.
		Name: "l_nuls", Description: "Answers NUL bytes.",
		Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: catalog.Template(strings.Repeat("\x00", 20<<10))}}}},
	},
	{
		Name: "l_plain", Description: "Answers as many plain bytes.",
		Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: catalog.Template(strings.Repeat("a", 20<<10))}}}},
	},
	{
		Name: "l_ask", Description: "Asks inside its task.", TaskMode: catalog.TaskOptional,
		Steps: []catalog.InputStep{{Key: "a", Kind: catalog.StepForm, InTask: true, Message: "A?",
			Schema: json.RawMessage(`{"type":"object","properties":{"v":{"type":"string"}},"required":["v"]}`)}},
		Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "{{.inputs.a.content.v}}"}}}},
	},
	{
		Name: "l_slow_task", Description: "Runs a while, as a task.", TaskMode: catalog.TaskOptional,
		Action: catalog.Action{Respond: &catalog.Respond{Steps: []catalog.Step{{DelayMs: 3000, Log: &catalog.LogStep{Level: "info", Data: "slept"}}},
			Content: []catalog.Content{{Type: "text", Text: "done"}}}},
	},
}}

// wantLimit requires a CodeLimitExceeded error naming setting.
func wantLimit(t *testing.T, rep *reply, setting string) *rpcError {
	t.Helper()
	re := rpcErrorOf(t, rep, mcpcore.CodeLimitExceeded)
	var data struct {
		Limit string `json:"limit"`
	}
	if err := json.Unmarshal(re.Data, &data); err != nil || data.Limit != setting {
		t.Errorf("error data %s, want limit %q", re.Data, setting)
	}
	if !strings.Contains(re.Message, setting) {
		t.Errorf("the message does not name the setting %s: %q", setting, re.Message)
	}
	return re
}

// TestLimitCallsPerToken: two calls held open by a question on the desktop
// are the most token a may run; a third is refused at once, another token
// and what is no call go on, and answering makes room.
func TestLimitCallsPerToken(t *testing.T) {
	asker := newFakeAsker()
	e := newEnv(t, envOptions{auth: true, extra: limitTools, asker: asker, settings: func(s *catalog.Settings) { s.MaxCallsPerToken = 2 }})
	a, err := e.st.CreateToken(testCtx(t), "a", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.st.CreateToken(testCtx(t), "b", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Each held call is running once its question reaches the desktop;
	// waiting for that, not for a time, keeps the count certain on a busy
	// machine.
	var wg sync.WaitGroup
	held := make([]*question, 2)
	for i := range held {
		wg.Go(func() { completed(t, toolCall{name: "l_held", token: a}.send(t, e)) })
		held[i] = asker.next(t)
	}
	re := wantLimit(t, toolCall{name: "test_simple_text", token: a}.send(t, e), "maxCallsPerToken")
	if !strings.Contains(re.Message, `"a"`) {
		t.Errorf("the message does not name the token: %q", re.Message)
	}
	completed(t, toolCall{name: "test_simple_text", token: b}.send(t, e))
	e.send(t, e.modern("tools/list", nil).as(a).Request).result(t, nil)
	for _, q := range held {
		q.answer <- mcpcore.Answer{Action: "accept"}
	}
	wg.Wait()
	completed(t, toolCall{name: "test_simple_text", token: a}.send(t, e))
}

func TestLimitResultSizeAfterEncoding(t *testing.T) {
	e := newEnv(t, envOptions{extra: limitTools, settings: func(s *catalog.Settings) { s.MaxResultBytes = 64 << 10 }})
	// 20 KiB of text fits; 20 KiB of NULs does not, once encoded.
	completed(t, toolCall{name: "l_plain"}.send(t, e))
	re := wantLimit(t, toolCall{name: "l_nuls"}.send(t, e), "maxResultBytes")
	var data struct {
		Size int64 `json:"size"`
	}
	if err := json.Unmarshal(re.Data, &data); err != nil || data.Size < 120<<10 {
		t.Errorf("the error's size %d (%s), want the encoded size (≥ 120 KiB)", data.Size, re.Data)
	}
}

func TestLimitTasksPerToken(t *testing.T) {
	e := newEnv(t, envOptions{extra: limitTools, settings: func(s *catalog.Settings) {
		s.MaxTasksPerToken, s.MaxWaitingTasksPerToken = 2, 1
	}})
	// One task waits for input; a second cannot wait too, and fails
	// saying why.
	waiting := startTask(t, e, "l_ask", nil, "")
	e.waitTask(t, waiting.TaskID, "", "input_required", func(v taskView) bool { return v.Status == record.TaskInputRequired })
	second := startTask(t, e, "l_ask", nil, "")
	failed := e.waitTask(t, second.TaskID, "", "failed", terminal)
	if failed.Status != record.TaskFailed || failed.Error == nil || failed.Error.Code != mcpcore.CodeLimitExceeded ||
		!strings.Contains(failed.Error.Message, "maxWaitingTasksPerToken") {
		t.Fatalf("a second task waiting for input: %+v %+v", failed, failed.Error)
	}
	// Two tasks not ended are the most: a third is refused at once.
	startTask(t, e, "l_slow_task", nil, "")
	wantLimit(t, toolCall{name: "l_slow_task", caps: withTasks}.send(t, e), "maxTasksPerToken")
	// Answering the waiting task makes room.
	e.taskCall(t, "tasks/update", waiting.TaskID, withTasks, "", map[string]any{"inputResponses": map[string]any{
		"a": map[string]any{"action": "accept", "content": map[string]any{"v": "x"}}}}).result(t, nil)
	e.waitTask(t, waiting.TaskID, "", "completed", terminal)
	startTask(t, e, "l_slow_task", nil, "")
}

func TestLimitSessionsPerToken(t *testing.T) {
	e := newEnv(t, envOptions{settings: func(s *catalog.Settings) { s.MaxSessionsPerToken = 2 }})
	first, second := e.initialize(t), e.initialize(t)
	// The second was used since: the first is the least recently used.
	e.send(t, e.legacy(second, "ping", nil).Request).result(t, nil)
	third := e.initialize(t)
	testutil.Eventually(t, "the least recently used session to close", func() bool {
		return e.send(t, e.legacy(first, "ping", nil).Request).status == http.StatusNotFound
	})
	for _, s := range []string{second, third} {
		e.send(t, e.legacy(s, "ping", nil).Request).result(t, nil)
	}
}

// TestLimitSettingsValidated: each limit is refused beside its field when
// it is out of its bounds, and a token may not wait on more tasks than it
// may hold.
func TestLimitSettingsValidated(t *testing.T) {
	for _, c := range []struct {
		field string
		set   func(*catalog.Settings)
	}{
		{"maxCallsPerToken", func(s *catalog.Settings) { s.MaxCallsPerToken = 0 }},
		{"maxTasksPerToken", func(s *catalog.Settings) { s.MaxTasksPerToken, s.MaxWaitingTasksPerToken = 100_000, 1 }},
		{"maxWaitingTasksPerToken", func(s *catalog.Settings) { s.MaxTasksPerToken, s.MaxWaitingTasksPerToken = 4, 5 }},
		{"maxSessionsPerToken", func(s *catalog.Settings) { s.MaxSessionsPerToken = -1 }},
		{"maxResultBytes", func(s *catalog.Settings) { s.MaxResultBytes = 1000 }},
		{"maxResultBytes", func(s *catalog.Settings) { s.MaxResultBytes = 2 << 30 }},
	} {
		set := catalog.DefaultSettings()
		c.set(&set)
		ps := set.Problems()
		if len(ps) != 1 || ps[0].Field != c.field {
			t.Errorf("%s out of bounds: problems %v", c.field, ps)
		}
	}
}
