package app

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore"
)

const tripSchema = `{
  "type": "object",
  "properties": {
    "name":      {"type": "string", "title": "Your name", "description": "As it appears on the booking.", "minLength": 2},
    "email":     {"type": "string", "title": "Email", "format": "email"},
    "nights":    {"type": "integer", "title": "Nights", "minimum": 1, "maximum": 30, "default": 2},
    "budget":    {"type": "number", "title": "Budget (EUR)"},
    "breakfast": {"type": "boolean", "title": "Breakfast included", "default": true},
    "room":      {"type": "string", "title": "Room", "enum": ["single", "double", "suite"]},
    "view":      {"type": "string", "title": "View", "oneOf": [{"const": "sea", "title": "Sea view"}, {"const": "city", "title": "City view"}]},
    "extras":    {"type": "array", "title": "Extras", "items": {"type": "string", "enum": ["parking", "late-checkout", "pet"]}, "maxItems": 2},
    "arrival":   {"type": "string", "title": "Arrival", "format": "date"}
  },
  "required": ["name", "nights", "room"]
}`

func tripQuestion() mcpcore.Question {
	return mcpcore.Question{Client: "claude-code", Tool: "hotel.book", ToolTitle: "Book a hotel", Key: "trip", Kind: catalog.StepForm,
		Message: "A few details for the booking.", Arguments: `{"city": "Lisbon"}`, Schema: json.RawMessage(tripSchema)}
}

// choose checks the choices titled titles of an array field, and no other.
func (fl *formField) choose(titles ...string) {
	for i, c := range fl.group {
		c.SetChecked(slices.Contains(titles, fl.options[i].title))
	}
}

// field finds a form field by property name.
func (f *formDialog) field(t *testing.T, name string) *formField {
	t.Helper()
	for _, fl := range f.fields {
		if fl.name == name {
			return fl
		}
	}
	t.Fatalf("no field %q", name)
	return nil
}

func TestFormFieldsFollowTheSchema(t *testing.T) {
	newTestApp(t)
	var got []mcpcore.Answer
	f := newFormDialog(tripQuestion(), func(a mcpcore.Answer) { got = append(got, a) })
	var names []string
	for _, fl := range f.fields {
		names = append(names, fl.name)
	}
	if want := []string{"name", "email", "nights", "budget", "breakfast", "room", "view", "extras", "arrival"}; !reflect.DeepEqual(names, want) {
		t.Errorf("field order %v, want the schema's %v", names, want)
	}
	if f.field(t, "nights").entry.Text != "2" || !f.field(t, "breakfast").check.Checked {
		t.Error("defaults not applied")
	}
	if f.field(t, "room").sel == nil || f.field(t, "view").sel == nil || f.field(t, "extras").group == nil || f.field(t, "breakfast").check == nil {
		t.Fatal("wrong widget kinds")
	}
	if opts := f.field(t, "view").sel.Options; !reflect.DeepEqual(opts, []string{noneTitle, "Sea view", "City view"}) {
		t.Errorf("oneOf titles: %v", opts)
	}
	if opts := f.field(t, "room").sel.Options; !reflect.DeepEqual(opts, []string{"single", "double", "suite"}) {
		t.Errorf("required enum options: %v", opts)
	}
	if !hasText(f.content, "Your name *") || hasText(f.content, "Email *") {
		t.Error("required markers wrong")
	}
}

func TestFormRefusesInvalidAndReturnsTypedContent(t *testing.T) {
	newTestApp(t)
	var got []mcpcore.Answer
	f := newFormDialog(tripQuestion(), func(a mcpcore.Answer) { got = append(got, a) })
	w := test.NewTempWindow(t, container.NewBorder(nil, f.buttons, nil, nil, f.content))
	w.Resize(fyne.NewSize(520, 900))

	// Nothing typed yet: no message, but Submit is refused.
	if hasText(f.content, "Required") {
		t.Error("a message before the person did anything")
	}
	test.Tap(f.submit)
	if len(got) != 0 {
		t.Fatalf("submitted an invalid form: %+v", got)
	}
	name := f.field(t, "name")
	if !name.problem.Visible() || name.problem.Text != "Required." {
		t.Errorf("name problem %q (visible %v)", name.problem.Text, name.problem.Visible())
	}
	if room := f.field(t, "room"); room.problem.Text != "Required: choose one." {
		t.Errorf("room problem %q", room.problem.Text)
	}
	if !f.summary.Visible() || !hasText(f.buttons, "need fixing") {
		t.Error("no summary of the problems")
	}

	// Live validation, next to each field.
	test.Type(name.entry, "J")
	if name.problem.Text != "Must be at least 2 characters." {
		t.Errorf("name problem %q", name.problem.Text)
	}
	test.Type(name.entry, "o")
	if name.problem.Visible() {
		t.Errorf("name still has a problem: %q", name.problem.Text)
	}
	nights := f.field(t, "nights")
	nights.entry.SetText("")
	test.Type(nights.entry, "two")
	if nights.problem.Text != "Must be a whole number." {
		t.Errorf("nights problem %q", nights.problem.Text)
	}
	nights.entry.SetText("")
	test.Type(nights.entry, "31")
	if nights.problem.Text != "Must be at most 30." {
		t.Errorf("nights problem %q", nights.problem.Text)
	}
	nights.entry.SetText("")
	test.Type(nights.entry, "3")
	email := f.field(t, "email")
	test.Type(email.entry, "jo@")
	if email.problem.Text == "" {
		t.Error("a bad email passes")
	}
	test.Type(email.entry, "example.org")
	arrival := f.field(t, "arrival")
	test.Type(arrival.entry, "31/01/2027")
	if arrival.problem.Text == "" {
		t.Error("a bad date passes")
	}
	arrival.entry.SetText("2027-01-31")
	test.Type(f.field(t, "budget").entry, "450.5")
	f.field(t, "room").sel.SetSelected("double")
	f.field(t, "view").sel.SetSelected("Sea view")
	extras := f.field(t, "extras")
	extras.choose("parking", "late-checkout", "pet")
	if extras.problem.Text != "Choose at most 2." {
		t.Errorf("extras problem %q", extras.problem.Text)
	}
	test.Tap(f.submit)
	if len(got) != 0 {
		t.Fatal("submitted with three extras")
	}
	extras.choose("pet", "parking")
	test.Tap(f.field(t, "breakfast").check) // default true → false

	test.Tap(f.submit)
	if len(got) != 1 || got[0].Action != "accept" {
		t.Fatalf("answers %+v", got)
	}
	want := map[string]any{"name": "Jo", "email": "jo@example.org", "nights": int64(3), "budget": 450.5, "breakfast": false,
		"room": "double", "view": "sea", "extras": []any{"parking", "pet"}, "arrival": "2027-01-31"}
	if !reflect.DeepEqual(got[0].Content, want) {
		t.Errorf("content\n got %#v\nwant %#v", got[0].Content, want)
	}
	// The content is what the schema asks for (the engine checks it too).
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(tripSchema), &s); err != nil {
		t.Fatal(err)
	}
	res, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got[0].Content)
	var inst any
	_ = json.Unmarshal(b, &inst)
	if err := res.Validate(inst); err != nil {
		t.Errorf("content does not validate: %v", err)
	}
}

func TestFormThroughAsker(t *testing.T) {
	app := newRecordingApp(t)
	a := NewAsker(app)
	q := mcpcore.Question{Client: "vscode", Tool: "notes.add", Key: "who", Kind: catalog.StepForm, Message: "Your name?",
		Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"},"ok":{"type":"boolean"}},"required":["name"]}`)}
	call := ask(t.Context(), a, q)
	p := shownQuestion(t, a, "notes.add")
	if focused(a, p) != p.form.field(t, "name").entry {
		t.Error("the first entry does not have the focus")
	}
	test.Tap(p.form.submit)
	if a.shown() != p {
		t.Fatal("the form closed on an invalid submit")
	}
	test.Type(p.form.field(t, "name").entry, "Ada")
	test.Type(p.form.field(t, "age").entry, "36")
	test.Tap(p.form.field(t, "ok").check)
	p.form.field(t, "age").entry.OnSubmitted("36") // Enter submits
	ans, err := call.wait(t)
	if err != nil || ans.Action != "accept" || !reflect.DeepEqual(ans.Content, map[string]any{"name": "Ada", "age": int64(36), "ok": true}) {
		t.Fatalf("answer %+v, %v", ans, err)
	}

	call = ask(t.Context(), a, q)
	p = shownQuestion(t, a, "notes.add")
	test.Tap(p.form.cancel)
	if ans, err := call.wait(t); err != nil || ans.Action != "cancel" || ans.Content != nil {
		t.Fatalf("cancel: %+v, %v", ans, err)
	}
}

func TestRenderFormWindow(t *testing.T) {
	app := newRecordingApp(t)
	test.ApplyTheme(t, theme.DefaultTheme()) // before any widget: the real look
	a := NewAsker(app)
	call := ask(t.Context(), a, tripQuestion())
	p := shownQuestion(t, a, "hotel.book")
	test.Type(p.form.field(t, "name").entry, "J")
	test.Type(p.form.field(t, "email").entry, "jo@example")
	p.form.field(t, "extras").choose("parking")
	// The header, then every field in the schema's order with its caption
	// (required ones marked), description, default and a message under
	// each touched field that is wrong, then the buttons.
	header := []string{
		`label: claude-code needs some information for "Book a hotel"`, "label: A few details for the booking.",
		"label: AI app", "label: claude-code", "label: Tool", "label: Book a hotel (hotel.book)",
		"label: Fields marked * must be filled in.",
	}
	fields := []string{
		"label: Your name *", "label: As it appears on the booking.", "entry: J",
		"label: Must be at least 2 characters. {danger}",
		"label: Email", "entry: jo@example", "label: Must be an email address, like name@example.com. {danger}",
		"label: Nights *", "entry: 2",
		"label: Budget (EUR)", "entry: (a number)",
		"check: [x] Breakfast included",
		"label: Room *", "select: ((choose one))",
		"label: View", "select: ((choose one))",
		"label: Extras", "check: [x] parking", "check: [ ] late-checkout", "check: [ ] pet",
		"label: Arrival", "entry: (YYYY-MM-DD)",
	}
	buttons := []string{"button: Cancel", "button: Send {high}"}
	inUI(a, func() {
		capture(t, p.win, "form-window.png") // at the size the Asker gave it
		if got := p.win.Title(); got != "mcptray — information needed" {
			t.Errorf("title %q", got)
		}
		got := seenIn(p.win.Canvas())
		sees(t, "the form", got, slices.Concat(header, fields, buttons)...)
		// Fields not touched yet say nothing.
		seesNone(t, "the form before Submit", got, "Required", "need fixing")
		fits(t, p.win)
		inView(t, p.win, "Send")
		inView(t, p.win, "Cancel")

		p.win.Resize(fyne.NewSize(520, 1180)) // tall enough to show every field
		capture(t, p.win, "form.png")
	})
	test.Tap(p.form.submit)
	inUI(a, func() {
		capture(t, p.win, "form-refused.png")
		if a.shown() != p {
			t.Fatal("the refused form closed")
		}
		// The first field with a problem has the focus.
		if got := p.win.Canvas().Focused(); got != p.form.field(t, "name").entry {
			t.Errorf("focus on %v after the refusal, want the name", got)
		}
		// Refused: the required room says so under its select, and a
		// summary above the buttons counts the problems.
		room := slices.Index(fields, "select: ((choose one))")
		refused := slices.Concat(fields[:room+1], []string{"label: Required: choose one. {danger}"}, fields[room+1:],
			[]string{"label: 3 fields need fixing before the form can be sent. {danger}"}, buttons)
		sees(t, "the refused form", seenIn(p.win.Canvas()), slices.Concat(header, refused)...)
		fits(t, p.win)
		// Nothing above varies from run to run: the whole drawing can be
		// compared.
		test.AssertRendersToMarkup(t, "form-refused.xml", p.win.Canvas())
	})
	test.Tap(p.form.cancel)
	if ans, err := call.wait(t); err != nil || ans.Action != "cancel" {
		t.Errorf("cancel: %+v, %v", ans, err)
	}
}

func TestRefusedFormShowsItsFirstProblem(t *testing.T) {
	app := newRecordingApp(t)
	a := NewAsker(app)
	call := ask(t.Context(), a, tripQuestion())
	p := shownQuestion(t, a, "hotel.book")
	// Everything right but the last field, out of view below.
	test.Type(p.form.field(t, "name").entry, "Jo")
	p.form.field(t, "room").sel.SetSelected("suite")
	test.Type(p.form.field(t, "arrival").entry, "soon")
	inUI(a, func() { p.form.scroll.ScrollToTop() })
	test.Tap(p.form.submit)
	inUI(a, func() {
		arrival := p.form.field(t, "arrival")
		if got := p.win.Canvas().Focused(); got != arrival.entry {
			t.Errorf("focus on %v after the refusal, want the arrival date", got)
		}
		top, view := p.form.scroll.Offset.Y, p.form.scroll.Size().Height
		at := p.form.form.Position().Y + arrival.box.Position().Y
		if at < top || at+arrival.box.Size().Height > top+view {
			t.Errorf("the arrival field (%v–%v) is outside the scrolled view (%v–%v)", at, at+arrival.box.Size().Height, top, top+view)
		}
		sees(t, "the refused form", seenIn(p.win.Canvas()), "label: 1 field needs fixing before the form can be sent. {danger}")
	})
	test.Tap(p.form.cancel)
	_, _ = call.wait(t)
}
