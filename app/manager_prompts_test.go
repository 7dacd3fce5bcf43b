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

	"github.com/mcptray/mcptray/app/editor"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
)

func TestPromptEditorCreatesAServedPrompt(t *testing.T) {
	m, s := newTestManager(t)
	m.NewPrompt()
	e := m.promptEditor

	test.Type(e.Name, "greet")
	test.Type(e.Description, "Greets someone.")
	e.AddArg(catalog.PromptArgument{})
	a := e.Args[0]
	test.Type(a.Name, "who")
	test.Type(a.Desc, "whom to greet")
	test.Type(a.Completions, "Ada, Grace")
	test.Tap(a.Required)
	if len(e.Messages.Items) != 1 || editor.PromptRoles.ValueOf(e.Messages.Items[0].Role.Selected) != "user" {
		t.Fatalf("a new prompt starts with %d message(s)", len(e.Messages.Items))
	}
	test.Type(e.Messages.Items[0].Text.Entry, "Say hello to {{.args.who}}.")
	test.Tap(e.SaveButton)

	if !strings.HasPrefix(e.Status.Text, "Saved") {
		t.Fatalf("status %q; errors %v", e.Status.Text, e.Errs.Shown())
	}
	got, err := s.St.Prompt(context.Background(), "greet")
	if err != nil {
		t.Fatalf("not in SQLite: %v", err)
	}
	if len(got.Arguments) != 1 || !got.Arguments[0].Required || got.Arguments[0].Description != "whom to greet" ||
		strings.Join(got.Arguments[0].Completions, "|") != "Ada|Grace" {
		t.Fatalf("stored arguments %+v", got.Arguments)
	}
	testutil.EventuallyShows(t, "prompts/get over HTTP", func() (bool, string) {
		txt, err := s.GetPrompt(t, "greet", map[string]string{"who": "Ada"})
		if err != nil {
			return false, err.Error()
		}
		return txt == "user: Say hello to Ada.", txt
	})
	// The required argument is enforced by the server.
	if _, err := s.GetPrompt(t, "greet", nil); err == nil || !strings.Contains(err.Error(), "who") {
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
	if e.Errs["name"].Visible() {
		t.Fatal("an empty new name is scolded before anything was typed")
	}
	test.Type(e.Name, "bad name")
	if l := e.Errs["name"]; !l.Visible() || !strings.Contains(l.Text, "not allowed") {
		t.Fatalf("no live error next to the name (visible %v, %q)", l.Visible(), l.Text)
	}
	test.Type(e.Description, "d")
	test.Type(e.Messages.Items[0].Text.Entry, "hi")
	test.Tap(e.SaveButton)
	if shown := e.Errs.Shown(); len(shown) != 1 || shown["name"] == "" {
		t.Fatalf("errors shown: %v", shown)
	}
	cat, err := s.St.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Prompts) != 0 {
		t.Fatalf("saved anyway: %+v", cat.Prompts)
	}
	e.Name.SetText("")
	test.Type(e.Name, "good.name")
	if e.Errs["name"].Visible() {
		t.Fatalf("error still shown: %q", e.Errs["name"].Text)
	}
}

func TestPromptEditorNamesTheRowOfAProblem(t *testing.T) {
	m, _ := newTestManager(t)
	m.NewPrompt()
	e := m.promptEditor
	test.Type(e.Name, "p")
	test.Type(e.Description, "d")
	e.AddArg(catalog.PromptArgument{Name: "x"})
	e.AddArg(catalog.PromptArgument{Name: "x"})
	test.Tap(e.SaveButton)
	shown := e.Errs.Shown()
	if !strings.Contains(shown["arguments"], `argument "x" (name): duplicate`) {
		t.Errorf("arguments error %q", shown["arguments"])
	}
	if l := e.Messages.Items[0].Err; !l.Visible() || l.Text != "content.text: empty: write the message" {
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
	if err := s.St.PutPrompt(ctx, p); err != nil {
		t.Fatal(err)
	}
	m.reloadEntries()
	m.prompts.list.Select(0)
	e := m.promptEditor
	if e == nil || e.Name.Text != "plan" {
		t.Fatalf("selecting plan opened %+v", e)
	}
	if link := e.Messages.Items[1]; link.Kind.Selected != "Resource link" || link.Uri.Text != "notes://x" || link.TextBox.Visible() {
		t.Fatal("a resource link is not shown as one")
	}
	if len(e.Steps.Items) != 1 || e.Steps.Items[0].Key.Text != "mood" || e.Steps.Items[0].InTaskBox.Visible() ||
		slices.Contains(e.Steps.Items[0].Kind.Options, editor.StepKindChoices.LabelOf(catalog.StepApproval)) || !e.Steps.Items[0].AnsweredBy.Disabled() {
		t.Fatal("the prompt's step is not in a prompt's steps editor (no approvals, no tasks, the client answers)")
	}

	// Move the third message to the top, drop the link, retitle, save.
	third := e.Messages.Items[2]
	test.Tap(third.Up)
	test.Tap(third.Up)
	test.Tap(e.Messages.Items[2].Remove)
	e.Messages.Items[1].Role.SetSelected(editor.PromptRoles.LabelOf("assistant"))
	test.Type(e.Title, "Plan")
	if !e.Save() {
		t.Fatalf("save: %v", e.Errs.Shown())
	}
	got, err := s.St.Prompt(ctx, "plan")
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
	test.Type(e.Name, "describe")
	test.Type(e.Description, "Describes a picture.")
	test.Type(e.Messages.Items[0].Text.Entry, "What is in this picture?")
	e.AddMessage(catalog.PromptMessage{Role: "user", Content: catalog.Content{Type: "text"}})
	img := e.Messages.Items[1]
	img.Kind.SetSelected("Image")
	img.Source.SetSelected(editor.MediaInline)
	test.Type(img.Data, "iVBORw0KGgo=")
	test.Type(img.MimeType, "image/png")
	if !e.Save() {
		t.Fatalf("not saved: %v", e.Errs.Shown())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var res *mcp.GetPromptResult
	testutil.Eventually(t, "the prompt to be served", func() bool {
		cs := s.Connect(ctx, t)
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
