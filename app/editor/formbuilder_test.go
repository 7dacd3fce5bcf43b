package editor

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
)

// flatSchemaProblems checks a form's requestedSchema against the rules of
// MCP 2026-07-28 (elicitation, form mode): an object of flat primitive
// properties — a string (minLength, maxLength, format email, uri, date or
// date-time), a number or integer (minimum, maximum), a boolean, a
// single-select (enum, or oneOf of {const, title}), a multi-select (an
// array whose items are an enum or an anyOf of {const, title}) — each
// with an optional title, description and default.
func flatSchemaProblems(raw json.RawMessage) []string {
	var bad []string
	var root map[string]json.RawMessage
	if err := json.Unmarshal(raw, &root); err != nil {
		return []string{"not an object: " + err.Error()}
	}
	for k := range root {
		if !slices.Contains([]string{"type", "properties", "required"}, k) {
			bad = append(bad, "root keyword "+k)
		}
	}
	if string(root["type"]) != `"object"` {
		bad = append(bad, "root type "+string(root["type"]))
	}
	var props map[string]map[string]json.RawMessage
	if err := json.Unmarshal(root["properties"], &props); err != nil {
		return append(bad, "properties: "+err.Error())
	}
	var required []string
	if r, ok := root["required"]; ok {
		if err := json.Unmarshal(r, &required); err != nil {
			bad = append(bad, "required: "+err.Error())
		}
	}
	for _, r := range required {
		if _, ok := props[r]; !ok {
			bad = append(bad, "required names no property: "+r)
		}
	}
	isConsts := func(raw json.RawMessage) bool {
		var alts []map[string]json.RawMessage
		if json.Unmarshal(raw, &alts) != nil || len(alts) == 0 {
			return false
		}
		for _, a := range alts {
			if _, ok := a["const"]; !ok || len(a) != 2 || a["title"] == nil {
				return false
			}
		}
		return true
	}
	for name, p := range props {
		var typ string
		_ = json.Unmarshal(p["type"], &typ)
		allowed := []string{"type", "title", "description", "default"}
		switch typ {
		case "string":
			allowed = append(allowed, "minLength", "maxLength", "format", "enum", "oneOf")
			if f, ok := p["format"]; ok && !slices.Contains([]string{`"email"`, `"uri"`, `"date"`, `"date-time"`}, string(f)) {
				bad = append(bad, name+": format "+string(f))
			}
			if o, ok := p["oneOf"]; ok && !isConsts(o) {
				bad = append(bad, name+": oneOf is not {const, title}")
			}
		case "number", "integer":
			allowed = append(allowed, "minimum", "maximum")
		case "boolean":
		case "array":
			allowed = append(allowed, "items", "minItems", "maxItems")
			var items map[string]json.RawMessage
			if err := json.Unmarshal(p["items"], &items); err != nil {
				bad = append(bad, name+": items: "+err.Error())
				break
			}
			switch {
			case items["enum"] != nil && string(items["type"]) == `"string"` && len(items) == 2:
			case items["anyOf"] != nil && isConsts(items["anyOf"]) && len(items) == 1:
			default:
				bad = append(bad, name+": items are neither an enum nor an anyOf of {const, title}")
			}
		default:
			bad = append(bad, name+": type "+string(p["type"]))
		}
		for k := range p {
			if !slices.Contains(allowed, k) {
				bad = append(bad, fmt.Sprintf("%s: keyword %s on a %s", name, k, typ))
			}
		}
	}
	return bad
}

// buildQuestion fills the last question card of b as a person would.
func buildQuestion(b *formBuilder, name, label, kind string, required bool, def, lo, hi, choices string) {
	test.Tap(b.add)
	r := b.Items[len(b.Items)-1]
	test.Type(r.name, name)
	test.Type(r.title, label)
	r.kind.SetSelected(kind)
	if required {
		test.Tap(r.required)
	}
	test.Type(r.def, def)
	test.Type(r.min, lo)
	test.Type(r.max, hi)
	test.Type(r.choices, choices)
}

// TestFormBuilderWritesTheFlatSchema: the fields of every kind write the
// flat requestedSchema the spec allows, the JSON under Advanced follows,
// and read back they are the same fields.
func TestFormBuilderWritesTheFlatSchema(t *testing.T) {
	uitest.NewTestApp(t)
	edits := 0
	b := newFormBuilder(nil, func() { edits++ })
	test.NewTempWindow(t, b.box)
	buildQuestion(b, "reason", "Why?", qText, true, "", "3", "200", "")
	buildQuestion(b, "count", "How many", qWhole, false, "2", "1", "10", "")
	buildQuestion(b, "price", "Price", qNumber, false, "", "0", "", "")
	buildQuestion(b, "urgent", "Urgent", qYesNo, false, "no", "", "", "")
	buildQuestion(b, "size", "Size", qChoice, true, "m", "", "", "s = Small\nm = Medium\nl = Large")
	buildQuestion(b, "colour", "Colour", qChoice, false, "", "", "", "red\ngreen")
	buildQuestion(b, "toppings", "Toppings", qMulti, false, "", "", "2", "cheese\nham")
	buildQuestion(b, "extras", "Extras", qMulti, false, "", "", "", "nuts = Nuts\nfruit = Fruit")
	buildQuestion(b, "when", "When", qDate, false, "", "", "", "")
	buildQuestion(b, "at", "At", qDateTime, false, "", "", "", "")
	buildQuestion(b, "mail", "E-mail", qEmail, false, "", "", "", "")
	buildQuestion(b, "site", "Site", qURL, false, "", "", "", "")
	if edits == 0 || len(b.problems()) != 0 {
		t.Fatalf("edits %d, problems %v", edits, b.problems())
	}

	raw := compactJSON(b.raw.Text)
	want := `{"type":"object","properties":{` +
		`"reason":{"type":"string","title":"Why?","minLength":3,"maxLength":200},` +
		`"count":{"type":"integer","title":"How many","minimum":1,"maximum":10,"default":2},` +
		`"price":{"type":"number","title":"Price","minimum":0},` +
		`"urgent":{"type":"boolean","title":"Urgent","default":false},` +
		`"size":{"type":"string","title":"Size","oneOf":[{"const":"s","title":"Small"},{"const":"m","title":"Medium"},{"const":"l","title":"Large"}],"default":"m"},` +
		`"colour":{"type":"string","title":"Colour","enum":["red","green"]},` +
		`"toppings":{"type":"array","title":"Toppings","items":{"type":"string","enum":["cheese","ham"]},"maxItems":2},` +
		`"extras":{"type":"array","title":"Extras","items":{"anyOf":[{"const":"nuts","title":"Nuts"},{"const":"fruit","title":"Fruit"}]}},` +
		`"when":{"type":"string","title":"When","format":"date"},` +
		`"at":{"type":"string","title":"At","format":"date-time"},` +
		`"mail":{"type":"string","title":"E-mail","format":"email"},` +
		`"site":{"type":"string","title":"Site","format":"uri"}},` +
		`"required":["reason","size"]}`
	if string(raw) != want {
		t.Fatalf("schema\n%s\nwant\n%s", raw, want)
	}
	if bad := flatSchemaProblems(raw); len(bad) > 0 {
		t.Fatalf("not a flat requestedSchema: %v", bad)
	}
	// The server's own rules agree.
	tool := catalog.Tool{Name: "t", Description: "d", Steps: []catalog.InputStep{{Key: "k", Kind: catalog.StepForm, Message: "m", Schema: raw}},
		Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "ok"}}}}}
	if ps := mcpcore.ValidateTool(tool); len(ps) > 0 {
		t.Fatalf("the server refuses the schema: %v", ps)
	}

	// Read back, the JSON is the same fields.
	again := newFormBuilder(raw, func() {})
	if len(again.Items) != 12 || !again.CardList.Box.Visible() {
		t.Fatalf("read back %d questions (shown %v): %q", len(again.Items), again.CardList.Box.Visible(), again.note.Text)
	}
	if got, _ := formSchema(again.questions()); string(got) != want {
		t.Fatalf("read back and written\n%s\nwant\n%s", got, want)
	}
}

// TestFormBuilderFollowsTheJSON: the JSON edited under Advanced shows as
// fields; one the fields cannot say is kept as written, the reason shown,
// and a field's mistake is a problem of the step.
func TestFormBuilderFollowsTheJSON(t *testing.T) {
	uitest.NewTestApp(t)
	b := newFormBuilder(nil, func() {})
	test.NewTempWindow(t, b.box)
	b.raw.SetText(`{"type": "object", "properties": {"name": {"type": "string", "title": "Your name"}}, "required": ["name"]}`)
	if len(b.Items) != 1 || b.Items[0].name.Text != "name" || b.Items[0].title.Text != "Your name" || !b.Items[0].required.Checked {
		t.Fatalf("fields after editing the JSON: %d", len(b.Items))
	}
	// A pattern is nothing the fields (or the spec's forms) have.
	nested := `{"type": "object", "properties": {"code": {"type": "string", "pattern": "^[0-9]+$"}}}`
	b.raw.SetText(nested)
	if b.CardList.Box.Visible() || b.add.Visible() || !b.note.Visible() || !strings.Contains(b.note.Text, `"pattern"`) || !b.advance.IsOpen() {
		t.Fatalf("a schema the fields cannot show: cards %v, note %v %q", b.CardList.Box.Visible(), b.note.Visible(), b.note.Text)
	}
	if b.raw.Text != nested || len(b.problems()) != 0 {
		t.Fatalf("the JSON was changed to %q, problems %v", b.raw.Text, b.problems())
	}
	// Back to a schema they can show, then a field with a mistake.
	b.raw.SetText(`{"type": "object", "properties": {}}`)
	buildQuestion(b, "n", "N", qWhole, false, "1.5", "", "", "")
	buildQuestion(b, "", "No name", qText, false, "", "", "", "")
	buildQuestion(b, "pick", "Pick", qChoice, false, "", "", "", "")
	want := []string{"question 1 (n): the default must be a whole number", "question 2: a name is required (the answer's key, e.g. reason)",
		"question 3 (pick): a choice needs choices, one per line"}
	if got := b.problems(); !slices.Equal(got, want) {
		t.Fatalf("problems\n%q\nwant\n%q", got, want)
	}
}

// TestFormStepBuiltFromFieldsIsAnsweredByTheClient: a form step whose
// questions are built as fields in the editor, saved, asks the go-sdk
// client — the AI app can answer forms, so the step's default route
// (auto) gives it the question — with the flat schema the fields wrote,
// and the tool uses the answer.
func TestFormStepBuiltFromFieldsIsAnsweredByTheClient(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	e := newEditor(t, s.St, catalog.Tool{}, true)
	fillBasics(e, "order_pizza")
	e.Blocks.Items[0].Text.Entry.SetText("{{.inputs.order.content.size}} with {{json .inputs.order.content.toppings}} for {{.inputs.order.content.name}}")
	var add *widget.Button
	uitest.Walk(e.Content(), func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && b.Text == "Add input step" {
			add = b
		}
	})
	if add == nil {
		t.Fatal("no Add input step button")
	}
	test.Tap(add)
	r := e.Steps.Items[0]
	if got := AnsweredByChoices.ValueOf(r.AnsweredBy.Selected); got != catalog.AnsweredByAuto {
		t.Fatalf("a new form step is answered by %q, want auto", got)
	}
	test.Type(r.Key, "order")
	test.Type(r.message.Entry, "Your order?")
	buildQuestion(r.form, "name", "Your name", qText, true, "", "", "", "")
	buildQuestion(r.form, "size", "Size", qChoice, true, "", "", "", "s = Small\nl = Large")
	buildQuestion(r.form, "toppings", "Toppings", qMulti, false, "", "", "", "cheese\nham")
	if !e.Save() {
		t.Fatalf("not saved: %q %v, step: %q", e.Status.Text, e.Errs.Shown(), r.Err.Text)
	}

	ctx, cancel := context.WithTimeout(context.Background(), testutil.Patience)
	defer cancel()
	var asked *mcp.ElicitParams
	c := mcp.NewClient(&mcp.Implementation{Name: "form-test", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = req.Params
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada", "size": "l", "toppings": []any{"ham"}}}, nil
		}})
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.Url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	// The server serves a saved tool once its change feed says so: on a
	// busy machine, a moment after Save returns.
	testutil.Eventually(t, "order_pizza served", func() bool {
		l, err := cs.ListTools(ctx, nil)
		return err == nil && slices.ContainsFunc(l.Tools, func(t *mcp.Tool) bool { return t.Name == "order_pizza" })
	})
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "order_pizza", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if asked == nil {
		t.Fatalf("the client was not asked; result %+v", res)
	}
	schema, _ := json.Marshal(asked.RequestedSchema)
	if bad := flatSchemaProblems(schema); len(bad) > 0 || asked.Message != "Your order?" {
		t.Fatalf("asked %q with %s: %v", asked.Message, schema, bad)
	}
	if got := uitest.ResultText(res); got != `l with ["ham"] for Ada` {
		t.Fatalf("the tool answered %q (error %v)", got, res.IsError)
	}
}
