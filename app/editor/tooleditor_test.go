package editor

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/app/tryit"
	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/examples"
	"github.com/mcptray/mcptray/internal/testcatalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/storage"
)

// newEditor opens the tool editor on t (isNew: not stored yet) over s's
// store, in a test window.
func newEditor(t *testing.T, st *storage.Store, tool catalog.Tool, isNew bool) *ToolEditor {
	t.Helper()
	e := NewToolEditor(st, tool, isNew, nil)
	w := test.NewTempWindow(t, e.Content())
	w.Resize(fyne.NewSize(900, 1400))
	return e
}

// fillBasics types a valid name, description and respond text.
func fillBasics(e *ToolEditor, name string) {
	test.Type(e.Name, name)
	test.Type(e.Description, "A tool made in a test.")
	test.Type(e.Blocks.Items[0].Text.Entry, "done")
}

func TestEditorStoresAnInputStep(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	e := newEditor(t, s.St, catalog.Tool{}, true)
	fillBasics(e, "ask_reason")
	e.Steps.Add(catalog.InputStep{})
	r := e.Steps.Items[0]
	test.Type(r.Key, "reason")
	r.Kind.SetSelected(StepKindChoices.LabelOf(catalog.StepForm))
	test.Type(r.message.Entry, "Why?")
	test.Type(r.form.raw, `{"type": "object", "properties": {"why": {"type": "string"}}}`)
	r.AnsweredBy.SetSelected("me, on this computer (desktop)")
	test.Type(r.round, "1")
	// The kind decides what shows.
	if !r.formBox.Visible() || r.urlBox.Visible() || r.samplingBox.Visible() {
		t.Fatalf("a form step shows form %v, url %v, sampling %v", r.formBox.Visible(), r.urlBox.Visible(), r.samplingBox.Visible())
	}
	if !e.Save() {
		t.Fatalf("not saved: %q %v, step: %q", e.Status.Text, e.Errs.Shown(), r.Err.Text)
	}
	got, err := s.St.Tool(context.Background(), "ask_reason")
	if err != nil {
		t.Fatalf("not in SQLite: %v", err)
	}
	want := catalog.InputStep{Key: "reason", Kind: catalog.StepForm, Round: 1, Message: "Why?", AnsweredBy: catalog.AnsweredByDesktop,
		Schema: json.RawMessage(`{"type":"object","properties":{"why":{"type":"string"}}}`)}
	if len(got.Steps) != 1 || !sameJSON(got.Steps[0], want) {
		t.Fatalf("stored steps %+v, want [%+v]", got.Steps, want)
	}
	// Reopened, the same tool is no unsaved change.
	e2 := newEditor(t, s.St, got, false)
	if e2.dirty() {
		t2, _ := e2.Tool()
		t.Fatalf("a freshly opened tool counts as changed:\nform  %+v\nstore %+v", t2, got)
	}
}

func TestEditorStepsMoveAndShowTheirFields(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	e := newEditor(t, s.St, catalog.Tool{}, true)
	e.Steps.Add(catalog.InputStep{Key: "first", Kind: catalog.StepApproval, Message: "OK?"})
	e.Steps.Add(catalog.InputStep{Key: "second", Kind: catalog.StepSampling, Message: "Summarize"})
	first, second := e.Steps.Items[0], e.Steps.Items[1]
	if !first.AnsweredBy.Disabled() || first.AnsweredBy.Selected != "me, on this computer (desktop)" || first.optionalBox.Visible() {
		t.Errorf("an approval: answeredBy %q (disabled %v), optional shown %v", first.AnsweredBy.Selected, first.AnsweredBy.Disabled(), first.optionalBox.Visible())
	}
	if !second.samplingBox.Visible() || second.AnsweredBy.Selected != "the AI app (client)" {
		t.Errorf("a sampling step: sampling fields %v, answeredBy %q", second.samplingBox.Visible(), second.AnsweredBy.Selected)
	}
	test.Tap(second.Up)
	if e.Steps.Items[0] != second || second.Title.Text != "Step 1" || !second.Up.Disabled() || !first.Down.Disabled() {
		t.Fatalf("after moving up: order %q,%q", e.Steps.Items[0].Key.Text, e.Steps.Items[1].Key.Text)
	}
	steps, _ := e.Steps.steps("")
	if steps[0].Key != "second" || steps[0].AnsweredBy != "" || steps[1].Key != "first" {
		t.Fatalf("steps %+v", steps)
	}
}

func TestEditorRefusesABadStepSchema(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	e := newEditor(t, s.St, catalog.Tool{}, true)
	fillBasics(e, "bad_step")
	e.Steps.Add(catalog.InputStep{Key: "ok", Kind: catalog.StepApproval, Message: "Go on?"})
	e.Steps.Add(catalog.InputStep{Kind: catalog.StepForm})
	r := e.Steps.Items[1]
	test.Type(r.Key, "details")
	test.Type(r.message.Entry, "Details please")
	test.Type(r.form.raw, "{\n  \"type\": \"object\",\n  \"properties\": {\"a\": }\n}")
	// Seen as it is typed, with where.
	if !r.schemaErr.Visible() || !strings.Contains(r.schemaErr.Text, "line 3, column") {
		t.Fatalf("live schema error %q (visible %v)", r.schemaErr.Text, r.schemaErr.Visible())
	}
	if e.Save() {
		t.Fatal("saved with a schema that is not JSON")
	}
	// Saving shows it once, under the schema, and counts it once.
	if !r.schemaErr.Visible() || !strings.Contains(r.schemaErr.Text, "line 3, column") || r.Err.Visible() {
		t.Fatalf("the schema's error line: %q (visible %v); the step's: %q", r.schemaErr.Text, r.schemaErr.Visible(), r.Err.Text)
	}
	if !strings.HasPrefix(e.Status.Text, "Not saved: 1 problem,") {
		t.Errorf("status %q", e.Status.Text)
	}
	if e.Steps.Items[0].Err.Visible() {
		t.Errorf("the good step shows %q", e.Steps.Items[0].Err.Text)
	}
	if _, err := s.St.Tool(context.Background(), "bad_step"); err == nil {
		t.Fatal("stored anyway")
	}

	// A schema that parses but is no form (nested object) is refused by
	// the server's own validation, next to the step too.
	r.form.raw.SetText(`{"type": "object", "properties": {"a": {"type": "object"}}}`)
	if e.Save() {
		t.Fatal("saved a nested form schema")
	}
	if !strings.Contains(r.schemaErr.Text, `property "a"`) {
		t.Fatalf("the schema's error line: %q", r.schemaErr.Text)
	}
}

func TestEditorRefusesAnInvalidRawInputSchema(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	e := newEditor(t, s.St, catalog.Tool{}, true)
	fillBasics(e, "raw_schema")
	test.Tap(e.schema.raw)
	if e.paramSection.Visible() || e.schema.input.Disabled() {
		t.Fatal("a hand-written schema still shows the parameters table, or cannot be typed in")
	}
	e.schema.input.SetText(`{"type": 5}`)
	// Checked as it is typed, once typing pauses.
	l := e.Errs["inputSchema"]
	e.schema.checks.Wait()
	if !l.Visible() {
		t.Fatal("the live check showed nothing")
	}
	ui.SetFieldError(l, nil)
	if e.Save() {
		t.Fatal(`saved {"type": 5}`)
	}
	if !l.Visible() || !strings.Contains(l.Text, "invalid JSON Schema") {
		t.Fatalf("under the schema: %q (visible %v); all: %v", l.Text, l.Visible(), e.Errs.Shown())
	}
	if _, err := s.St.Tool(context.Background(), "raw_schema"); err == nil {
		t.Fatal("stored anyway")
	}
	// A syntax error says where.
	e.schema.input.SetText("{\"type\": \"object\",}")
	if e.Save() || !strings.Contains(l.Text, "line 1, column 19") {
		t.Fatalf("under the schema: %q", l.Text)
	}
	e.schema.input.SetText(`{"type": "object", "properties": {"q": {"type": "string", "minLength": 2}}, "additionalProperties": false}`)
	if !e.Save() {
		t.Fatalf("a valid schema refused: %v", e.Errs.Shown())
	}
	got, err := s.St.Tool(context.Background(), "raw_schema")
	if err != nil || got.Params != nil || !strings.Contains(string(got.InputSchema), "minLength") {
		t.Fatalf("stored %+v, %v", got, err)
	}
	// Back to parameters is refused: minLength has no parameter form.
	test.Tap(e.schema.raw)
	if !e.schema.raw.Checked || !strings.Contains(e.schema.note.Text, "minLength") {
		t.Fatalf("switch %v, note %q", e.schema.raw.Checked, e.schema.note.Text)
	}
}

func TestEditorSwitchesBetweenParamsAndSchema(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	tool := testcatalog.RespondTool("search", "ok")
	tool.Params = []catalog.Param{{Name: "q", Type: "string", Required: true, Description: "what"},
		{Name: "tags", Type: "array", Items: "integer"}}
	e := newEditor(t, s.St, tool, true)
	if !e.schema.input.Disabled() || !strings.Contains(e.schema.input.Text, `"q"`) {
		t.Fatalf("generated schema %q (read-only %v)", e.schema.input.Text, e.schema.input.Disabled())
	}
	if !e.Params[1].itemsBox.Visible() || e.Params[0].itemsBox.Visible() {
		t.Error("items shows for the wrong parameter")
	}
	// The generated view follows the table.
	e.Params[0].desc.SetText("what to find")
	if !strings.Contains(e.schema.input.Text, "what to find") {
		t.Fatalf("generated schema not updated: %s", e.schema.input.Text)
	}
	tool.Params[0].Description = "what to find"
	test.Tap(e.schema.raw)
	got, _ := e.Tool()
	if got.Params != nil || !sameJSON(got.InputSchema, tool.InputSchemaJSON()) {
		t.Fatalf("converted: params %v, schema %s", got.Params, got.InputSchema)
	}
	test.Tap(e.schema.raw) // back: expressible, so accepted
	got, _ = e.Tool()
	if e.schema.raw.Checked || got.InputSchema != nil || len(e.Params) != 2 || !sameJSON(got.Params, tool.Params) {
		t.Fatalf("back to params: %+v", got.Params)
	}
}

func TestEditorTokenVisibility(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	ctx := context.Background()
	if err := s.St.PutTool(ctx, testcatalog.RespondTool("lookup", "ok")); err != nil {
		t.Fatal(err)
	}
	for name, tools := range map[string][]string{"everything": nil, "narrow": {"lookup", "other"}, "none": {}} {
		if _, err := s.St.CreateToken(ctx, name, tools); err != nil {
			t.Fatal(err)
		}
	}
	stored, err := s.St.Tool(ctx, "lookup")
	if err != nil {
		t.Fatal(err)
	}
	e := newEditor(t, s.St, stored, false)
	all := e.tokens.box.Objects
	if len(all) != 3 || len(e.tokens.checks) != 2 {
		t.Fatalf("%d boxes, %d restricted", len(all), len(e.tokens.checks))
	}
	narrow, none := e.tokens.checks["narrow"], e.tokens.checks["none"]
	if !narrow.Checked || none.Checked {
		t.Fatalf("narrow %v, none %v", narrow.Checked, none.Checked)
	}
	if e.dirty() {
		t.Fatal("dirty before any change")
	}
	test.Tap(narrow)
	test.Tap(none)
	if !e.dirty() {
		t.Fatal("a token change is no unsaved change")
	}
	if !e.Save() {
		t.Fatalf("not saved: %v", e.Errs.Shown())
	}
	tokens := func() map[string][]string {
		toks, err := s.St.ListTokens(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]string{}
		for _, tk := range toks {
			out[tk.Name] = tk.Tools
		}
		return out
	}
	got := tokens()
	if got["everything"] != nil || !slices.Equal(got["narrow"], []string{"other"}) || !slices.Equal(got["none"], []string{"lookup"}) {
		t.Fatalf("allowlists %v", got)
	}

	// Renamed, the tool stays in the allowlists it was in.
	e.Name.SetText("find")
	if !e.Save() {
		t.Fatalf("rename: %v", e.Errs.Shown())
	}
	got = tokens()
	if got["everything"] != nil || !slices.Equal(got["narrow"], []string{"other"}) || !slices.Equal(got["none"], []string{"find"}) {
		t.Fatalf("after renaming: %v", got)
	}
	// The last tool of an allowlist goes: the token then sees none, not all.
	test.Tap(e.tokens.checks["none"])
	if !e.Save() {
		t.Fatal(e.Errs.Shown())
	}
	if got = tokens(); got["none"] == nil || len(got["none"]) != 0 {
		t.Fatalf("the emptied allowlist is %#v", got["none"])
	}

	// An allowlist changed elsewhere (Settings) while the editor is open
	// keeps that change when the tool is saved with its box untouched.
	if err := s.St.SetTokenTools(ctx, "narrow", []string{"other", "find"}); err != nil {
		t.Fatal(err)
	}
	e.Description.SetText("Finds things.")
	if !e.Save() {
		t.Fatal(e.Errs.Shown())
	}
	if got = tokens(); len(got["narrow"]) != 2 || !slices.Contains(got["narrow"], "find") {
		t.Fatalf("saving the tool undid the allowlist changed in Settings: %v", got["narrow"])
	}
}

func TestEditorRefusesATakenName(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	ctx := context.Background()
	for _, name := range []string{"alpha", "beta"} {
		if err := s.St.PutTool(ctx, testcatalog.RespondTool(name, "x")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.St.CreateToken(ctx, "narrow", []string{"beta"}); err != nil {
		t.Fatal(err)
	}
	stored, err := s.St.Tool(ctx, "beta")
	if err != nil {
		t.Fatal(err)
	}
	e := newEditor(t, s.St, stored, false)
	e.Name.SetText("alpha")
	test.Tap(e.tokens.checks["narrow"])
	if e.Save() {
		t.Fatal("renamed onto another tool's name")
	}
	if got := e.Errs["name"].Text; got != `a tool named "alpha" exists already` || !strings.HasPrefix(e.Status.Text, "Not saved") {
		t.Fatalf("name error %q, status %q", got, e.Status.Text)
	}
	// Nothing of the save happened: the tool, its name, its tokens.
	if _, err := s.St.Tool(ctx, "beta"); err != nil {
		t.Fatalf("beta is gone: %v", err)
	}
	toks, err := s.St.ListTokens(ctx)
	if err != nil || len(toks) != 1 || !slices.Equal(toks[0].Tools, []string{"beta"}) {
		t.Fatalf("tokens %+v, %v", toks, err)
	}
}

func TestEditorTokenNotes(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	e := newEditor(t, s.St, catalog.Tool{}, true)
	if !strings.Contains(e.tokens.note.Text, "No client tokens") {
		t.Fatalf("note %q", e.tokens.note.Text)
	}
	// The app's own Try it token is not one a person manages.
	if _, err := tryit.New(s.St, func() string { return s.Url }); err != nil {
		t.Fatal(err)
	}
	e = newEditor(t, s.St, catalog.Tool{}, true)
	if len(e.tokens.box.Objects) != 0 || !strings.Contains(e.tokens.note.Text, "No client tokens") {
		t.Fatalf("the Try it token shows: %d boxes, note %q", len(e.tokens.box.Objects), e.tokens.note.Text)
	}
}

func TestEditorTryIt(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewAuthServed(t)
	tr := newTrier(t, s)
	e := newEditor(t, s.St, catalog.Tool{}, true)
	if e.tryBtn.Visible() || e.TryBox.Box.Visible() {
		t.Fatal("Try it shows without a trier")
	}
	e.SetTrier(TryItTrier(tr, s.Eng))
	p := e.Try
	if !e.tryBtn.Visible() || p.run.Text != "Save and run" {
		t.Fatalf("Try it visible %v, Run says %q", e.tryBtn.Visible(), p.run.Text)
	}
	test.Type(e.Name, "greet")
	test.Type(e.Description, "Greets.")
	e.AddParam(catalog.Param{Type: "string"})
	test.Type(e.Params[0].Name, "who")
	test.Type(e.Params[0].Def, "World")
	test.Type(e.Blocks.Items[0].Text.Entry, "Hello, {{.args.who}}!")
	// The arguments are a form made from the parameters, defaults filled
	// in; as JSON they say the same.
	if len(p.fields) != 1 || p.fields[0].Entry == nil || p.fields[0].Entry.Text != "World" {
		t.Fatalf("the arguments' form: %d fields", len(p.fields))
	}
	test.Tap(p.asJSON)
	if !strings.Contains(p.args.Text, `"who": "World"`) || p.formBox.Visible() {
		t.Fatalf("as JSON: %q (form shown %v)", p.args.Text, p.formBox.Visible())
	}

	// Not JSON: nothing runs, nothing is saved, and the form cannot come
	// back until it reads.
	p.args.SetText(`{"who": }`)
	test.Tap(p.run)
	if !p.argsErr.Visible() || !strings.Contains(p.argsErr.Text, "line 1, column") {
		t.Fatalf("arguments error %q", p.argsErr.Text)
	}
	if _, err := s.St.Tool(context.Background(), "greet"); err == nil {
		t.Fatal("saved though nothing ran")
	}
	test.Tap(p.asJSON)
	if !p.asJSON.Checked {
		t.Fatal("back to the form with arguments that do not read")
	}

	p.args.SetText(`{"who": "Ada"}`)
	test.Tap(p.run)
	p.Calls.Wait()
	if p.result.Text != "Hello, Ada!" {
		t.Fatalf("result %q; status %q", p.result.Text, e.Status.Text)
	}
	if !strings.Contains(p.response.Text, `"result"`) || !strings.Contains(p.request.Text, `"tools/call"`) {
		t.Fatalf("raw JSON:\nrequest %s\nresponse %s", p.request.Text, p.response.Text)
	}
	if p.run.Text != "Run" {
		t.Errorf("after saving, Run says %q", p.run.Text)
	}
	test.Tap(p.asJSON)
	if p.fields[0].Entry.Text != "Ada" {
		t.Fatalf("back in the form, who is %q", p.fields[0].Entry.Text)
	}
	// The next time the tool is opened, its last arguments are there.
	stored, err := s.St.Tool(context.Background(), "greet")
	if err != nil {
		t.Fatal(err)
	}
	again := newEditor(t, s.St, stored, false)
	if got := again.Try.fields[0].Entry.Text; got != "Ada" {
		t.Errorf("reopened, who is %q", got)
	}
	// A required field left empty is refused at its field.
	again.Try.fields[0].Entry.SetText("")
	again.Try.fields[0].required = true
	again.Try.fields[0].FormField.Required = true
	again.SetTrier(TryItTrier(tr, s.Eng))
	test.Tap(again.Try.run)
	if !strings.Contains(again.Try.result.Text, "1 field needs fixing") || !again.Try.fields[0].Problem.Visible() {
		t.Errorf("empty required argument: %q", again.Try.result.Text)
	}
	w := test.NewWindow(e.Content())
	w.Resize(fyne.NewSize(760, 760))
	test.Tap(e.tryBtn) // opens the panel and scrolls to it
	uitest.Capture(t, w, "tool-editor-try-it.png")
	w.Close()

	// A disabled tool is not called.
	if err := s.St.SetToolDisabled(context.Background(), "greet", true); err != nil {
		t.Fatal(err)
	}
	stored, _ = s.St.Tool(context.Background(), "greet")
	e2 := newEditor(t, s.St, stored, false)
	e2.SetTrier(TryItTrier(tr, s.Eng))
	test.Tap(e2.Try.run)
	if !strings.Contains(e2.Try.result.Text, "enable it first") || e2.Try.run.Disabled() {
		t.Fatalf("disabled tool: %q", e2.Try.result.Text)
	}
}

func TestEditorSaveAndRunRefusedRunsNothing(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewAuthServed(t)
	tr := newTrier(t, s)
	e := newEditor(t, s.St, catalog.Tool{}, true)
	e.SetTrier(TryItTrier(tr, s.Eng))
	test.Type(e.Name, "nodesc") // no description: Save refuses
	test.Tap(e.Try.run)
	if !strings.Contains(e.Try.result.Text, "could not be saved") || e.Try.run.Disabled() || e.Try.request.Text != "" {
		t.Fatalf("result %q, running %v", e.Try.result.Text, e.Try.run.Disabled())
	}
	if !e.Errs["description"].Visible() {
		t.Fatal("the problem is not shown at its field")
	}
}

func TestJSONSyntaxPositions(t *testing.T) {
	for text, want := range map[string]string{
		`{"a": 1,}`:          "line 1, column 9",
		"{\n  \"a\": tru\n}": "line 2, column 11",
		`{"a": 1} x`:         "line 1, column 10",
		`{"a": [1, 2`:        "line 1, column 12",
	} {
		err := ui.JsonSyntax(text)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want %s…", text, err, want)
		}
	}
	if err := ui.JsonSyntax(` {"ok": [1, "ü"]} `); err != nil {
		t.Errorf("valid JSON: %v", err)
	}
}

func TestSampleArgs(t *testing.T) {
	tool := catalog.Tool{Params: []catalog.Param{
		{Name: "z", Type: "integer", Required: true},
		{Name: "a", Type: "string", Enum: []any{"x", "y"}},
		{Name: "skip", Type: "string"},
		{Name: "d", Type: "boolean", Default: true},
	}}
	want := "{\n  \"a\": \"x\",\n  \"d\": true,\n  \"z\": 0\n}"
	if got := SampleArgs(tool.InputSchemaJSON()); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if got := SampleArgs(catalog.Tool{}.InputSchemaJSON()); got != "{}" {
		t.Fatalf("no params: %s", got)
	}
}

func TestEditorContentBlocks(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	e := newEditor(t, s.St, catalog.Tool{}, true)
	fillBasics(e, "pictures")
	test.Tap(e.isError)
	test.Type(e.structured.Entry, `{"city": "{{.args.city}}"`) // not closed yet

	add := func(kind string) *blockRow {
		e.Blocks.add(catalog.Content{Type: "text"})
		r := e.Blocks.Items[len(e.Blocks.Items)-1]
		r.Kind.SetSelected(kind)
		return r
	}
	link := add("Resource link")
	test.Type(link.Uri, "notes://today")
	test.Type(link.name, "today")
	img := add("Image")
	if img.TextBox.Visible() || !img.fileBox.Visible() || img.dataBox.Visible() || !img.mimeBox.Visible() {
		t.Fatal("an image block shows the wrong fields")
	}
	img.Source.SetSelected(MediaInline)
	test.Type(img.Data, "not base64!")
	test.Type(img.MimeType, "image/png")

	if e.Save() {
		t.Fatal("saved an image that is not base64 and structured content that is not JSON")
	}
	if !img.Err.Visible() || !strings.Contains(img.Err.Text, "base64") {
		t.Errorf("the image card's error: %q (visible %v)", img.Err.Text, img.Err.Visible())
	}
	if l := e.Errs["action.respond.structured"]; !l.Visible() || !strings.Contains(l.Text, "line 1") {
		t.Errorf("the structured content's error: %q", l.Text)
	}
	if _, err := s.St.Tool(context.Background(), "pictures"); err == nil {
		t.Fatal("stored although refused")
	}

	img.Data.SetText(base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n")))
	test.Type(e.structured.Entry, "}")
	if !e.Save() {
		t.Fatalf("not saved: %q %v", e.Status.Text, e.Errs.Shown())
	}
	got, err := s.St.Tool(context.Background(), "pictures")
	if err != nil {
		t.Fatal(err)
	}
	r := got.Action.Respond
	var types []string
	for _, b := range r.Content {
		types = append(types, b.Type)
	}
	if !slices.Equal(types, []string{"text", "resource_link", "image"}) || !r.IsError || string(r.Structured) != `{"city":"{{.args.city}}"}` {
		t.Fatalf("stored respond action: %v, isError %v, structured %s", types, r.IsError, r.Structured)
	}
	if r.Content[1].URI != "notes://today" || r.Content[1].Name != "today" || r.Content[2].MimeType != "image/png" || r.Content[2].File != "" {
		t.Fatalf("stored blocks: %+v", r.Content)
	}

	// Served as defined: the blocks in order, as an error.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	testutil.Eventually(t, "the tool to be served", func() bool { return slices.Contains(s.ToolNames(t), "pictures") })
	cs := s.Connect(ctx, t)
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "pictures", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 3 || !res.IsError {
		t.Fatalf("result: %d blocks, isError %v", len(res.Content), res.IsError)
	}
	if _, ok := res.Content[1].(*mcp.ResourceLink); !ok {
		t.Errorf("block 2 is %T", res.Content[1])
	}
	if im, ok := res.Content[2].(*mcp.ImageContent); !ok || im.MIMEType != "image/png" {
		t.Errorf("block 3 is %T %+v", res.Content[2], res.Content[2])
	}

	// Moving a block moves it in the definition.
	test.Tap(img.Up)
	if e.Blocks.Items[1] != img || img.Title.Text != "Block 2" {
		t.Fatalf("the image did not move up (its card says %q)", img.Title.Text)
	}
}

func TestTryItShowsLargeResultsShortened(t *testing.T) {
	long := `{"data": "` + strings.Repeat("é", maxShownJSON) + `"}`
	got := shortened(long)
	if len(got) > maxShownJSON+100 || !strings.Contains(got, "more bytes (Copy takes all of it)") || !utf8.ValidString(got) {
		t.Fatalf("shortened to %d bytes, valid UTF-8 %v", len(got), utf8.ValidString(got))
	}
	if shortened("{}") != "{}" {
		t.Error("a short text was changed")
	}
}

func TestTryItKeepsLargeNumbers(t *testing.T) {
	args, err := ParseArgs(`{"id": 9007199254740993}`)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(args)
	if string(b) != `{"id":9007199254740993}` {
		t.Fatalf("sent as %s", b)
	}
}

func TestEditorKeepsAnUnknownKindForValidationToName(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	tool := testcatalog.RespondTool("odd", "x")
	tool.Action.Respond.Content = append(tool.Action.Respond.Content, catalog.Content{Type: "video"})
	tool.Steps = []catalog.InputStep{{Key: "k", Kind: "telepathy"}}
	e := newEditor(t, s.St, tool, false)
	got, _ := e.Tool()
	if got.Action.Respond.Content[1].Type != "video" || got.Steps[0].Kind != "telepathy" {
		t.Fatalf("read back as %q and %q", got.Action.Respond.Content[1].Type, got.Steps[0].Kind)
	}
	if e.Save() {
		t.Fatal("saved unknown kinds")
	}
}

func TestEditorSchemaRoundTripKeepsParameterOrder(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	tool := testcatalog.RespondTool("ordered", "x")
	tool.Params = []catalog.Param{{Name: "zeta", Type: "string"}, {Name: "alpha", Type: "integer"}}
	e := newEditor(t, s.St, tool, false)
	test.Tap(e.schema.raw) // hand-written
	test.Tap(e.schema.raw) // back to the table
	got, _ := e.Tool()
	if len(got.Params) != 2 || got.Params[0].Name != "zeta" || got.Params[1].Name != "alpha" {
		t.Fatalf("parameters after the round trip: %+v", got.Params)
	}
}

// shownProblems are the lines of the error lines a person sees in an
// editor's form, top to bottom.

// TestEditorButtonsKeepTheirPlacesOnTheFirstSave: the first save enables
// Delete where it already was; no button moves, so a click meant for Try
// it cannot land on Delete.
func TestEditorButtonsKeepTheirPlacesOnTheFirstSave(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	e := NewToolEditor(s.St, catalog.Tool{}, true, nil)
	w := test.NewTempWindow(t, e.Content())
	w.Resize(fyne.NewSize(1366, 768))
	e.SetTrier(idleTrier{})
	buttons := map[string]*widget.Button{"Try it": e.tryBtn, "Delete": e.Del, "Save": e.SaveButton}
	places := func() map[string]fyne.Position {
		at := uitest.Places(w.Content(), e.tryBtn, e.Del, e.SaveButton)
		out := map[string]fyne.Position{}
		for name, b := range buttons {
			if p, ok := at[b]; ok {
				out[name] = p
			}
		}
		return out
	}
	before := places()
	if !e.Del.Disabled() {
		t.Error("Delete is enabled on a tool not stored yet")
	}
	fillBasics(e, "disk_free")
	if !e.Save() {
		t.Fatalf("not saved: %q %v", e.Status.Text, e.Errs.Shown())
	}
	after := places()
	if len(before) != len(buttons) || !maps.Equal(before, after) {
		t.Errorf("the buttons moved on the first save:\nbefore %v\nafter  %v", before, after)
	}
	if e.Del.Disabled() {
		t.Error("Delete is still disabled after the first save")
	}
	if d, tr := after["Delete"], after["Try it"]; d.X >= tr.X {
		t.Errorf("Delete (at %v) is not set apart at the left of Try it (at %v)", d, tr)
	}
}

// idleTrier runs nothing: Try it shows, and nothing is tried.
type idleTrier struct{}

func (idleTrier) TryTool(context.Context, string, map[string]any) (TryResult, error) {
	return TryResult{}, nil
}

// TestTryItDrawsACommandsOutputInMonospace: what a command prints is drawn
// in monospace, so that its columns line up as in a terminal; a text
// tool's answer is not.
func TestTryItDrawsACommandsOutputInMonospace(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewAuthServed(t)
	tr := newTrier(t, s)
	for _, tool := range []catalog.Tool{
		testcatalog.CommandTool("columns", "printf", `Filesystem  Size\n/dev/sda1   10G\n`),
		testcatalog.RespondTool("prose", "Hello there."),
	} {
		if err := s.St.PutTool(context.Background(), tool); err != nil {
			t.Fatal(err)
		}
		e := newEditor(t, s.St, tool, false)
		e.SetTrier(TryItTrier(tr, s.Eng))
		test.Tap(e.Try.run)
		e.Try.Calls.Wait()
		if e.Try.result.Importance == widget.DangerImportance || e.Try.result.Text == "" {
			t.Fatalf("%s: %q", tool.Name, e.Try.result.Text)
		}
		if mono := e.Try.result.TextStyle.Monospace; mono != (tool.Name == "columns") {
			t.Errorf("%s's result %q drawn in monospace: %v", tool.Name, e.Try.result.Text, mono)
		}
	}
}

// TestTryItMakesUpNoValueForAToolThatDestroys: Fill with samples offers a
// tool that says it may destroy only the values its author wrote
// (defaults, examples): clean_downloads got days=0, "delete every
// download". Every such tool mcptray ships is checked.
func TestTryItMakesUpNoValueForAToolThatDestroys(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	seen := 0
	for _, data := range [][]byte{examples.Starter, examples.Gallery} {
		c, err := catalog.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range c.Tools {
			if !destructive(tool) {
				continue
			}
			seen++
			e := newEditor(t, s.St, tool, true)
			if tool.Name == "clean_downloads" && (strings.Contains(e.Command.runs.Text, "“--older-than-days” “0”") || !strings.Contains(e.Command.runs.Text, "“--older-than-days” “[days]”")) {
				t.Errorf("clean_downloads' command line shows as %q, a sample made up", e.Command.runs.Text)
			}
			e.Try.fill()
			offered, err := ParseArgs(e.Try.args.Text)
			if err != nil {
				t.Fatalf("%s: %v", tool.Name, err)
			}
			var schema struct {
				Properties map[string]struct {
					Default  any   `json:"default"`
					Examples []any `json:"examples"`
				} `json:"properties"`
			}
			if err := json.Unmarshal(tool.InputSchemaJSON(), &schema); err != nil {
				t.Fatal(err)
			}
			for name, v := range offered {
				p := schema.Properties[name]
				if !ui.SameValue(v, p.Default) && !slices.ContainsFunc(p.Examples, func(x any) bool { return ui.SameValue(x, v) }) {
					t.Errorf("%s: Fill with samples offers %s=%v, which its author did not write", tool.Name, name, v)
				}
			}
		}
	}
	if seen < 2 {
		t.Fatalf("only %d tools that destroy among the examples", seen)
	}
}

// TestCommandLimitsInSecondsAndKB: a command's time limit is typed in
// seconds and its output cap in KB; they are stored in milliseconds and
// bytes, as the catalog holds them.
func TestCommandLimitsInSecondsAndKB(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	tool := testcatalog.CommandTool("slow", "sleep", "1")
	tool.Action.Command.TimeoutMs, tool.Action.Command.MaxOutputBytes = 1500, 2048
	e := newEditor(t, s.St, tool, true)
	if got, want := [2]string{e.Command.timeout.Text, e.Command.maxOutput.Text}, [2]string{"1.5", "2"}; got != want {
		t.Fatalf("1500 ms and 2048 bytes show as %q, want %q", got, want)
	}
	uitest.SeesNone(t, "the command's fields", uitest.Seen(e.Content()), "milliseconds", "bytes", "stdout", "stderr")
	e.Command.timeout.SetText("90")
	e.Command.maxOutput.SetText("512")
	if !e.Save() {
		t.Fatalf("not saved: %q %v", e.Status.Text, e.Errs.Shown())
	}
	got, err := s.St.Tool(context.Background(), "slow")
	if err != nil {
		t.Fatal(err)
	}
	if c := got.Action.Command; c.TimeoutMs != 90000 || c.MaxOutputBytes != 512*1024 {
		t.Fatalf("stored %d ms and %d bytes, want 90000 and %d", c.TimeoutMs, c.MaxOutputBytes, 512*1024)
	}
	e.Command.timeout.SetText("soon")
	if e.Save() || !strings.Contains(e.Errs.Shown()["action.command.timeoutMs"], "seconds") {
		t.Fatalf("saved a time limit of \"soon\": %v", e.Errs.Shown())
	}
}

// TestTheStarterToolsOpenInTheForm: every tool of the starter catalog and
// the gallery opens with its parameters in the form, not "Written by hand
// as a JSON schema"; clean_downloads keeps its bounds, run_script its
// pattern (under Advanced, open), and each serves the schema it served
// before.
func TestTheStarterToolsOpenInTheForm(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	for _, data := range [][]byte{examples.Starter, examples.Gallery} {
		c, err := catalog.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range c.Tools {
			e := newEditor(t, s.St, tool, true)
			if e.schema.raw.Checked {
				t.Errorf("%s opens with its parameters written by hand: %s", tool.Name, tool.InputSchemaJSON())
				continue
			}
			got, local := e.Tool()
			if len(local) > 0 || !sameJSON(got.InputSchemaJSON(), tool.InputSchemaJSON()) {
				t.Errorf("%s: the form serves\n%s\nnot\n%s (%v)", tool.Name, got.InputSchemaJSON(), tool.InputSchemaJSON(), local)
			}
		}
	}
	c, _ := catalog.Decode(examples.Starter)
	i := slices.IndexFunc(c.Tools, func(t catalog.Tool) bool { return t.Name == "clean_downloads" })
	if i < 0 {
		t.Fatal("no clean_downloads in the starter catalog")
	}
	e := newEditor(t, s.St, c.Tools[i], true)
	if len(e.Params) != 1 || e.Params[0].min.Text != "1" || e.Params[0].max.Text != "3650" || !e.Params[0].boundsBox.Visible() {
		t.Fatalf("clean_downloads' days: %d parameters", len(e.Params))
	}
	e.Params[0].min.SetText("one")
	if _, local := e.Tool(); len(local) != 1 || local[0].Field != "params[0].minimum" {
		t.Fatalf("a smallest value of \"one\": %v", local)
	}
	i = slices.IndexFunc(c.Tools, func(t catalog.Tool) bool { return t.Name == "run_script" })
	if i < 0 {
		t.Fatal("no run_script in the starter catalog")
	}
	e = newEditor(t, s.St, c.Tools[i], true)
	if len(e.Params) != 1 || !slices.Contains(uitest.Seen(e.Content()), "entry: ^[A-Za-z0-9][A-Za-z0-9_.-]*$") {
		t.Fatalf("run_script's script: %d parameters, the pattern not shown", len(e.Params))
	}
}
