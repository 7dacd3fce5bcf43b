package app

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/app/tryit"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testcatalog"
	"github.com/mcptray/mcptray/internal/testserver"
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
	test.Type(e.name, name)
	test.Type(e.description, "A tool made in a test.")
	test.Type(e.blocks.items[0].text.entry, "done")
}

func TestEditorStoresAnInputStep(t *testing.T) {
	newTestApp(t)
	s := newServed(t)
	e := newEditor(t, s.st, catalog.Tool{}, true)
	fillBasics(e, "ask_reason")
	e.steps.add(catalog.InputStep{})
	r := e.steps.items[0]
	test.Type(r.key, "reason")
	r.kind.SetSelected(stepKindChoices.labelOf(catalog.StepForm))
	test.Type(r.message.entry, "Why?")
	test.Type(r.form.raw, `{"type": "object", "properties": {"why": {"type": "string"}}}`)
	r.answeredBy.SetSelected("me, on this computer (desktop)")
	test.Type(r.round, "1")
	// The kind decides what shows.
	if !r.formBox.Visible() || r.urlBox.Visible() || r.samplingBox.Visible() {
		t.Fatalf("a form step shows form %v, url %v, sampling %v", r.formBox.Visible(), r.urlBox.Visible(), r.samplingBox.Visible())
	}
	if !e.Save() {
		t.Fatalf("not saved: %q %v, step: %q", e.status.Text, visibleErrors(e), r.err.Text)
	}
	got, err := s.st.Tool(context.Background(), "ask_reason")
	if err != nil {
		t.Fatalf("not in SQLite: %v", err)
	}
	want := catalog.InputStep{Key: "reason", Kind: catalog.StepForm, Round: 1, Message: "Why?", AnsweredBy: catalog.AnsweredByDesktop,
		Schema: json.RawMessage(`{"type":"object","properties":{"why":{"type":"string"}}}`)}
	if len(got.Steps) != 1 || !sameJSON(got.Steps[0], want) {
		t.Fatalf("stored steps %+v, want [%+v]", got.Steps, want)
	}
	// Reopened, the same tool is no unsaved change.
	e2 := newEditor(t, s.st, got, false)
	if e2.dirty() {
		t2, _ := e2.Tool()
		t.Fatalf("a freshly opened tool counts as changed:\nform  %+v\nstore %+v", t2, got)
	}
}

func TestEditorStepsMoveAndShowTheirFields(t *testing.T) {
	newTestApp(t)
	s := newServed(t)
	e := newEditor(t, s.st, catalog.Tool{}, true)
	e.steps.add(catalog.InputStep{Key: "first", Kind: catalog.StepApproval, Message: "OK?"})
	e.steps.add(catalog.InputStep{Key: "second", Kind: catalog.StepSampling, Message: "Summarize"})
	first, second := e.steps.items[0], e.steps.items[1]
	if !first.answeredBy.Disabled() || first.answeredBy.Selected != "me, on this computer (desktop)" || first.optionalBox.Visible() {
		t.Errorf("an approval: answeredBy %q (disabled %v), optional shown %v", first.answeredBy.Selected, first.answeredBy.Disabled(), first.optionalBox.Visible())
	}
	if !second.samplingBox.Visible() || second.answeredBy.Selected != "the AI app (client)" {
		t.Errorf("a sampling step: sampling fields %v, answeredBy %q", second.samplingBox.Visible(), second.answeredBy.Selected)
	}
	test.Tap(second.up)
	if e.steps.items[0] != second || second.title.Text != "Step 1" || !second.up.Disabled() || !first.down.Disabled() {
		t.Fatalf("after moving up: order %q,%q", e.steps.items[0].key.Text, e.steps.items[1].key.Text)
	}
	steps, _ := e.steps.steps("")
	if steps[0].Key != "second" || steps[0].AnsweredBy != "" || steps[1].Key != "first" {
		t.Fatalf("steps %+v", steps)
	}
}

func TestEditorRefusesABadStepSchema(t *testing.T) {
	newTestApp(t)
	s := newServed(t)
	e := newEditor(t, s.st, catalog.Tool{}, true)
	fillBasics(e, "bad_step")
	e.steps.add(catalog.InputStep{Key: "ok", Kind: catalog.StepApproval, Message: "Go on?"})
	e.steps.add(catalog.InputStep{Kind: catalog.StepForm})
	r := e.steps.items[1]
	test.Type(r.key, "details")
	test.Type(r.message.entry, "Details please")
	test.Type(r.form.raw, "{\n  \"type\": \"object\",\n  \"properties\": {\"a\": }\n}")
	// Seen as it is typed, with where.
	if !r.schemaErr.Visible() || !strings.Contains(r.schemaErr.Text, "line 3, column") {
		t.Fatalf("live schema error %q (visible %v)", r.schemaErr.Text, r.schemaErr.Visible())
	}
	if e.Save() {
		t.Fatal("saved with a schema that is not JSON")
	}
	// Saving shows it once, under the schema, and counts it once.
	if !r.schemaErr.Visible() || !strings.Contains(r.schemaErr.Text, "line 3, column") || r.err.Visible() {
		t.Fatalf("the schema's error line: %q (visible %v); the step's: %q", r.schemaErr.Text, r.schemaErr.Visible(), r.err.Text)
	}
	if !strings.HasPrefix(e.status.Text, "Not saved: 1 problem,") {
		t.Errorf("status %q", e.status.Text)
	}
	if e.steps.items[0].err.Visible() {
		t.Errorf("the good step shows %q", e.steps.items[0].err.Text)
	}
	if _, err := s.st.Tool(context.Background(), "bad_step"); err == nil {
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
	newTestApp(t)
	s := newServed(t)
	e := newEditor(t, s.st, catalog.Tool{}, true)
	fillBasics(e, "raw_schema")
	test.Tap(e.schema.raw)
	if e.paramSection.Visible() || e.schema.input.Disabled() {
		t.Fatal("a hand-written schema still shows the parameters table, or cannot be typed in")
	}
	e.schema.input.SetText(`{"type": 5}`)
	// Checked as it is typed, once typing pauses.
	l := e.errs["inputSchema"]
	e.schema.checks.Wait()
	if !l.Visible() {
		t.Fatal("the live check showed nothing")
	}
	setFieldError(l, nil)
	if e.Save() {
		t.Fatal(`saved {"type": 5}`)
	}
	if !l.Visible() || !strings.Contains(l.Text, "invalid JSON Schema") {
		t.Fatalf("under the schema: %q (visible %v); all: %v", l.Text, l.Visible(), visibleErrors(e))
	}
	if _, err := s.st.Tool(context.Background(), "raw_schema"); err == nil {
		t.Fatal("stored anyway")
	}
	// A syntax error says where.
	e.schema.input.SetText("{\"type\": \"object\",}")
	if e.Save() || !strings.Contains(l.Text, "line 1, column 19") {
		t.Fatalf("under the schema: %q", l.Text)
	}
	e.schema.input.SetText(`{"type": "object", "properties": {"q": {"type": "string", "minLength": 2}}, "additionalProperties": false}`)
	if !e.Save() {
		t.Fatalf("a valid schema refused: %v", visibleErrors(e))
	}
	got, err := s.st.Tool(context.Background(), "raw_schema")
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
	newTestApp(t)
	s := newServed(t)
	tool := testcatalog.RespondTool("search", "ok")
	tool.Params = []catalog.Param{{Name: "q", Type: "string", Required: true, Description: "what"},
		{Name: "tags", Type: "array", Items: "integer"}}
	e := newEditor(t, s.st, tool, true)
	if !e.schema.input.Disabled() || !strings.Contains(e.schema.input.Text, `"q"`) {
		t.Fatalf("generated schema %q (read-only %v)", e.schema.input.Text, e.schema.input.Disabled())
	}
	if !e.params[1].itemsBox.Visible() || e.params[0].itemsBox.Visible() {
		t.Error("items shows for the wrong parameter")
	}
	// The generated view follows the table.
	e.params[0].desc.SetText("what to find")
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
	if e.schema.raw.Checked || got.InputSchema != nil || len(e.params) != 2 || !sameJSON(got.Params, tool.Params) {
		t.Fatalf("back to params: %+v", got.Params)
	}
}

func TestEditorTokenVisibility(t *testing.T) {
	newTestApp(t)
	s := newServed(t)
	ctx := context.Background()
	if err := s.st.PutTool(ctx, testcatalog.RespondTool("lookup", "ok")); err != nil {
		t.Fatal(err)
	}
	for name, tools := range map[string][]string{"everything": nil, "narrow": {"lookup", "other"}, "none": {}} {
		if _, err := s.st.CreateToken(ctx, name, tools); err != nil {
			t.Fatal(err)
		}
	}
	stored, err := s.st.Tool(ctx, "lookup")
	if err != nil {
		t.Fatal(err)
	}
	e := newEditor(t, s.st, stored, false)
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
		t.Fatalf("not saved: %v", visibleErrors(e))
	}
	tokens := func() map[string][]string {
		toks, err := s.st.ListTokens(ctx)
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
	e.name.SetText("find")
	if !e.Save() {
		t.Fatalf("rename: %v", visibleErrors(e))
	}
	got = tokens()
	if got["everything"] != nil || !slices.Equal(got["narrow"], []string{"other"}) || !slices.Equal(got["none"], []string{"find"}) {
		t.Fatalf("after renaming: %v", got)
	}
	// The last tool of an allowlist goes: the token then sees none, not all.
	test.Tap(e.tokens.checks["none"])
	if !e.Save() {
		t.Fatal(visibleErrors(e))
	}
	if got = tokens(); got["none"] == nil || len(got["none"]) != 0 {
		t.Fatalf("the emptied allowlist is %#v", got["none"])
	}

	// An allowlist changed elsewhere (Settings) while the editor is open
	// keeps that change when the tool is saved with its box untouched.
	if err := s.st.SetTokenTools(ctx, "narrow", []string{"other", "find"}); err != nil {
		t.Fatal(err)
	}
	e.description.SetText("Finds things.")
	if !e.Save() {
		t.Fatal(visibleErrors(e))
	}
	if got = tokens(); len(got["narrow"]) != 2 || !slices.Contains(got["narrow"], "find") {
		t.Fatalf("saving the tool undid the allowlist changed in Settings: %v", got["narrow"])
	}
}

func TestEditorRefusesATakenName(t *testing.T) {
	newTestApp(t)
	s := newServed(t)
	ctx := context.Background()
	for _, name := range []string{"alpha", "beta"} {
		if err := s.st.PutTool(ctx, testcatalog.RespondTool(name, "x")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.st.CreateToken(ctx, "narrow", []string{"beta"}); err != nil {
		t.Fatal(err)
	}
	stored, err := s.st.Tool(ctx, "beta")
	if err != nil {
		t.Fatal(err)
	}
	e := newEditor(t, s.st, stored, false)
	e.name.SetText("alpha")
	test.Tap(e.tokens.checks["narrow"])
	if e.Save() {
		t.Fatal("renamed onto another tool's name")
	}
	if got := e.errs["name"].Text; got != `a tool named "alpha" exists already` || !strings.HasPrefix(e.status.Text, "Not saved") {
		t.Fatalf("name error %q, status %q", got, e.status.Text)
	}
	// Nothing of the save happened: the tool, its name, its tokens.
	if _, err := s.st.Tool(ctx, "beta"); err != nil {
		t.Fatalf("beta is gone: %v", err)
	}
	toks, err := s.st.ListTokens(ctx)
	if err != nil || len(toks) != 1 || !slices.Equal(toks[0].Tools, []string{"beta"}) {
		t.Fatalf("tokens %+v, %v", toks, err)
	}
}

func TestEditorTokenNotes(t *testing.T) {
	newTestApp(t)
	s := newServed(t)
	e := newEditor(t, s.st, catalog.Tool{}, true)
	if !strings.Contains(e.tokens.note.Text, "No client tokens") {
		t.Fatalf("note %q", e.tokens.note.Text)
	}
	// The app's own Try it token is not one a person manages.
	if _, err := tryit.New(s.st, func() string { return s.url }); err != nil {
		t.Fatal(err)
	}
	e = newEditor(t, s.st, catalog.Tool{}, true)
	if len(e.tokens.box.Objects) != 0 || !strings.Contains(e.tokens.note.Text, "No client tokens") {
		t.Fatalf("the Try it token shows: %d boxes, note %q", len(e.tokens.box.Objects), e.tokens.note.Text)
	}
}

// newAuthServed is newServed with token auth on.
func newAuthServed(t *testing.T) *served {
	t.Helper()
	return servedBy(testserver.Start(t, testserver.Options{Auth: true}))
}

func TestEditorTryIt(t *testing.T) {
	newTestApp(t)
	s := newAuthServed(t)
	tr, err := tryit.New(s.st, func() string { return s.url })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	e := newEditor(t, s.st, catalog.Tool{}, true)
	if e.tryBtn.Visible() || e.tryBox.box.Visible() {
		t.Fatal("Try it shows without a trier")
	}
	e.SetTrier(TryItTrier(tr, s.eng))
	p := e.try
	if !e.tryBtn.Visible() || p.run.Text != "Save and run" {
		t.Fatalf("Try it visible %v, Run says %q", e.tryBtn.Visible(), p.run.Text)
	}
	test.Type(e.name, "greet")
	test.Type(e.description, "Greets.")
	e.addParam(catalog.Param{Type: "string"})
	test.Type(e.params[0].name, "who")
	test.Type(e.params[0].def, "World")
	test.Type(e.blocks.items[0].text.entry, "Hello, {{.args.who}}!")
	// The arguments are a form made from the parameters, defaults filled
	// in; as JSON they say the same.
	if len(p.fields) != 1 || p.fields[0].entry == nil || p.fields[0].entry.Text != "World" {
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
	if _, err := s.st.Tool(context.Background(), "greet"); err == nil {
		t.Fatal("saved though nothing ran")
	}
	test.Tap(p.asJSON)
	if !p.asJSON.Checked {
		t.Fatal("back to the form with arguments that do not read")
	}

	p.args.SetText(`{"who": "Ada"}`)
	test.Tap(p.run)
	p.calls.wait()
	if p.result.Text != "Hello, Ada!" {
		t.Fatalf("result %q; status %q", p.result.Text, e.status.Text)
	}
	if !strings.Contains(p.response.Text, `"result"`) || !strings.Contains(p.request.Text, `"tools/call"`) {
		t.Fatalf("raw JSON:\nrequest %s\nresponse %s", p.request.Text, p.response.Text)
	}
	if p.run.Text != "Run" {
		t.Errorf("after saving, Run says %q", p.run.Text)
	}
	test.Tap(p.asJSON)
	if p.fields[0].entry.Text != "Ada" {
		t.Fatalf("back in the form, who is %q", p.fields[0].entry.Text)
	}
	// The next time the tool is opened, its last arguments are there.
	stored, err := s.st.Tool(context.Background(), "greet")
	if err != nil {
		t.Fatal(err)
	}
	again := newEditor(t, s.st, stored, false)
	if got := again.try.fields[0].entry.Text; got != "Ada" {
		t.Errorf("reopened, who is %q", got)
	}
	// A required field left empty is refused at its field.
	again.try.fields[0].entry.SetText("")
	again.try.fields[0].required = true
	again.try.fields[0].formField.required = true
	again.SetTrier(TryItTrier(tr, s.eng))
	test.Tap(again.try.run)
	if !strings.Contains(again.try.result.Text, "1 field needs fixing") || !again.try.fields[0].problem.Visible() {
		t.Errorf("empty required argument: %q", again.try.result.Text)
	}
	w := test.NewWindow(e.Content())
	w.Resize(fyne.NewSize(760, 760))
	test.Tap(e.tryBtn) // opens the panel and scrolls to it
	capture(t, w, "tool-editor-try-it.png")
	w.Close()

	// A disabled tool is not called.
	if err := s.st.SetToolDisabled(context.Background(), "greet", true); err != nil {
		t.Fatal(err)
	}
	stored, _ = s.st.Tool(context.Background(), "greet")
	e2 := newEditor(t, s.st, stored, false)
	e2.SetTrier(TryItTrier(tr, s.eng))
	test.Tap(e2.try.run)
	if !strings.Contains(e2.try.result.Text, "enable it first") || e2.try.run.Disabled() {
		t.Fatalf("disabled tool: %q", e2.try.result.Text)
	}
}

func TestEditorSaveAndRunRefusedRunsNothing(t *testing.T) {
	newTestApp(t)
	s := newAuthServed(t)
	tr, err := tryit.New(s.st, func() string { return s.url })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	e := newEditor(t, s.st, catalog.Tool{}, true)
	e.SetTrier(TryItTrier(tr, s.eng))
	test.Type(e.name, "nodesc") // no description: Save refuses
	test.Tap(e.try.run)
	if !strings.Contains(e.try.result.Text, "could not be saved") || e.try.run.Disabled() || e.try.request.Text != "" {
		t.Fatalf("result %q, running %v", e.try.result.Text, e.try.run.Disabled())
	}
	if !e.errs["description"].Visible() {
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
		err := jsonSyntax(text)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want %s…", text, err, want)
		}
	}
	if err := jsonSyntax(` {"ok": [1, "ü"]} `); err != nil {
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
	if got := sampleArgs(tool.InputSchemaJSON()); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if got := sampleArgs(catalog.Tool{}.InputSchemaJSON()); got != "{}" {
		t.Fatalf("no params: %s", got)
	}
}

func TestEditorContentBlocks(t *testing.T) {
	newTestApp(t)
	s := newServed(t)
	e := newEditor(t, s.st, catalog.Tool{}, true)
	fillBasics(e, "pictures")
	test.Tap(e.isError)
	test.Type(e.structured.entry, `{"city": "{{.args.city}}"`) // not closed yet

	add := func(kind string) *blockRow {
		e.blocks.add(catalog.Content{Type: "text"})
		r := e.blocks.items[len(e.blocks.items)-1]
		r.kind.SetSelected(kind)
		return r
	}
	link := add("Resource link")
	test.Type(link.uri, "notes://today")
	test.Type(link.name, "today")
	img := add("Image")
	if img.textBox.Visible() || !img.fileBox.Visible() || img.dataBox.Visible() || !img.mimeBox.Visible() {
		t.Fatal("an image block shows the wrong fields")
	}
	img.source.SetSelected(mediaInline)
	test.Type(img.data, "not base64!")
	test.Type(img.mimeType, "image/png")

	if e.Save() {
		t.Fatal("saved an image that is not base64 and structured content that is not JSON")
	}
	if !img.err.Visible() || !strings.Contains(img.err.Text, "base64") {
		t.Errorf("the image card's error: %q (visible %v)", img.err.Text, img.err.Visible())
	}
	if l := e.errs["action.respond.structured"]; !l.Visible() || !strings.Contains(l.Text, "line 1") {
		t.Errorf("the structured content's error: %q", l.Text)
	}
	if _, err := s.st.Tool(context.Background(), "pictures"); err == nil {
		t.Fatal("stored although refused")
	}

	img.data.SetText(base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n")))
	test.Type(e.structured.entry, "}")
	if !e.Save() {
		t.Fatalf("not saved: %q %v", e.status.Text, visibleErrors(e))
	}
	got, err := s.st.Tool(context.Background(), "pictures")
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
	testutil.Eventually(t, "the tool to be served", func() bool { return slices.Contains(s.toolNames(t), "pictures") })
	cs := s.connect(ctx, t)
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
	test.Tap(img.up)
	if e.blocks.items[1] != img || img.title.Text != "Block 2" {
		t.Fatalf("the image did not move up (its card says %q)", img.title.Text)
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
	args, err := parseArgs(`{"id": 9007199254740993}`)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(args)
	if string(b) != `{"id":9007199254740993}` {
		t.Fatalf("sent as %s", b)
	}
}

func TestEditorKeepsAnUnknownKindForValidationToName(t *testing.T) {
	newTestApp(t)
	s := newServed(t)
	tool := testcatalog.RespondTool("odd", "x")
	tool.Action.Respond.Content = append(tool.Action.Respond.Content, catalog.Content{Type: "video"})
	tool.Steps = []catalog.InputStep{{Key: "k", Kind: "telepathy"}}
	e := newEditor(t, s.st, tool, false)
	got, _ := e.Tool()
	if got.Action.Respond.Content[1].Type != "video" || got.Steps[0].Kind != "telepathy" {
		t.Fatalf("read back as %q and %q", got.Action.Respond.Content[1].Type, got.Steps[0].Kind)
	}
	if e.Save() {
		t.Fatal("saved unknown kinds")
	}
}

func TestEditorSchemaRoundTripKeepsParameterOrder(t *testing.T) {
	newTestApp(t)
	s := newServed(t)
	tool := testcatalog.RespondTool("ordered", "x")
	tool.Params = []catalog.Param{{Name: "zeta", Type: "string"}, {Name: "alpha", Type: "integer"}}
	e := newEditor(t, s.st, tool, false)
	test.Tap(e.schema.raw) // hand-written
	test.Tap(e.schema.raw) // back to the table
	got, _ := e.Tool()
	if len(got.Params) != 2 || got.Params[0].Name != "zeta" || got.Params[1].Name != "alpha" {
		t.Fatalf("parameters after the round trip: %+v", got.Params)
	}
}

// TestEditorsFitASmallScreen opens every part of the tool editor at once
// (a list parameter, a command, a step of each kind, Try it and the raw
// schemas) and the other editors on a new entry: the window still fits an
// 800×600 screen, its forms scrolling instead.
func TestEditorsFitASmallScreen(t *testing.T) {
	m, _ := newTestManager(t)
	m.ask = func(_, _ string, discard func(bool)) { discard(true) }
	test.ApplyTheme(t, theme.DefaultTheme())
	m.win.Resize(fyne.NewSize(760, 540))
	m.win.Show()
	m.NewTool()
	e := m.Editor()
	e.SetTrier(blockingTrier{})
	e.addParam(catalog.Param{Name: "files", Type: "array", Items: "integer", Description: "The files to read, one by one"})
	e.actionKind.SetSelected(kindCommand)
	for _, k := range catalog.StepKinds {
		e.steps.add(catalog.InputStep{Key: k, Kind: k})
	}
	e.description.SetText(strings.Repeat("A description that goes on and on. ", 40))
	e.advanced.open()
	e.tryBox.open()
	fitsSmallScreen(t, m, "tools")
	inView(t, m.win, "Save")

	m.tabs.SelectIndex(1)
	m.NewResource()
	m.resEditor.source.SetSelected(srcCommand)
	fitsSmallScreen(t, m, "resources")
	m.NewTemplate()
	m.tmplEditor.uriTemplate.SetText("notes://{year}/{month}/{day}")
	fitsSmallScreen(t, m, "resources")
	m.tabs.SelectIndex(2)
	m.NewPrompt()
	m.promptEditor.addArg(catalog.PromptArgument{Name: "topic", Completions: []string{"work", "home"}})
	fitsSmallScreen(t, m, "prompts")
	inView(t, m.win, "Save")
}

// shownProblems are the lines of the error lines a person sees in an
// editor's form, top to bottom.
func shownProblems(form *container.Scroll) []string {
	var out []string
	for _, p := range shownUnder(form.Content) {
		if l, ok := p.obj.(*widget.Label); ok && l.Importance == widget.DangerImportance && l.Text != "" {
			out = append(out, strings.Split(l.Text, "\n")...)
		}
	}
	return out
}

// TestSaveShowsEveryProblemAtOnce: Save shows all the problems of the
// form together, the taken name among them, counts what it shows, and
// takes the person to the first one; fixed, the next one far down the
// form gets the focus, scrolled into view.
func TestSaveShowsEveryProblemAtOnce(t *testing.T) {
	m, s := newTestManager(t)
	if err := s.st.PutTool(context.Background(), testcatalog.RespondTool("taken", "x")); err != nil {
		t.Fatal(err)
	}
	m.win.Resize(fyne.NewSize(760, 540))
	m.win.Show()
	m.NewTool()
	e := m.Editor()
	test.Type(e.name, "taken")
	test.Type(e.blocks.items[0].text.entry, "done")
	e.steps.add(catalog.InputStep{Key: "ok", Kind: catalog.StepApproval, Message: "Go on?"})
	e.steps.add(catalog.InputStep{Kind: catalog.StepApproval, Message: "Sure?"}) // no key
	if e.Save() {
		t.Fatal("saved")
	}
	shown := shownProblems(e.scroll)
	if len(shown) != 3 || !strings.HasPrefix(e.status.Text, "Not saved: 3 problems,") {
		t.Fatalf("status %q; shown %q", e.status.Text, shown)
	}
	if !strings.Contains(e.errs["name"].Text, "exists already") || !e.errs["description"].Visible() || !e.steps.items[1].keyErr.Visible() {
		t.Errorf("not all at once: name %q, description %q, step's key %q", e.errs["name"].Text, e.errs["description"].Text, e.steps.items[1].keyErr.Text)
	}
	if got := m.win.Canvas().Focused(); got != e.name || e.scroll.Offset.Y != 0 {
		t.Errorf("focused %T at offset %v, want the name at the top", got, e.scroll.Offset)
	}

	e.name.SetText("free")
	e.description.SetText("Described.")
	if e.Save() {
		t.Fatal("saved with a step without a key")
	}
	if shown := shownProblems(e.scroll); len(shown) != 1 || !strings.HasPrefix(e.status.Text, "Not saved: 1 problem,") {
		t.Fatalf("status %q; shown %q", e.status.Text, shown)
	}
	if focused := m.win.Canvas().Focused(); focused != e.steps.items[1].key || e.scroll.Offset.Y == 0 {
		t.Errorf("focused %T %v at offset %v, want the step's key", focused, focused, e.scroll.Offset)
	}
	capture(t, m.win, "tool-editor-problem.png")
}

// TestTheFormScrollsUnderTheWheel: the mouse wheel over a field scrolls
// the form, unless the field has more text than it shows, which it then
// scrolls itself; opening Advanced brings it into view.
func TestTheFormScrollsUnderTheWheel(t *testing.T) {
	m, _ := newTestManager(t)
	m.win.Resize(fyne.NewSize(760, 540))
	m.win.Show()
	m.NewTool()
	e := m.Editor()
	for _, k := range catalog.StepKinds {
		e.steps.add(catalog.InputStep{Key: k, Kind: k})
	}
	c := m.win.Canvas()
	wheel := func(over fyne.CanvasObject) float32 {
		e.scroll.ScrollToTop()
		pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(over).AddXY(5, 5)
		test.Scroll(c, pos, 0, -60)
		return e.scroll.Offset.Y
	}
	if wheel(e.name) == 0 {
		t.Error("the wheel over the name does not scroll the form")
	}
	if wheel(e.description) == 0 {
		t.Error("the wheel over the empty description does not scroll the form")
	}
	e.description.SetText(strings.Repeat("A line of its own.\n", 30))
	if wheel(e.description) != 0 {
		t.Error("the wheel over a description longer than its field scrolls the form, not the text")
	}

	e.scroll.ScrollToTop()
	e.advanced.open()
	var at fyne.Position
	for _, p := range shownUnder(e.scroll.Content) {
		if p.obj == e.advanced.box {
			at = p.at
		}
	}
	if view := e.scroll.Size().Height; at.Y < e.scroll.Offset.Y || at.Y+min(e.advanced.box.Size().Height, view) > e.scroll.Offset.Y+view {
		t.Errorf("Advanced opened at %v, out of the view %v–%v", at.Y, e.scroll.Offset.Y, e.scroll.Offset.Y+view)
	}
}
