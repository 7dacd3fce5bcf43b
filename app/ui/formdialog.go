package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/words"
	"github.com/mcptray/mcptray/mcpcore"
)

// FormDialog is a form generated from an input step's flat JSON Schema:
// one field per property, in the schema's order, typed like the schema
// (integers as integers, booleans as booleans), checked as the person
// types; Submit is refused, with the problems shown next to their fields,
// until every field is valid.
type FormDialog struct {
	Fields  []*FormField
	Content fyne.CanvasObject
	Buttons fyne.CanvasObject
	summary *widget.Label
	Submit  *EscButton
	Cancel  *EscButton
	answer  func(mcpcore.Answer)
	Form    *fyne.Container
	// Scroll, when set, is what the form scrolls in (the Asker's window).
	Scroll *container.Scroll
	// Grown, when set, runs after messages came or went (the Asker makes
	// the window fit again); focus, when set, gives a field the focus.
	Grown func()
	Focus func(fyne.Focusable)
}

// Option is one choice of an enum or oneOf: the value sent and its title.
type Option struct {
	Value any
	Title string
}

// NoneTitle is the choice that leaves an optional select unset.
const NoneTitle = "(none)"

// FormField is one property of the form.
type FormField struct {
	Name, Typ, Title, Desc, format, pattern  string
	Required                                 bool
	Def                                      any
	Options                                  []Option // enum/oneOf (select) or items (check group)
	minimum, maximum                         *float64
	minLength, maxLength, minItems, maxItems *int

	Entry *escEntry
	// Pick, on a date field, opens a calendar to choose the date from.
	Pick  *widget.Button
	Sel   *escSelect
	Check *escCheck
	// Group holds one check box per choice of an array field.
	Group   []*escCheck
	Problem *widget.Label
	Box     *fyne.Container
	Touched bool
}

// PropSchema is the part of a property schema the form understands.
type PropSchema struct {
	Type        any             `json:"type"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Format      string          `json:"format"`
	Pattern     string          `json:"pattern"`
	Enum        []any           `json:"enum"`
	EnumNames   []string        `json:"enumNames"`
	OneOf       []constTitle    `json:"oneOf"`
	AnyOf       []constTitle    `json:"anyOf"`
	Default     json.RawMessage `json:"default"`
	Minimum     *float64        `json:"minimum"`
	Maximum     *float64        `json:"maximum"`
	MinLength   *int            `json:"minLength"`
	MaxLength   *int            `json:"maxLength"`
	MinItems    *int            `json:"minItems"`
	MaxItems    *int            `json:"maxItems"`
	Items       *PropSchema     `json:"items"`
}

type constTitle struct {
	Const any    `json:"const"`
	Title string `json:"title"`
}

// ParseForm reads a flat object schema into fields, in property order.
func ParseForm(raw json.RawMessage) ([]*FormField, error) {
	var root struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("the form's schema: %w", err)
	}
	names, props, err := OrderedObject(root.Properties)
	if err != nil {
		return nil, fmt.Errorf("the form's properties: %w", err)
	}
	var out []*FormField
	for _, name := range names {
		var ps PropSchema
		if err := json.Unmarshal(props[name], &ps); err != nil {
			return nil, fmt.Errorf("property %q: %w", name, err)
		}
		f := &FormField{Name: name, Typ: typeOf(ps.Type), Title: ps.Title, Desc: ps.Description, format: ps.Format, pattern: ps.Pattern,
			minimum: ps.Minimum, maximum: ps.Maximum, minLength: ps.MinLength, maxLength: ps.MaxLength, minItems: ps.MinItems, maxItems: ps.MaxItems}
		if f.Title == "" {
			f.Title = name
		}
		for _, r := range root.Required {
			if r == name {
				f.Required = true
			}
		}
		if len(ps.Default) > 0 {
			d := json.NewDecoder(bytes.NewReader(ps.Default))
			d.UseNumber()
			_ = d.Decode(&f.Def)
		}
		src := &ps
		if f.Typ == "array" && ps.Items != nil {
			src = ps.Items
		}
		f.Options = OptionsOf(src)
		out = append(out, f)
	}
	return out, nil
}

func typeOf(t any) string {
	switch v := t.(type) {
	case string:
		return v
	case []any: // ["string","null"]: the first non-null
		for _, x := range v {
			if s, ok := x.(string); ok && s != "null" {
				return s
			}
		}
	}
	return "string"
}

// OptionsOf are the choices of an enum (titled by enumNames) or a oneOf/anyOf
// of {const, title}.
func OptionsOf(ps *PropSchema) []Option {
	var out []Option
	for i, v := range ps.Enum {
		t := fmt.Sprint(v)
		if i < len(ps.EnumNames) && ps.EnumNames[i] != "" {
			t = ps.EnumNames[i]
		}
		out = append(out, Option{Value: v, Title: t})
	}
	for _, alts := range [][]constTitle{ps.OneOf, ps.AnyOf} {
		for _, c := range alts {
			t := c.Title
			if t == "" {
				t = fmt.Sprint(c.Const)
			}
			out = append(out, Option{Value: c.Const, Title: t})
		}
	}
	return out
}

// OrderedObject decodes a JSON object keeping its key order.
func OrderedObject(raw json.RawMessage) ([]string, map[string]json.RawMessage, error) {
	vals := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, vals, nil
	}
	if err := json.Unmarshal(raw, &vals); err != nil {
		return nil, nil, err
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	if _, err := d.Token(); err != nil {
		return nil, nil, err
	}
	var names []string
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return nil, nil, err
		}
		names = append(names, k.(string))
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			return nil, nil, err
		}
	}
	return names, vals, nil
}

// NewFormDialog builds the form of q; answer receives accept (with the
// typed content) or cancel, which Escape gives too.
func NewFormDialog(q mcpcore.Question, answer func(mcpcore.Answer)) *FormDialog {
	f := &FormDialog{answer: answer}
	cancel := func() { f.answer(mcpcore.Answer{Action: "cancel"}) }
	fields, err := ParseForm(q.Schema)
	title := fmt.Sprintf("%s needs some information for %s", AppName(q), ToolName(q))
	parts := []fyne.CanvasObject{Header(q, title)}
	if err != nil {
		bad := WrapLabel("This form cannot be shown: " + err.Error())
		bad.Importance = widget.DangerImportance
		parts = append(parts, bad)
	}
	if slices.ContainsFunc(fields, func(fl *FormField) bool { return fl.Required }) {
		parts = append(parts, SmallPrint("Fields marked * must be filled in."))
	}
	f.Fields = fields
	var rows []fyne.CanvasObject
	for _, fl := range fields {
		rows = append(rows, fl.Build(f.revalidate, f.trySubmit, cancel))
	}
	form := container.NewVBox(rows...)
	f.Form = form
	f.summary = WrapLabel("")
	f.summary.Importance = widget.DangerImportance
	f.summary.Hide()
	f.Cancel = NewEscButton("Cancel", theme.CancelIcon(), cancel, cancel)
	f.Submit = NewEscButton("Send", theme.ConfirmIcon(), cancel, f.trySubmit)
	f.Submit.Importance = widget.HighImportance
	if err != nil {
		f.Submit.Disable()
	}
	buttons := container.NewHBox(layout.NewSpacer(), f.Cancel, f.Submit)
	f.Buttons = container.NewVBox(f.summary, buttons)
	f.Content = container.NewVBox(append(parts, widget.NewSeparator(), form)...)
	return f
}

// FirstFocus is the widget to focus when the form opens.
func (f *FormDialog) FirstFocus() fyne.Focusable {
	for _, fl := range f.Fields {
		if fl.Entry != nil {
			return fl.Entry
		}
	}
	return f.Cancel
}

// revalidate refreshes the messages of the fields the person touched.
func (f *FormDialog) revalidate() {
	ok := true
	for _, fl := range f.Fields {
		if fl.Show() != "" {
			ok = false
		}
	}
	if ok {
		f.summary.Hide()
	}
	f.relayout()
}

// relayout lays the form out again after messages came or went.
func (f *FormDialog) relayout() {
	for _, fl := range f.Fields {
		fl.Box.Refresh()
	}
	f.Form.Refresh()
	if c, ok := f.Buttons.(*fyne.Container); ok {
		c.Refresh()
	}
	if c, ok := f.Content.(*fyne.Container); ok {
		c.Refresh()
	}
	if f.Grown != nil {
		f.Grown()
	}
}

// trySubmit answers accept with the typed content, or refuses: every
// problem shows at once, counted above the buttons, and the first field
// with one comes into view with the focus.
func (f *FormDialog) trySubmit() {
	content, problems := f.values()
	if problems == 0 {
		f.answer(mcpcore.Answer{Action: "accept", Content: content})
		return
	}
	var first *FormField
	for _, fl := range f.Fields {
		fl.Touched = true
		if fl.Show() != "" && first == nil {
			first = fl
		}
	}
	f.summary.SetText(fmt.Sprintf("%s before the form can be sent.", words.Count(problems, "field needs fixing", "fields need fixing")))
	f.summary.Show()
	f.relayout()
	if f.Scroll != nil {
		f.Scroll.ScrollToOffset(fyne.NewPos(0, f.Form.Position().Y+first.Box.Position().Y))
	}
	if o := first.focusable(); o != nil && f.Focus != nil {
		f.Focus(o)
	}
}

// focusable is the field's widget that takes the focus (nil for a group
// of check boxes with no choices).
func (fl *FormField) focusable() fyne.Focusable {
	switch {
	case fl.Entry != nil:
		return fl.Entry
	case fl.Sel != nil:
		return fl.Sel
	case fl.Check != nil:
		return fl.Check
	case len(fl.Group) > 0:
		return fl.Group[0]
	}
	return nil
}

// values are the form's typed content and how many fields are invalid.
func (f *FormDialog) values() (map[string]any, int) {
	out := map[string]any{}
	bad := 0
	for _, fl := range f.Fields {
		v, set, msg := fl.Value()
		if msg != "" {
			bad++
			continue
		}
		if set {
			out[fl.Name] = v
		}
	}
	return out, bad
}

// Label is the field's caption, with a required marker.
func (fl *FormField) Label() string {
	if fl.Required {
		return fl.Title + " *"
	}
	return fl.Title
}

// Build makes the field's widgets; changed runs on every edit, Enter in
// an entry runs submit, Escape anywhere cancel.
func (fl *FormField) Build(changed, submit, cancel func()) fyne.CanvasObject {
	fl.Problem = WrapLabel("")
	fl.Problem.Importance = widget.DangerImportance
	fl.Problem.Hide()
	edited := func() {
		fl.Touched = true
		changed()
	}
	var input fyne.CanvasObject
	caption := widget.NewLabelWithStyle(fl.Label(), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	switch {
	case fl.Typ == "boolean":
		fl.Check = newEscCheck(fl.Label(), cancel)
		if b, ok := fl.Def.(bool); ok {
			fl.Check.SetChecked(b)
		}
		fl.Check.OnChanged = func(bool) { edited() }
		input, caption = fl.Check, nil
	case fl.Typ == "array":
		box := container.NewVBox()
		for _, o := range fl.Options {
			c := newEscCheck(o.Title, cancel)
			if d, ok := fl.Def.([]any); ok && slices.ContainsFunc(d, func(v any) bool { return SameValue(v, o.Value) }) {
				c.SetChecked(true)
			}
			c.OnChanged = func(bool) { edited() }
			fl.Group = append(fl.Group, c)
			box.Add(c)
		}
		input = box
	case len(fl.Options) > 0:
		var titles []string
		if !fl.Required {
			titles = append(titles, NoneTitle)
		}
		for _, o := range fl.Options {
			titles = append(titles, o.Title)
		}
		fl.Sel = newEscSelect(titles, cancel)
		fl.Sel.PlaceHolder = "(choose one)"
		if t, ok := fl.TitleOf(fl.Def); ok && fl.Def != nil {
			fl.Sel.SetSelected(t)
		}
		fl.Sel.OnChanged = func(string) { edited() }
		input = fl.Sel
	default:
		fl.Entry = newEscEntry(cancel)
		fl.Entry.SetPlaceHolder(fl.placeholder())
		if fl.Def != nil {
			fl.Entry.SetText(fmt.Sprint(fl.Def))
		}
		fl.Entry.OnChanged = func(string) { edited() }
		fl.Entry.OnSubmitted = func(string) { submit() }
		if fl.format == "date" {
			fl.Pick = datePicker(fl.Entry)
			fl.Entry.ActionItem = fl.Pick
		}
		input = fl.Entry
	}
	rows := []fyne.CanvasObject{}
	if caption != nil {
		rows = append(rows, caption)
	}
	if fl.Desc != "" {
		rows = append(rows, SmallPrint(fl.Desc))
	}
	rows = append(rows, input, fl.Problem)
	fl.Box = container.NewVBox(rows...)
	return fl.Box
}

// TitleOf finds the title of the option whose value is v.
func (fl *FormField) TitleOf(v any) (string, bool) {
	for _, o := range fl.Options {
		if SameValue(o.Value, v) {
			return o.Title, true
		}
	}
	return "", false
}

// SameValue reports whether two values read from JSON print the same.
func SameValue(a, b any) bool {
	return fmt.Sprint(a) == fmt.Sprint(b)
}

// placeholder hints the expected input.
func (fl *FormField) placeholder() string {
	switch {
	case fl.Typ == "integer":
		return "a whole number" + fl.rangeText()
	case fl.Typ == "number":
		return "a number" + fl.rangeText()
	case fl.format == "email":
		return "name@example.com"
	case fl.format == "uri":
		return "https://…"
	case fl.format == "date":
		return "YYYY-MM-DD"
	case fl.format == "date-time":
		return "YYYY-MM-DDThh:mm:ssZ"
	}
	return ""
}

func (fl *FormField) rangeText() string {
	switch {
	case fl.minimum != nil && fl.maximum != nil:
		return fmt.Sprintf(" from %s to %s", Num(*fl.minimum), Num(*fl.maximum))
	case fl.minimum != nil:
		return ", at least " + Num(*fl.minimum)
	case fl.maximum != nil:
		return ", at most " + Num(*fl.maximum)
	}
	return ""
}

// Num writes f as a person types it: no exponent, no trailing zeros.
func Num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// Show updates the field's message (only once touched) and returns it.
func (fl *FormField) Show() string {
	_, _, msg := fl.Value()
	if !fl.Touched {
		msg = ""
	}
	if msg == "" {
		fl.Problem.SetText("")
		fl.Problem.Hide()
	} else {
		fl.Problem.SetText(msg)
		fl.Problem.Show()
	}
	_, _, real := fl.Value()
	return real
}

var emailRE = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)

// Value is the field's typed value, whether it is set, and what is wrong
// with it ("" when nothing).
func (fl *FormField) Value() (any, bool, string) {
	switch {
	case fl.Check != nil:
		return fl.Check.Checked, true, ""
	case fl.Typ == "array":
		vals := []any{}
		for i, c := range fl.Group {
			if c.Checked {
				vals = append(vals, fl.Options[i].Value)
			}
		}
		n := len(vals)
		switch {
		case fl.minItems != nil && n < *fl.minItems:
			return nil, false, fmt.Sprintf("Choose at least %d.", *fl.minItems)
		case fl.maxItems != nil && n > *fl.maxItems:
			return nil, false, fmt.Sprintf("Choose at most %d.", *fl.maxItems)
		case n == 0 && !fl.Required:
			return nil, false, ""
		}
		return vals, true, ""
	case fl.Sel != nil:
		t := fl.Sel.Selected
		if t == "" || t == NoneTitle {
			if fl.Required {
				return nil, false, "Required: choose one."
			}
			return nil, false, ""
		}
		for _, o := range fl.Options {
			if o.Title == t {
				return typed(o.Value, fl.Typ), true, ""
			}
		}
		return nil, false, "Choose one of the options."
	}
	text := fl.Entry.Text
	if strings.TrimSpace(text) == "" {
		if fl.Required {
			return nil, false, "Required."
		}
		return nil, false, ""
	}
	switch fl.Typ {
	case "integer":
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil {
			return nil, false, "Must be a whole number."
		}
		if msg := fl.inRange(float64(n)); msg != "" {
			return nil, false, msg
		}
		return n, true, ""
	case "number":
		n, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil {
			return nil, false, "Must be a number."
		}
		if msg := fl.inRange(n); msg != "" {
			return nil, false, msg
		}
		return n, true, ""
	}
	if msg := fl.checkString(text); msg != "" {
		return nil, false, msg
	}
	return text, true, ""
}

// typed converts an option value to the field's type (JSON numbers from
// the schema decode as float64).
func typed(v any, typ string) any {
	if f, ok := v.(float64); ok && typ == "integer" {
		return int64(f)
	}
	return v
}

func (fl *FormField) inRange(n float64) string {
	if fl.minimum != nil && n < *fl.minimum {
		return "Must be at least " + Num(*fl.minimum) + "."
	}
	if fl.maximum != nil && n > *fl.maximum {
		return "Must be at most " + Num(*fl.maximum) + "."
	}
	return ""
}

func (fl *FormField) checkString(s string) string {
	n := len([]rune(s))
	if fl.minLength != nil && n < *fl.minLength {
		return fmt.Sprintf("Must be at least %d characters.", *fl.minLength)
	}
	if fl.maxLength != nil && n > *fl.maxLength {
		return fmt.Sprintf("Must be at most %d characters.", *fl.maxLength)
	}
	if fl.pattern != "" {
		if re, err := regexp.Compile(fl.pattern); err == nil && !re.MatchString(s) {
			return "Not in the expected form (the pattern " + fl.pattern + ")."
		}
	}
	switch fl.format {
	case "email":
		if _, err := mail.ParseAddress(s); err != nil || !emailRE.MatchString(s) {
			return "Must be an email address, like name@example.com."
		}
	case "uri":
		if u, err := url.Parse(s); err != nil || u.Scheme == "" || (u.Host == "" && u.Opaque == "") {
			return "Must be a full address, like https://example.com/page."
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return "Must be a date, like 2026-01-31."
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return "Must be a date and time, like 2026-01-31T09:30:00Z."
		}
	}
	return ""
}

// Field is the form's field for the property name, or nil.
func (f *FormDialog) Field(name string) *FormField {
	for _, fl := range f.Fields {
		if fl.Name == name {
			return fl
		}
	}
	return nil
}

// datePicker is the button at the end of a date field: it opens a
// calendar on the date typed (today when none is), and the day chosen is
// written in the field as the form sends it, YYYY-MM-DD. Typing the date
// still works.
func datePicker(e *escEntry) *widget.Button {
	b := widget.NewButtonWithIcon("", theme.CalendarIcon(), func() {
		c := fyne.CurrentApp().Driver().CanvasForObject(e)
		if c == nil {
			return
		}
		shown := time.Now()
		if d, err := time.Parse(time.DateOnly, strings.TrimSpace(e.Text)); err == nil {
			shown = d
		}
		var pop *widget.PopUp
		cal := widget.NewCalendar(shown, func(d time.Time) {
			pop.Hide()
			e.SetText(d.Format(time.DateOnly))
			c.Focus(e)
		})
		pop = widget.NewPopUp(cal, c)
		at := fyne.CurrentApp().Driver().AbsolutePositionForObject(e)
		pop.ShowAtPosition(at.Add(fyne.NewPos(0, e.Size().Height)))
	})
	b.Importance = widget.LowImportance
	return b
}
