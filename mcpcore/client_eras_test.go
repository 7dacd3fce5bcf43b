package mcpcore_test

//lint:file-ignore SA1019 the 2025-11-25 clients under test use logging, sampling and roots, which go-sdk marks deprecated as of 2026-07-28 (SEP-2577).

// The official go-sdk client against the real engine, in both eras.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// loggingTool logs three messages tagged with its argument, so a test can
// tell the messages of one call from another's.
var loggingTool = catalog.Tool{
	Name:        "tagged_logging",
	Description: "Logs three info messages carrying its tag.",
	Params:      []catalog.Param{{Name: "tag", Type: "string", Required: true}},
	Action: catalog.Action{Respond: &catalog.Respond{
		Content: []catalog.Content{{Type: "text", Text: "logged {{.args.tag}}"}},
		Steps: []catalog.Step{
			{Log: &catalog.LogStep{Level: "info", Data: "{{.args.tag}} 1"}},
			{Log: &catalog.LogStep{Level: "info", Data: "{{.args.tag}} 2"}},
			{Log: &catalog.LogStep{Level: "info", Data: "{{.args.tag}} 3"}},
		},
	}},
}

// notes collects what a go-sdk client's notification handlers receive.
type notes struct {
	mu       sync.Mutex
	progress []*mcp.ProgressNotificationParams
	logs     []string
}

func (n *notes) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			n.mu.Lock()
			defer n.mu.Unlock()
			n.progress = append(n.progress, r.Params)
		},
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			n.mu.Lock()
			defer n.mu.Unlock()
			n.logs = append(n.logs, fmt.Sprint(r.Params.Data))
		},
	}
}

func (n *notes) snapshot() ([]*mcp.ProgressNotificationParams, []string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.progress), slices.Clone(n.logs)
}

func TestClientBothEras(t *testing.T) {
	e := newEnv(t, envOptions{extra: &catalog.Catalog{Tools: []catalog.Tool{loggingTool}}})
	want := conformanceCatalog(t)
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			var n notes
			cs := e.connect(t, era, newClient(n.options()), "")
			ctx := testCtx(t)

			t.Run("tools/list", func(t *testing.T) {
				var got []string
				for tool, err := range cs.Tools(ctx, nil) {
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, tool.Name)
				}
				for _, tool := range want.Tools {
					if !slices.Contains(got, tool.Name) {
						t.Errorf("tools/list lacks %q", tool.Name)
					}
				}
				if len(got) != len(want.Tools)+1 {
					t.Errorf("tools/list has %d tools, want %d: %v", len(got), len(want.Tools)+1, got)
				}
			})

			t.Run("tools/call", func(t *testing.T) {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text"})
				if err != nil {
					t.Fatal(err)
				}
				if got := text(t, res); got != "This is a simple text response for testing." || res.IsError {
					t.Errorf("test_simple_text = %q (isError %v)", got, res.IsError)
				}
				res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_error_handling"})
				if err != nil {
					t.Fatal(err)
				}
				if !res.IsError {
					t.Errorf("test_error_handling: isError false, want true")
				}
			})

			t.Run("progress", func(t *testing.T) {
				params := &mcp.CallToolParams{Name: "test_tool_with_progress"}
				token := "progress-" + era
				params.SetProgressToken(token)
				res, err := cs.CallTool(ctx, params)
				if err != nil {
					t.Fatal(err)
				}
				if got := text(t, res); got != "Progress test completed" {
					t.Errorf("result %q", got)
				}
				// The go-sdk client may return from CallTool before running its
				// last notification handler (a client-side race); the order on
				// the wire is checked in TestWireNotificationsPrecedeResult.
				testutil.Eventually(t, "3 progress notifications", func() bool { p, _ := n.snapshot(); return len(p) >= 3 })
				got, _ := n.snapshot()
				var values []float64
				for _, p := range got {
					if p.ProgressToken != token {
						t.Errorf("progress token %v, want %q", p.ProgressToken, token)
					}
					values = append(values, p.Progress)
				}
				if !slices.Equal(values, []float64{0, 50, 100}) {
					t.Errorf("progress values %v, want [0 50 100] in order", values)
				}
			})

			t.Run("logging", func(t *testing.T) {
				call := func(tag string, meta mcp.Meta) {
					t.Helper()
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Meta: meta, Name: loggingTool.Name, Arguments: map[string]any{"tag": tag}})
					if err != nil {
						t.Fatal(err)
					}
					if got := text(t, res); got != "logged "+tag {
						t.Fatalf("result %q", got)
					}
				}
				call("unasked", nil)
				if era == legacy {
					if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
						t.Fatal(err)
					}
					call("asked", nil)
				} else {
					call("asked", mcp.Meta{metaLogLevel: "info"})
				}
				testutil.Eventually(t, "3 log messages", func() bool { _, l := n.snapshot(); return len(l) >= 3 })
				_, logs := n.snapshot()
				if want := []string{"asked 1", "asked 2", "asked 3"}; !slices.Equal(logs, want) {
					t.Errorf("log messages %q, want %q (none for the call that asked no level)", logs, want)
				}
			})

			t.Run("prompts/get", func(t *testing.T) {
				res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "alpha", "arg2": "beta"}})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Messages) != 1 {
					t.Fatalf("want 1 message, got %d", len(res.Messages))
				}
				tc, ok := res.Messages[0].Content.(*mcp.TextContent)
				if !ok || tc.Text != "Prompt with arguments: arg1='alpha', arg2='beta'" || res.Messages[0].Role != "user" {
					t.Errorf("prompt message %+v", res.Messages[0])
				}
			})

			t.Run("resources/read", func(t *testing.T) {
				read := func(uri string) *mcp.ResourceContents {
					t.Helper()
					res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
					if err != nil {
						t.Fatalf("reading %s: %v", uri, err)
					}
					if len(res.Contents) != 1 {
						t.Fatalf("%s: want 1 content, got %d", uri, len(res.Contents))
					}
					return res.Contents[0]
				}
				if c := read("test://static-text"); c.Text != "This is the content of the static text resource." || c.MIMEType != "text/plain" {
					t.Errorf("static-text: %+v", c)
				}
				png, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
				if c := read("test://static-binary"); string(c.Blob) != string(png) || c.MIMEType != "image/png" || c.Text != "" {
					t.Errorf("static-binary: mime %q, %d blob bytes, text %q", c.MIMEType, len(c.Blob), c.Text)
				}
				c := read("test://template/42/data")
				if c.URI != "test://template/42/data" || !strings.Contains(c.Text, `"id":"42"`) || !strings.Contains(c.Text, "Data for ID: 42") {
					t.Errorf("template: %+v", c)
				}
			})

			t.Run("completion", func(t *testing.T) {
				complete := func(ref *mcp.CompleteReference, arg, value string) []string {
					t.Helper()
					res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}})
					if err != nil {
						t.Fatal(err)
					}
					return res.Completion.Values
				}
				if got := complete(&mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"}, "arg1", "testi"); !slices.Equal(got, []string{"testing"}) {
					t.Errorf("prompt completion %q, want [testing]", got)
				}
				if got := complete(&mcp.CompleteReference{Type: "ref/resource", URI: "test://template/{id}/data"}, "id", "4"); !slices.Equal(got, []string{"456"}) {
					t.Errorf("template completion %q, want [456]", got)
				}
			})
		})
	}
}

// answers is a go-sdk client that answers every kind of input step and
// counts the questions it was asked.
type answers struct {
	mu      sync.Mutex
	elicits []string // the messages, in the order asked
	samples int
}

func (a *answers) client() *mcp.Client {
	c := newClient(&mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			a.mu.Lock()
			a.elicits = append(a.elicits, r.Params.Message)
			a.mu.Unlock()
			switch r.Params.Message {
			case "What is your name?":
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
			case "What is your favourite colour?":
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"color": "blue"}}, nil
			}
			return nil, fmt.Errorf("unexpected question %q", r.Params.Message)
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			a.mu.Lock()
			a.samples++
			a.mu.Unlock()
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test-model", Content: &mcp.TextContent{Text: "Paris"}}, nil
		},
	})
	c.AddRoots(&mcp.Root{URI: "file:///work", Name: "work"})
	return c
}

func (a *answers) asked() ([]string, int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.elicits), a.samples
}

// TestClientCompletesInputSteps: the go-sdk client answers input steps by
// itself — as input_required rounds in 2026, as server→client requests in a
// 2025-11-25 session — through every round of a multi-round tool.
func TestClientCompletesInputSteps(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			ctx := testCtx(t)
			t.Run("multi_round", func(t *testing.T) {
				var a answers
				cs := e.connect(t, era, a.client(), "")
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_multi_round"})
				if err != nil {
					t.Fatal(err)
				}
				if got := text(t, res); got != "Ada likes blue" {
					t.Errorf("result %q, want %q", got, "Ada likes blue")
				}
				elicits, _ := a.asked()
				if want := []string{"What is your name?", "What is your favourite colour?"}; !slices.Equal(elicits, want) {
					t.Errorf("elicitation handler asked %q, want %q (once per round)", elicits, want)
				}
			})
			t.Run("form_sampling_roots", func(t *testing.T) {
				var a answers
				cs := e.connect(t, era, a.client(), "")
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_input_required_result_multiple_inputs"})
				if err != nil {
					t.Fatal(err)
				}
				want := `Hello Ada; the model said Paris; roots [{"name":"work","uri":"file:///work"}]`
				if got := text(t, res); got != want {
					t.Errorf("result %q, want %q", got, want)
				}
				if elicits, samples := a.asked(); len(elicits) != 1 || samples != 1 {
					t.Errorf("asked %d forms and %d samples, want 1 and 1", len(elicits), samples)
				}
			})
			t.Run("prompt", func(t *testing.T) {
				cs := e.connect(t, era, newClient(&mcp.ClientOptions{
					ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"context": "tests"}}, nil
					},
				}), "")
				res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_input_required_result_prompt"})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Messages) != 1 {
					t.Fatalf("want 1 message, got %+v", res)
				}
				if tc, ok := res.Messages[0].Content.(*mcp.TextContent); !ok || tc.Text != "Context: tests" {
					t.Errorf("prompt message %+v", res.Messages[0].Content)
				}
			})
		})
	}
}

// TestWireNotificationsPrecedeResult reads the raw response streams of both
// eras: progress notifications come in order before the result, and log
// messages only when the request asked for a level.
func TestWireNotificationsPrecedeResult(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			var session string
			if era == legacy {
				session = e.initialize(t)
			}
			call := func(name string, meta map[string]any) *reply {
				t.Helper()
				params := map[string]any{"name": name, "arguments": map[string]any{}}
				if meta != nil {
					params["_meta"] = meta
				}
				rep := e.send(t, e.in(era, session, "tools/call", params).Request)
				rep.result(t, nil)
				return rep
			}

			rep := call("test_tool_with_progress", map[string]any{"progressToken": "wire"})
			var values []float64
			for _, raw := range rep.notifications("notifications/progress") {
				var p struct {
					ProgressToken any     `json:"progressToken"`
					Progress      float64 `json:"progress"`
				}
				if err := json.Unmarshal(raw, &p); err != nil {
					t.Fatal(err)
				}
				if p.ProgressToken != "wire" {
					t.Errorf("progress token %v, want \"wire\"", p.ProgressToken)
				}
				values = append(values, p.Progress)
			}
			if !slices.Equal(values, []float64{0, 50, 100}) {
				t.Errorf("progress on the wire %v, want [0 50 100] before the result", values)
			}

			if n := len(call("test_tool_with_logging", nil).notifications("notifications/message")); n != 0 {
				t.Errorf("%d log messages without a requested level, want none", n)
			}
			var asked *reply
			if era == legacy {
				e.send(t, e.legacy(session, "logging/setLevel", map[string]any{"level": "info"}).Request).result(t, nil)
				asked = call("test_tool_with_logging", nil)
			} else {
				asked = call("test_tool_with_logging", map[string]any{metaLogLevel: "info"})
			}
			if n := len(asked.notifications("notifications/message")); n != 3 {
				t.Errorf("%d log messages at level info, want 3 before the result", n)
			}
		})
	}
}
