package ui

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/mcpcore"
)

// choose checks the choices titled titles of an array field, and no other.
func choose(fl *FormField, titles ...string) {
	for i, c := range fl.Group {
		c.SetChecked(slices.Contains(titles, fl.Options[i].Title))
	}
}

func TestFormFieldsFollowTheSchema(t *testing.T) {
	uitest.NewTestApp(t)
	var got []mcpcore.Answer
	f := NewFormDialog(uitest.TripQuestion(), func(a mcpcore.Answer) { got = append(got, a) })
	var names []string
	for _, fl := range f.Fields {
		names = append(names, fl.Name)
	}
	if want := []string{"name", "email", "nights", "budget", "breakfast", "room", "view", "extras", "arrival"}; !reflect.DeepEqual(names, want) {
		t.Errorf("field order %v, want the schema's %v", names, want)
	}
	if f.Field("nights").Entry.Text != "2" || !f.Field("breakfast").Check.Checked {
		t.Error("defaults not applied")
	}
	if f.Field("room").Sel == nil || f.Field("view").Sel == nil || f.Field("extras").Group == nil || f.Field("breakfast").Check == nil {
		t.Fatal("wrong widget kinds")
	}
	if opts := f.Field("view").Sel.Options; !reflect.DeepEqual(opts, []string{NoneTitle, "Sea view", "City view"}) {
		t.Errorf("oneOf titles: %v", opts)
	}
	if opts := f.Field("room").Sel.Options; !reflect.DeepEqual(opts, []string{"single", "double", "suite"}) {
		t.Errorf("required enum options: %v", opts)
	}
	if !uitest.HasText(f.Content, "Your name *") || uitest.HasText(f.Content, "Email *") {
		t.Error("required markers wrong")
	}
}

func TestFormRefusesInvalidAndReturnsTypedContent(t *testing.T) {
	uitest.NewTestApp(t)
	var got []mcpcore.Answer
	f := NewFormDialog(uitest.TripQuestion(), func(a mcpcore.Answer) { got = append(got, a) })
	w := test.NewTempWindow(t, container.NewBorder(nil, f.Buttons, nil, nil, f.Content))
	w.Resize(fyne.NewSize(520, 900))

	// Nothing typed yet: no message, but Submit is refused.
	if uitest.HasText(f.Content, "Required") {
		t.Error("a message before the person did anything")
	}
	test.Tap(f.Submit)
	if len(got) != 0 {
		t.Fatalf("submitted an invalid form: %+v", got)
	}
	name := f.Field("name")
	if !name.Problem.Visible() || name.Problem.Text != "Required." {
		t.Errorf("name problem %q (visible %v)", name.Problem.Text, name.Problem.Visible())
	}
	if room := f.Field("room"); room.Problem.Text != "Required: choose one." {
		t.Errorf("room problem %q", room.Problem.Text)
	}
	if !f.summary.Visible() || !uitest.HasText(f.Buttons, "need fixing") {
		t.Error("no summary of the problems")
	}

	// Live validation, next to each field.
	test.Type(name.Entry, "J")
	if name.Problem.Text != "Must be at least 2 characters." {
		t.Errorf("name problem %q", name.Problem.Text)
	}
	test.Type(name.Entry, "o")
	if name.Problem.Visible() {
		t.Errorf("name still has a problem: %q", name.Problem.Text)
	}
	nights := f.Field("nights")
	nights.Entry.SetText("")
	test.Type(nights.Entry, "two")
	if nights.Problem.Text != "Must be a whole number." {
		t.Errorf("nights problem %q", nights.Problem.Text)
	}
	nights.Entry.SetText("")
	test.Type(nights.Entry, "31")
	if nights.Problem.Text != "Must be at most 30." {
		t.Errorf("nights problem %q", nights.Problem.Text)
	}
	nights.Entry.SetText("")
	test.Type(nights.Entry, "3")
	email := f.Field("email")
	test.Type(email.Entry, "jo@")
	if email.Problem.Text == "" {
		t.Error("a bad email passes")
	}
	test.Type(email.Entry, "example.org")
	arrival := f.Field("arrival")
	test.Type(arrival.Entry, "31/01/2027")
	if arrival.Problem.Text == "" {
		t.Error("a bad date passes")
	}
	arrival.Entry.SetText("2027-01-31")
	test.Type(f.Field("budget").Entry, "450.5")
	f.Field("room").Sel.SetSelected("double")
	f.Field("view").Sel.SetSelected("Sea view")
	extras := f.Field("extras")
	choose(extras, "parking", "late-checkout", "pet")
	if extras.Problem.Text != "Choose at most 2." {
		t.Errorf("extras problem %q", extras.Problem.Text)
	}
	test.Tap(f.Submit)
	if len(got) != 0 {
		t.Fatal("submitted with three extras")
	}
	choose(extras, "pet", "parking")
	test.Tap(f.Field("breakfast").Check) // default true → false

	test.Tap(f.Submit)
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
	if err := json.Unmarshal([]byte(uitest.TripSchema), &s); err != nil {
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

// TestADateFieldOpensACalendar: a date field's button opens a calendar;
// the day chosen is written in the field as the form sends it.
func TestADateFieldOpensACalendar(t *testing.T) {
	uitest.NewTestApp(t)
	f := NewFormDialog(uitest.TripQuestion(), func(mcpcore.Answer) {})
	w := test.NewTempWindow(t, container.NewBorder(nil, f.Buttons, nil, nil, f.Content))
	w.Resize(fyne.NewSize(520, 900))
	arrival := f.Field("arrival")
	if arrival.Pick == nil || f.Field("name").Pick != nil {
		t.Fatal("the date field has no calendar button, or a text field has one")
	}
	test.Type(arrival.Entry, "2026-03-09")
	test.Tap(arrival.Pick)
	var cal *widget.Calendar
	if top := w.Canvas().Overlays().Top(); top != nil {
		uitest.Walk(top, func(o fyne.CanvasObject) {
			if c, ok := o.(*widget.Calendar); ok {
				cal = c
			}
		})
	}
	if cal == nil {
		t.Fatal("no calendar opened")
	}
	// The calendar shows the month typed: choose its 21st.
	var day *widget.Button
	uitest.Walk(w.Canvas().Overlays().Top(), func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && b.Text == "21" {
			day = b
		}
	})
	if day == nil {
		t.Fatalf("the calendar shows no 21st: %v", uitest.SeenIn(w.Canvas()))
	}
	test.Tap(day)
	if got := arrival.Entry.Text; got != "2026-03-21" {
		t.Errorf("the field reads %q after choosing the 21st of March 2026, want 2026-03-21", got)
	}
	if w.Canvas().Overlays().Top() != nil {
		t.Error("the calendar stays open after a day is chosen")
	}
}
