package app

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
)

// getPrompt gets a prompt over MCP and joins its text messages as "role: text" lines.
func (s *served) getPrompt(t *testing.T, name string, args map[string]string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs := s.connect(ctx, t)
	defer cs.Close()
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return "", err
	}
	var lines []string
	for _, m := range res.Messages {
		if tc, ok := m.Content.(*mcp.TextContent); ok {
			lines = append(lines, string(m.Role)+": "+tc.Text)
		}
	}
	return strings.Join(lines, "\n"), nil
}

func TestPromptEditorCreatesAServedPrompt(t *testing.T) {
	m, s := newTestManager(t)
	m.NewPrompt()
	e := m.promptEditor

	test.Type(e.name, "greet")
	test.Type(e.description, "Greets someone.")
	e.addArg(catalog.PromptArgument{})
	a := e.args[0]
	test.Type(a.name, "who")
	test.Type(a.desc, "whom to greet")
	test.Type(a.completions, "Ada, Grace")
	test.Tap(a.required)
	if len(e.messages.items) != 1 || promptRoles.valueOf(e.messages.items[0].role.Selected) != "user" {
		t.Fatalf("a new prompt starts with %d message(s)", len(e.messages.items))
	}
	test.Type(e.messages.items[0].text.entry, "Say hello to {{.args.who}}.")
	test.Tap(e.save)

	if !strings.HasPrefix(e.status.Text, "Saved") {
		t.Fatalf("status %q; errors %v", e.status.Text, shownErrors(e.errs))
	}
	got, err := s.st.Prompt(context.Background(), "greet")
	if err != nil {
		t.Fatalf("not in SQLite: %v", err)
	}
	if len(got.Arguments) != 1 || !got.Arguments[0].Required || got.Arguments[0].Description != "whom to greet" ||
		strings.Join(got.Arguments[0].Completions, "|") != "Ada|Grace" {
		t.Fatalf("stored arguments %+v", got.Arguments)
	}
	testutil.EventuallyShows(t, "prompts/get over HTTP", func() (bool, string) {
		txt, err := s.getPrompt(t, "greet", map[string]string{"who": "Ada"})
		if err != nil {
			return false, err.Error()
		}
		return txt == "user: Say hello to Ada.", txt
	})
	// The required argument is enforced by the server.
	if _, err := s.getPrompt(t, "greet", nil); err == nil || !strings.Contains(err.Error(), "who") {
		t.Fatalf("prompts/get without who: %v", err)
	}
	if len(m.prompts.all) != 1 || m.prompts.all[0].key != "greet" || m.promptEditor != e {
		t.Fatalf("list %+v, editor replaced %v", m.prompts.all, m.promptEditor != e)
	}
}

func TestPromptEditorRefusesAnInvalidName(t *testing.T) {
	m, s := newTestManager(t)
	m.NewPrompt()
	e := m.promptEditor
	if e.errs["name"].Visible() {
		t.Fatal("an empty new name is scolded before anything was typed")
	}
	test.Type(e.name, "bad name")
	if l := e.errs["name"]; !l.Visible() || !strings.Contains(l.Text, "not allowed") {
		t.Fatalf("no live error next to the name (visible %v, %q)", l.Visible(), l.Text)
	}
	test.Type(e.description, "d")
	test.Type(e.messages.items[0].text.entry, "hi")
	test.Tap(e.save)
	if shown := shownErrors(e.errs); len(shown) != 1 || shown["name"] == "" {
		t.Fatalf("errors shown: %v", shown)
	}
	cat, err := s.st.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Prompts) != 0 {
		t.Fatalf("saved anyway: %+v", cat.Prompts)
	}
	e.name.SetText("")
	test.Type(e.name, "good.name")
	if e.errs["name"].Visible() {
		t.Fatalf("error still shown: %q", e.errs["name"].Text)
	}
}

func TestPromptEditorNamesTheRowOfAProblem(t *testing.T) {
	m, _ := newTestManager(t)
	m.NewPrompt()
	e := m.promptEditor
	test.Type(e.name, "p")
	test.Type(e.description, "d")
	e.addArg(catalog.PromptArgument{Name: "x"})
	e.addArg(catalog.PromptArgument{Name: "x"})
	test.Tap(e.save)
	shown := shownErrors(e.errs)
	if !strings.Contains(shown["arguments"], `argument "x" (name): duplicate`) {
		t.Errorf("arguments error %q", shown["arguments"])
	}
	if l := e.messages.items[0].err; !l.Visible() || l.Text != "content.text: empty: write the message" {
		t.Errorf("the message card's error %q", l.Text)
	}
}

func TestPromptEditorKeepsStepsAndReorders(t *testing.T) {
	m, s := newTestManager(t)
	ctx := context.Background()
	p := catalog.Prompt{
		Name: "plan", Description: "Plans a day.",
		Steps: []catalog.InputStep{{Key: "mood", Kind: catalog.StepForm, Message: "How do you feel?",
			Schema: json.RawMessage(`{"type":"object","properties":{"mood":{"type":"string"}}}`)}},
		Messages: []catalog.PromptMessage{
			{Role: "user", Content: catalog.Content{Type: "text", Text: "first"}},
			{Role: "assistant", Content: catalog.Content{Type: "resource_link", URI: "notes://x", Name: "x"}},
			{Role: "user", Content: catalog.Content{Type: "text", Text: "third"}},
		},
	}
	if err := s.st.PutPrompt(ctx, p); err != nil {
		t.Fatal(err)
	}
	m.reloadEntries()
	m.prompts.list.Select(0)
	e := m.promptEditor
	if e == nil || e.name.Text != "plan" {
		t.Fatalf("selecting plan opened %+v", e)
	}
	if link := e.messages.items[1]; link.kind.Selected != "Resource link" || link.uri.Text != "notes://x" || link.textBox.Visible() {
		t.Fatal("a resource link is not shown as one")
	}
	if len(e.steps.items) != 1 || e.steps.items[0].key.Text != "mood" || e.steps.items[0].inTaskBox.Visible() ||
		slices.Contains(e.steps.items[0].kind.Options, stepKindChoices.labelOf(catalog.StepApproval)) || !e.steps.items[0].answeredBy.Disabled() {
		t.Fatal("the prompt's step is not in a prompt's steps editor (no approvals, no tasks, the client answers)")
	}

	// Move the third message to the top, drop the link, retitle, save.
	third := e.messages.items[2]
	test.Tap(third.up)
	test.Tap(third.up)
	test.Tap(e.messages.items[2].remove)
	e.messages.items[1].role.SetSelected(promptRoles.labelOf("assistant"))
	test.Type(e.title, "Plan")
	if !e.Save() {
		t.Fatalf("save: %v", shownErrors(e.errs))
	}
	got, err := s.st.Prompt(ctx, "plan")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Steps) != 1 || got.Steps[0].Key != "mood" || string(got.Steps[0].Schema) != string(p.Steps[0].Schema) {
		t.Fatalf("steps lost: %+v", got.Steps)
	}
	if got.Title != "Plan" || len(got.Messages) != 2 || got.Messages[0].Content.Text != "third" ||
		got.Messages[1].Content.Text != "first" || got.Messages[1].Role != "assistant" {
		t.Fatalf("stored messages %+v", got.Messages)
	}
}

func TestPromptEditorImageMessage(t *testing.T) {
	m, s := newTestManager(t)
	m.NewPrompt()
	e := m.promptEditor
	test.Type(e.name, "describe")
	test.Type(e.description, "Describes a picture.")
	test.Type(e.messages.items[0].text.entry, "What is in this picture?")
	e.addMessage(catalog.PromptMessage{Role: "user", Content: catalog.Content{Type: "text"}})
	img := e.messages.items[1]
	img.kind.SetSelected("Image")
	img.source.SetSelected(mediaInline)
	test.Type(img.data, "iVBORw0KGgo=")
	test.Type(img.mimeType, "image/png")
	if !e.Save() {
		t.Fatalf("not saved: %v", shownErrors(e.errs))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var res *mcp.GetPromptResult
	testutil.Eventually(t, "the prompt to be served", func() bool {
		cs := s.connect(ctx, t)
		defer cs.Close()
		var err error
		res, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "describe"})
		return err == nil
	})
	if len(res.Messages) != 2 {
		t.Fatalf("%d messages", len(res.Messages))
	}
	if im, ok := res.Messages[1].Content.(*mcp.ImageContent); !ok || im.MIMEType != "image/png" {
		t.Fatalf("the second message is %T %+v", res.Messages[1].Content, res.Messages[1].Content)
	}
}
