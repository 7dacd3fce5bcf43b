package app

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore"
)

func TestFormThroughAsker(t *testing.T) {
	app := uitest.NewRecordingApp(t)
	a := NewAsker(app)
	q := mcpcore.Question{Client: "vscode", Tool: "notes.add", Key: "who", Kind: catalog.StepForm, Message: "Your name?",
		Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"},"ok":{"type":"boolean"}},"required":["name"]}`)}
	call := ask(t.Context(), a, q)
	p := shownQuestion(t, a, "notes.add")
	if focused(a, p) != p.form.Field("name").Entry {
		t.Error("the first entry does not have the focus")
	}
	test.Tap(p.form.Submit)
	if a.shown() != p {
		t.Fatal("the form closed on an invalid submit")
	}
	test.Type(p.form.Field("name").Entry, "Ada")
	test.Type(p.form.Field("age").Entry, "36")
	test.Tap(p.form.Field("ok").Check)
	p.form.Field("age").Entry.OnSubmitted("36") // Enter submits
	ans, err := call.wait(t)
	if err != nil || ans.Action != "accept" || !reflect.DeepEqual(ans.Content, map[string]any{"name": "Ada", "age": int64(36), "ok": true}) {
		t.Fatalf("answer %+v, %v", ans, err)
	}

	call = ask(t.Context(), a, q)
	p = shownQuestion(t, a, "notes.add")
	test.Tap(p.form.Cancel)
	if ans, err := call.wait(t); err != nil || ans.Action != "cancel" || ans.Content != nil {
		t.Fatalf("cancel: %+v, %v", ans, err)
	}
}

// TestAPromptsFormNamesThePrompt: a form a server asks while its prompt
// is got names the prompt, not a tool, in the window and the notification,
// with the server beside it.
func TestAPromptsFormNamesThePrompt(t *testing.T) {
	app := uitest.NewRecordingApp(t)
	a := NewAsker(app)
	q := mcpcore.Question{Client: "claude-code", Prompt: "up_greet_asked", Server: "up", Key: "form", Kind: catalog.StepForm, Message: "Whom to greet?",
		Schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)}
	call := ask(t.Context(), a, q)
	p := shownQuestion(t, a, "up_greet_asked")
	inUI(a, func() {
		got := uitest.SeenIn(p.win.Canvas())
		uitest.Sees(t, "the prompt's form", got, `label: claude-code needs some information for the prompt "up_greet_asked"`, "label: Whom to greet?",
			"label: AI app", "label: claude-code", "label: Prompt", "label: up_greet_asked", "label: Server", "label: up")
		uitest.SeesNone(t, "the prompt's form", got, "label: Tool")
	})
	if n := app.Notifications(); len(n) != 1 || n[0].Content != `claude-code is getting the prompt "up_greet_asked".` {
		t.Errorf("the notification: %+v", n)
	}
	test.Tap(p.form.Cancel)
	if ans, err := call.wait(t); err != nil || ans.Action != "cancel" {
		t.Fatalf("cancel: %+v, %v", ans, err)
	}
}

func TestRenderFormWindow(t *testing.T) {
	app := uitest.NewRecordingApp(t)
	test.ApplyTheme(t, theme.DefaultTheme()) // before any widget: the real look
	a := NewAsker(app)
	call := ask(t.Context(), a, uitest.TripQuestion())
	p := shownQuestion(t, a, "hotel.book")
	test.Type(p.form.Field("name").Entry, "J")
	test.Type(p.form.Field("email").Entry, "jo@example")
	p.form.Field("extras").Group[0].SetChecked(true) // "parking", the first choice
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
		uitest.Capture(t, p.win, "form-window.png") // at the size the Asker gave it
		if got := p.win.Title(); got != "mcptray — information needed" {
			t.Errorf("title %q", got)
		}
		got := uitest.SeenIn(p.win.Canvas())
		uitest.Sees(t, "the form", got, slices.Concat(header, fields, buttons)...)
		// Fields not touched yet say nothing.
		uitest.SeesNone(t, "the form before Submit", got, "Required", "need fixing")
		uitest.Fits(t, p.win)
		uitest.InView(t, p.win, "Send")
		uitest.InView(t, p.win, "Cancel")

		p.win.Resize(fyne.NewSize(520, 1180)) // tall enough to show every field
		uitest.Capture(t, p.win, "form.png")
	})
	test.Tap(p.form.Submit)
	inUI(a, func() {
		uitest.Capture(t, p.win, "form-refused.png")
		if a.shown() != p {
			t.Fatal("the refused form closed")
		}
		// The first field with a problem has the focus.
		if got := p.win.Canvas().Focused(); got != p.form.Field("name").Entry {
			t.Errorf("focus on %v after the refusal, want the name", got)
		}
		// Refused: the required room says so under its select, and a
		// summary above the buttons counts the problems.
		room := slices.Index(fields, "select: ((choose one))")
		refused := slices.Concat(fields[:room+1], []string{"label: Required: choose one. {danger}"}, fields[room+1:],
			[]string{"label: 3 fields need fixing before the form can be sent. {danger}"}, buttons)
		uitest.Sees(t, "the refused form", uitest.SeenIn(p.win.Canvas()), slices.Concat(header, refused)...)
		uitest.Fits(t, p.win)
		// Nothing above varies from run to run: the whole drawing can be
		// compared.
		test.AssertRendersToMarkup(t, "form-refused.xml", p.win.Canvas())
	})
	test.Tap(p.form.Cancel)
	if ans, err := call.wait(t); err != nil || ans.Action != "cancel" {
		t.Errorf("cancel: %+v, %v", ans, err)
	}
}

func TestRefusedFormShowsItsFirstProblem(t *testing.T) {
	app := uitest.NewRecordingApp(t)
	a := NewAsker(app)
	call := ask(t.Context(), a, uitest.TripQuestion())
	p := shownQuestion(t, a, "hotel.book")
	// Everything right but the last field, out of view below.
	test.Type(p.form.Field("name").Entry, "Jo")
	p.form.Field("room").Sel.SetSelected("suite")
	test.Type(p.form.Field("arrival").Entry, "soon")
	inUI(a, func() { p.form.Scroll.ScrollToTop() })
	test.Tap(p.form.Submit)
	inUI(a, func() {
		arrival := p.form.Field("arrival")
		if got := p.win.Canvas().Focused(); got != arrival.Entry {
			t.Errorf("focus on %v after the refusal, want the arrival date", got)
		}
		top, view := p.form.Scroll.Offset.Y, p.form.Scroll.Size().Height
		at := p.form.Form.Position().Y + arrival.Box.Position().Y
		if at < top || at+arrival.Box.Size().Height > top+view {
			t.Errorf("the arrival field (%v–%v) is outside the scrolled view (%v–%v)", at, at+arrival.Box.Size().Height, top, top+view)
		}
		uitest.Sees(t, "the refused form", uitest.SeenIn(p.win.Canvas()), "label: 1 field needs fixing before the form can be sent. {danger}")
	})
	test.Tap(p.form.Cancel)
	_, _ = call.wait(t)
}
