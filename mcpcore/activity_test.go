package mcpcore_test

// Secrets in templates (redacted from everything a call returns), the
// activity log hook, and structured output taken from a command's JSON.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testcatalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/record"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// memSecrets is an in-memory SecretReader.
type memSecrets map[string]string

func (m memSecrets) Secret(_ context.Context, name string) (string, error) {
	v, ok := m[name]
	if !ok {
		return "", fmt.Errorf("no secret named %q", name)
	}
	return v, nil
}

// memActivity is an in-memory ActivitySink.
type memActivity struct {
	mu   sync.Mutex
	recs []record.Activity
}

func (m *memActivity) Record(a record.Activity) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs = append(m.recs, a)
}

func (m *memActivity) all() []record.Activity {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.recs)
}

// find waits for the first record that ok accepts.
func (m *memActivity) find(t *testing.T, what string, ok func(record.Activity) bool) record.Activity {
	t.Helper()
	var found record.Activity
	t.Cleanup(func() {
		if t.Failed() {
			for _, a := range m.all() {
				t.Logf("recorded: %+v", a)
			}
		}
	})
	testutil.Eventually(t, "an activity record of "+what, func() bool {
		for _, a := range m.all() {
			if ok(a) {
				found = a
				return true
			}
		}
		return false
	})
	return found
}

// The secret the tests use, and how it reads once redacted.
const (
	apiSecret   = "s3cr3t-T0KEN-value"
	apiRedacted = "[secret:api]"
	// oddSecret changes when escaped: AbC%2FdE%2BfG%3D%3D in a query.
	oddSecret = "AbC/dE+fG=="
)

// resultText returns the text of a tools/call result's blocks, joined.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func TestSecretRedacted(t *testing.T) {
	sink := &memActivity{}
	echo := testcatalog.CommandTool("echo_secret", "printf", `token=%s`, `{{secret "api"}}`)
	fails := testcatalog.CommandTool("fail_secret", "sh", "-c", `echo "refused $0" >&2; exit 2`, `{{secret "api"}}`)
	structured := testcatalog.CommandTool("json_secret", "printf", `{"token":"%s"}`, `{{secret "api"}}`)
	structured.OutputSchema = json.RawMessage(`{"type":"object","properties":{"token":{"type":"string"}},"required":["token"]}`)
	missing := testcatalog.CommandTool("missing_secret", "printf", `{{secret "nope"}}`)
	// The secret as a query value: an API echoing its request line.
	encoded := testcatalog.CommandTool("encoded_secret", "printf", `GET /?key=%s`, `{{urlquery (secret "odd")}}`)
	// Nothing listens on port 1: the error names the URL, secret and all.
	unreachable := `http://127.0.0.1:1/api?key={{secret "api"}}`
	e := newEnv(t, envOptions{
		secrets:  memSecrets{"api": apiSecret, "odd": oddSecret},
		activity: sink,
		extra: &catalog.Catalog{
			Tools: []catalog.Tool{echo, fails, structured, missing, encoded, {
				Name: "http_secret", Description: "Calls an API that is down.",
				Action: catalog.Action{HTTP: &catalog.HTTP{URL: catalog.Template(unreachable), TimeoutMs: 5000}},
			}},
			Resources:         []catalog.Resource{{URI: "test://secret-http", Name: "down", HTTP: &catalog.HTTP{URL: catalog.Template(unreachable), TimeoutMs: 5000}}},
			ResourceTemplates: []catalog.ResourceTemplate{{URITemplate: "test://secret-text/{x}", Name: "t", Text: `{{.args.x}} {{secret "api"}}`}},
		},
	})

	t.Run("resources", func(t *testing.T) {
		rep := e.read(t, "test://secret-http")
		if strings.Contains(string(rep.body), apiSecret) {
			t.Errorf("the secret is in a resource error: %v", rep)
		}
		rep.rejected(t, http.StatusOK)
		if got := e.readText(t, "test://secret-text/a"); got != "a "+apiRedacted {
			t.Errorf("templated resource text %q, want %q", got, "a "+apiRedacted)
		}
	})

	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			cs := e.connect(t, era, nil, "")
			call := func(name string) *mcp.CallToolResult {
				t.Helper()
				res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: name})
				if err != nil {
					t.Fatalf("calling %s: %v", name, err)
				}
				b, _ := json.Marshal(res)
				if strings.Contains(string(b), apiSecret) {
					t.Fatalf("%s: the secret reached the client: %s", name, b)
				}
				return res
			}
			if res := call("echo_secret"); res.IsError || resultText(res) != "token="+apiRedacted {
				t.Errorf("echo_secret: %+v %q, want token=%s", res, resultText(res), apiRedacted)
			}
			if res := call("fail_secret"); !res.IsError || !strings.Contains(resultText(res), "refused "+apiRedacted) {
				t.Errorf("fail_secret: isError %v, %q; want an isError naming the redacted secret", res.IsError, resultText(res))
			}
			res := call("json_secret")
			if res.IsError || field(res.StructuredContent, "token") != apiRedacted {
				t.Errorf("json_secret: isError %v, structured %v, text %q", res.IsError, res.StructuredContent, resultText(res))
			}
			if res := call("encoded_secret"); res.IsError || resultText(res) != "GET /?key=[secret:odd]" {
				t.Errorf("encoded_secret: %+v %q, want the encoded secret redacted", res, resultText(res))
			}
			if res := call("missing_secret"); !res.IsError || !strings.Contains(resultText(res), `"nope"`) {
				t.Errorf("missing_secret: %+v %q, want an isError naming the secret", res, resultText(res))
			}
			if res := call("http_secret"); !res.IsError {
				t.Errorf("http_secret: %+v %q, want an isError", res, resultText(res))
			}
		})
	}

	a := sink.find(t, "echo_secret", func(a record.Activity) bool { return a.Target == "echo_secret" })
	if a.Outcome != record.OutcomeOK || a.Detail != "token="+apiRedacted {
		t.Errorf("echo_secret record: %+v", a)
	}
	sink.find(t, "fail_secret", func(a record.Activity) bool { return a.Target == "fail_secret" })
	if a := sink.find(t, "encoded_secret", func(a record.Activity) bool { return a.Target == "encoded_secret" }); a.Detail != "GET /?key=[secret:odd]" {
		t.Errorf("encoded_secret record: %+v", a)
	}
	b, _ := json.Marshal(sink.all())
	if strings.Contains(string(b), apiSecret) || strings.Contains(string(b), "AbC%2FdE") {
		t.Errorf("the secret is in the activity log: %s", b)
	}
	if !strings.Contains(string(b), apiRedacted) {
		t.Errorf("the activity log does not show the redacted output: %s", b)
	}
}

func TestSecretWithoutStore(t *testing.T) {
	e := newEnv(t, envOptions{extra: &catalog.Catalog{Tools: []catalog.Tool{testcatalog.CommandTool("echo_secret", "printf", `{{secret "api"}}`)}}})
	res, err := e.connect(t, modern, nil, "").CallTool(testCtx(t), &mcp.CallToolParams{Name: "echo_secret"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(resultText(res), "no secret store") {
		t.Errorf("a secret with no store: %+v %q, want an isError saying no secret store is available", res, resultText(res))
	}
}

func TestActivityRecords(t *testing.T) {
	sink := &memActivity{}
	e := newEnv(t, envOptions{auth: true, activity: sink})
	ctx := testCtx(t)
	token, err := e.st.CreateToken(ctx, "laptop", nil)
	if err != nil {
		t.Fatal(err)
	}
	clientInfo := map[string]any{"name": "raw-2026-client", "version": "7.1"}
	call := func(name string, caps map[string]any) *reply {
		t.Helper()
		return e.send(t, e.modern("tools/call", map[string]any{
			"name": name, "arguments": map[string]any{},
			"_meta": map[string]any{metaCapabilities: caps, "io.modelcontextprotocol/clientInfo": clientInfo},
		}).as(token).Request)
	}
	byTarget := func(target, outcome string) record.Activity {
		t.Helper()
		return sink.find(t, target+" "+outcome, func(a record.Activity) bool { return a.Target == target && a.Outcome == outcome })
	}
	check := func(a record.Activity, era, client, version string) {
		t.Helper()
		if a.Era != era || a.Client != client || a.ClientVersion != version || a.Token != "laptop" || a.Time.IsZero() || a.Duration <= 0 {
			t.Errorf("record %+v: want era %s, client %s %s, token laptop, a time and a duration", a, era, client, version)
		}
	}

	t.Run(modern, func(t *testing.T) {
		completed(t, call("test_simple_text", map[string]any{}))
		a := byTarget("test_simple_text", record.OutcomeOK)
		check(a, modern, "raw-2026-client", "7.1")
		if a.Method != "tools/call" || !strings.Contains(a.Detail, "simple text") {
			t.Errorf("ok record: %+v", a)
		}
		if a.Capabilities == nil || len(a.Capabilities) != 0 {
			t.Errorf("a client that declared no capabilities is recorded with %#v, want an empty list", a.Capabilities)
		}

		call("test_error_handling", map[string]any{}).result(t, nil)
		a = byTarget("test_error_handling", record.OutcomeToolError)
		check(a, modern, "raw-2026-client", "7.1")
		if a.Detail == "" {
			t.Errorf("isError record without detail: %+v", a)
		}

		call("no_such_tool", map[string]any{}).wantError(t, http.StatusBadRequest, codeInvalidParams)
		a = byTarget("no_such_tool", record.OutcomeError)
		check(a, modern, "raw-2026-client", "7.1")
		if a.ErrorCode != codeInvalidParams || !strings.Contains(a.Detail, "unknown tool") {
			t.Errorf("error record: %+v", a)
		}

		call("test_input_required_result_elicitation", everyCapability).result(t, nil)
		a = byTarget("test_input_required_result_elicitation", record.OutcomeInputRequired)
		check(a, modern, "raw-2026-client", "7.1")
		if !strings.HasPrefix(a.Detail, "asks for ") {
			t.Errorf("input_required record: %+v", a)
		}
		if got := strings.Join(a.Capabilities, ", "); got != "forms, sampling, roots" {
			t.Errorf("declared capabilities recorded as %q, want forms, sampling, roots", got)
		}

		var read struct{}
		e.send(t, e.modern("resources/read", map[string]any{"uri": "test://static-text"}).as(token).Request).result(t, &read)
		if a := byTarget("test://static-text", record.OutcomeOK); a.Method != "resources/read" || a.Era != modern || a.Token != "laptop" {
			t.Errorf("resources/read record: %+v", a)
		}
	})

	t.Run(legacy, func(t *testing.T) {
		cs := e.connect(t, legacy, nil, token)
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_error_handling"}); err != nil {
			t.Fatal(err)
		}
		a := sink.find(t, "the legacy call", func(a record.Activity) bool { return a.Target == "test_error_handling" && a.Era == legacy })
		check(a, legacy, "mcpcore-integration-test", "1")
		if a.Outcome != record.OutcomeToolError {
			t.Errorf("legacy isError record: %+v", a)
		}
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "no_such_prompt"}); err == nil {
			t.Fatal("getting an unknown prompt succeeded")
		}
		a = sink.find(t, "the legacy error", func(a record.Activity) bool { return a.Target == "no_such_prompt" })
		check(a, legacy, "mcpcore-integration-test", "1")
		if a.Outcome != record.OutcomeError || a.ErrorCode == 0 {
			t.Errorf("legacy error record: %+v", a)
		}
		init := sink.find(t, "initialize", func(a record.Activity) bool { return a.Method == "initialize" })
		check(init, legacy, "mcpcore-integration-test", "1")
		if init.Capabilities == nil || !slices.Equal(init.Capabilities, a.Capabilities) {
			t.Errorf("the session's requests carry capabilities %#v, its initialize %#v: want the same, declared", a.Capabilities, init.Capabilities)
		}
	})

	t.Run("listen is recorded when it ends", func(t *testing.T) {
		r := e.modern("subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}}).as(token)
		s := e.open(t, r.Request)
		s.nextMessage(t) // the acknowledgement
		for _, a := range sink.all() {
			if a.Method == "subscriptions/listen" {
				t.Fatalf("listen recorded while open: %+v", a)
			}
		}
		e.eng.Shutdown()
		wantFinalResult(t, s, r.id)
		a := sink.find(t, "listen", func(a record.Activity) bool { return a.Method == "subscriptions/listen" })
		if a.Era != modern || a.Token != "laptop" || a.Outcome != record.OutcomeOK {
			t.Errorf("listen record: %+v", a)
		}
	})

	for _, a := range sink.all() {
		if strings.HasPrefix(a.Method, "notifications/") {
			t.Errorf("a notification was recorded: %+v", a)
		}
	}
}

func TestCommandStructuredOutput(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"},"name":{"type":"string"}},"required":["n","name"]}`)
	tool := func(name, out string) catalog.Tool {
		tl := testcatalog.CommandTool(name, "printf", "%s", catalog.Template(out))
		tl.OutputSchema = schema
		return tl
	}
	e := newEnv(t, envOptions{extra: &catalog.Catalog{Tools: []catalog.Tool{
		tool("json_ok", "  {\"n\": 3, \"name\": \"three\"}\n"),
		tool("json_wrong_type", `{"n": "three", "name": "three"}`),
		tool("json_missing", `{"n": 3}`),
		tool("not_json", "three"),
	}}})
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			cs := e.connect(t, era, nil, "")
			call := func(name string) *mcp.CallToolResult {
				t.Helper()
				res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: name})
				if err != nil {
					t.Fatalf("calling %s: %v (a mismatch must be a tool error, not a protocol error)", name, err)
				}
				return res
			}
			res := call("json_ok")
			if res.IsError || field(res.StructuredContent, "n") != 3.0 || field(res.StructuredContent, "name") != "three" {
				t.Errorf("json_ok: isError %v, structured %v", res.IsError, res.StructuredContent)
			}
			if got := resultText(res); got != `{"n":3,"name":"three"}` {
				t.Errorf("json_ok text %q, want the JSON itself", got)
			}
			for name, want := range map[string]string{"json_wrong_type": "n", "json_missing": "name", "not_json": "not JSON"} {
				res := call(name)
				if !res.IsError || res.StructuredContent != nil || !strings.Contains(resultText(res), "output") || !strings.Contains(resultText(res), want) {
					t.Errorf("%s: isError %v, structured %v, %q; want an isError naming %q", name, res.IsError, res.StructuredContent, resultText(res), want)
				}
			}
		})
	}
}

// TestActivityBurst: every call of a burst is recorded, once.
func TestActivityBurst(t *testing.T) {
	sink := &memActivity{}
	e := newEnv(t, envOptions{activity: sink})
	const calls, workers = 1000, 16
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < calls; i += workers {
				// Not e.send: it may call t.Fatal, which only the test's goroutine may.
				resp, err := httpClient.Do(e.modern("tools/call", map[string]any{"name": "test_simple_text"}).Request)
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("call %d: HTTP %d", i, resp.StatusCode)
				}
			}
		})
	}
	wg.Wait()
	n := 0
	for _, a := range sink.all() {
		if a.Method == "tools/call" && a.Target == "test_simple_text" && a.Outcome == record.OutcomeOK {
			n++
		}
	}
	if n != calls {
		t.Errorf("%d records of %d calls", n, calls)
	}
}

// TestActivityRecordsRejections: requests turned away before go-sdk — a
// missing or wrong token, a foreign Origin, an oversized body — are logged,
// since failed attempts are what a person auditing the log looks for.
func TestActivityRecordsRejections(t *testing.T) {
	sink := &memActivity{}
	e := newEnv(t, envOptions{auth: true, activity: sink})
	token, err := e.st.CreateToken(testCtx(t), "laptop", nil)
	if err != nil {
		t.Fatal(err)
	}
	e.send(t, e.modern("tools/list", nil).Request)
	e.send(t, e.modern("tools/list", nil).as("mcpt_wrong").Request)
	foreign := e.modern("tools/list", nil).as(token)
	foreign.Header.Set("Origin", "http://evil.example.com")
	e.send(t, foreign.Request)
	big := e.post(bytes.Repeat([]byte(" "), 5<<20))
	big.Header.Set("Authorization", "Bearer "+token)
	e.send(t, big)
	for _, want := range []string{"401 Unauthorized: missing bearer token", "401 Unauthorized: invalid bearer token", "403 Forbidden: Origin", "413 Request Entity Too Large"} {
		a := sink.find(t, want, func(a record.Activity) bool { return strings.HasPrefix(a.Detail, want) })
		if a.Outcome != record.OutcomeError || a.Method != "HTTP POST" || a.Target != catalog.EndpointPath {
			t.Errorf("%s: record %+v", want, a)
		}
		if strings.Contains(a.Detail, "mcpt_wrong") {
			t.Errorf("a token leaked into the activity log: %q", a.Detail)
		}
	}
}

// TestActivityWithoutParams: a request with no params at all (a bare ping,
// sessionless or in a session) is answered and recorded — its params are a
// typed nil, which must not crash the recorder.
func TestActivityWithoutParams(t *testing.T) {
	sink := &memActivity{}
	e := newEnv(t, envOptions{activity: sink})
	bare := []byte(`{"jsonrpc":"2.0","id":41,"method":"ping"}`)
	e.send(t, e.post(bare)).result(t, nil)
	r := e.post([]byte(`{"jsonrpc":"2.0","id":42,"method":"ping"}`))
	r.Header.Set("Mcp-Session-Id", e.initialize(t))
	r.Header.Set("MCP-Protocol-Version", legacy)
	e.send(t, r).result(t, nil)
	sink.find(t, "two pings", func(record.Activity) bool {
		n := 0
		for _, a := range sink.all() {
			if a.Method == "ping" {
				n++
			}
		}
		return n >= 2
	})
}

// panickyAsker panics on every question: a stand-in for a bug anywhere
// below a handler.
type panickyAsker struct{}

func (panickyAsker) Ask(context.Context, mcpcore.Question) (mcpcore.Answer, error) { panic("boom") }

// TestPanicInAHandlerIsContained: a panic while handling one call answers
// that call with -32603 and the server keeps serving.
func TestPanicInAHandlerIsContained(t *testing.T) {
	e := newEnv(t, envOptions{asker: panickyAsker{}, extra: &catalog.Catalog{Tools: []catalog.Tool{{
		Name: "guarded", Description: "asks for an approval", Approval: catalog.ApprovalAlways,
		Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "done"}}}},
	}}}})
	rep := toolCall{name: "guarded"}.send(t, e)
	if m := rep.response(t); m.Error == nil || m.Error.Code != -32603 {
		t.Errorf("a panicking call answered %v, want -32603", rep)
	}
	completed(t, toolCall{name: "test_simple_text"}.send(t, e))
}
