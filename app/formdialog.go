package app

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

// formDialog is a form generated from an input step's flat JSON Schema:
// one field per property, in the schema's order, typed like the schema
// (integers as integers, booleans as booleans), checked as the person
// types; Submit is refused, with the problems shown next to their fields,
// until every field is valid.
type formDialog struct {
	fields  []*formField
	content fyne.CanvasObject
	buttons fyne.CanvasObject
	summary *widget.Label
	submit  *escButton
	cancel  *escButton
	answer  func(mcpcore.Answer)
	form    *fyne.Container
	// scroll, when set, is what the form scrolls in (the Asker's window).
	scroll *container.Scroll
	// grown, when set, runs after messages came or went (the Asker makes
	// the window fit again); focus, when set, gives a field the focus.
	grown func()
	focus func(fyne.Focusable)
}

// option is one choice of an enum or oneOf: the value sent and its title.
type option struct {
	value any
	title string
}

// noneTitle is the choice that leaves an optional select unset.
const noneTitle = "(none)"

// formField is one property of the form.
type formField struct {
	name, typ, title, desc, format, pattern  string
	required                                 bool
	def                                      any
	options                                  []option // enum/oneOf (select) or items (check group)
	minimum, maximum                         *float64
	minLength, maxLength, minItems, maxItems *int

	entry *escEntry
	sel   *escSelect
	check *escCheck
	// group holds one check box per choice of an array field.
	group   []*escCheck
	problem *widget.Label
	box     *fyne.Container
	touched bool
}

// propSchema is the part of a property schema the form understands.
type propSchema struct {
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
	Items       *propSchema     `json:"items"`
}

type constTitle struct {
	Const any    `json:"const"`
	Title string `json:"title"`
}

// parseForm reads a flat object schema into fields, in property order.
func parseForm(raw json.RawMessage) ([]*formField, error) {
	var root struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("the form's schema: %w", err)
	}
	names, props, err := orderedObject(root.Properties)
	if err != nil {
		return nil, fmt.Errorf("the form's properties: %w", err)
	}
	var out []*formField
	for _, name := range names {
		var ps propSchema
		if err := json.Unmarshal(props[name], &ps); err != nil {
			return nil, fmt.Errorf("property %q: %w", name, err)
		}
		f := &formField{name: name, typ: typeOf(ps.Type), title: ps.Title, desc: ps.Description, format: ps.Format, pattern: ps.Pattern,
			minimum: ps.Minimum, maximum: ps.Maximum, minLength: ps.MinLength, maxLength: ps.MaxLength, minItems: ps.MinItems, maxItems: ps.MaxItems}
		if f.title == "" {
			f.title = name
		}
		for _, r := range root.Required {
			if r == name {
				f.required = true
			}
		}
		if len(ps.Default) > 0 {
			d := json.NewDecoder(bytes.NewReader(ps.Default))
			d.UseNumber()
			_ = d.Decode(&f.def)
		}
		src := &ps
		if f.typ == "array" && ps.Items != nil {
			src = ps.Items
		}
		f.options = optionsOf(src)
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

// optionsOf are the choices of an enum (titled by enumNames) or a oneOf/anyOf
// of {const, title}.
func optionsOf(ps *propSchema) []option {
	var out []option
	for i, v := range ps.Enum {
		t := fmt.Sprint(v)
		if i < len(ps.EnumNames) && ps.EnumNames[i] != "" {
			t = ps.EnumNames[i]
		}
		out = append(out, option{value: v, title: t})
	}
	for _, alts := range [][]constTitle{ps.OneOf, ps.AnyOf} {
		for _, c := range alts {
			t := c.Title
			if t == "" {
				t = fmt.Sprint(c.Const)
			}
			out = append(out, option{value: c.Const, title: t})
		}
	}
	return out
}

// orderedObject decodes a JSON object keeping its key order.
func orderedObject(raw json.RawMessage) ([]string, map[string]json.RawMessage, error) {
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

// newFormDialog builds the form of q; answer receives accept (with the
// typed content) or cancel, which Escape gives too.
func newFormDialog(q mcpcore.Question, answer func(mcpcore.Answer)) *formDialog {
	f := &formDialog{answer: answer}
	cancel := func() { f.answer(mcpcore.Answer{Action: "cancel"}) }
	fields, err := parseForm(q.Schema)
	title := fmt.Sprintf("%s needs some information for %s", appName(q), toolName(q))
	parts := []fyne.CanvasObject{header(q, title)}
	if err != nil {
		bad := wrapLabel("This form cannot be shown: " + err.Error())
		bad.Importance = widget.DangerImportance
		parts = append(parts, bad)
	}
	if slices.ContainsFunc(fields, func(fl *formField) bool { return fl.required }) {
		parts = append(parts, smallPrint("Fields marked * must be filled in."))
	}
	f.fields = fields
	var rows []fyne.CanvasObject
	for _, fl := range fields {
		rows = append(rows, fl.build(f.revalidate, f.trySubmit, cancel))
	}
	form := container.NewVBox(rows...)
	f.form = form
	f.summary = wrapLabel("")
	f.summary.Importance = widget.DangerImportance
	f.summary.Hide()
	f.cancel = newEscButton("Cancel", theme.CancelIcon(), cancel, cancel)
	f.submit = newEscButton("Send", theme.ConfirmIcon(), cancel, f.trySubmit)
	f.submit.Importance = widget.HighImportance
	if err != nil {
		f.submit.Disable()
	}
	buttons := container.NewHBox(layout.NewSpacer(), f.cancel, f.submit)
	f.buttons = container.NewVBox(f.summary, buttons)
	f.content = container.NewVBox(append(parts, widget.NewSeparator(), form)...)
	return f
}

// firstFocus is the widget to focus when the form opens.
func (f *formDialog) firstFocus() fyne.Focusable {
	for _, fl := range f.fields {
		if fl.entry != nil {
			return fl.entry
		}
	}
	return f.cancel
}

// revalidate refreshes the messages of the fields the person touched.
func (f *formDialog) revalidate() {
	ok := true
	for _, fl := range f.fields {
		if fl.show() != "" {
			ok = false
		}
	}
	if ok {
		f.summary.Hide()
	}
	f.relayout()
}

// relayout lays the form out again after messages came or went.
func (f *formDialog) relayout() {
	for _, fl := range f.fields {
		fl.box.Refresh()
	}
	f.form.Refresh()
	if c, ok := f.buttons.(*fyne.Container); ok {
		c.Refresh()
	}
	if c, ok := f.content.(*fyne.Container); ok {
		c.Refresh()
	}
	if f.grown != nil {
		f.grown()
	}
}

// trySubmit answers accept with the typed content, or refuses: every
// problem shows at once, counted above the buttons, and the first field
// with one comes into view with the focus.
func (f *formDialog) trySubmit() {
	content, problems := f.values()
	if problems == 0 {
		f.answer(mcpcore.Answer{Action: "accept", Content: content})
		return
	}
	var first *formField
	for _, fl := range f.fields {
		fl.touched = true
		if fl.show() != "" && first == nil {
			first = fl
		}
	}
	f.summary.SetText(fmt.Sprintf("%s before the form can be sent.", words.Count(problems, "field needs fixing", "fields need fixing")))
	f.summary.Show()
	f.relayout()
	if f.scroll != nil {
		f.scroll.ScrollToOffset(fyne.NewPos(0, f.form.Position().Y+first.box.Position().Y))
	}
	if o := first.focusable(); o != nil && f.focus != nil {
		f.focus(o)
	}
}

// focusable is the field's widget that takes the focus (nil for a group
// of check boxes with no choices).
func (fl *formField) focusable() fyne.Focusable {
	switch {
	case fl.entry != nil:
		return fl.entry
	case fl.sel != nil:
		return fl.sel
	case fl.check != nil:
		return fl.check
	case len(fl.group) > 0:
		return fl.group[0]
	}
	return nil
}

// values are the form's typed content and how many fields are invalid.
func (f *formDialog) values() (map[string]any, int) {
	out := map[string]any{}
	bad := 0
	for _, fl := range f.fields {
		v, set, msg := fl.value()
		if msg != "" {
			bad++
			continue
		}
		if set {
			out[fl.name] = v
		}
	}
	return out, bad
}

// label is the field's caption, with a required marker.
func (fl *formField) label() string {
	if fl.required {
		return fl.title + " *"
	}
	return fl.title
}

// build makes the field's widgets; changed runs on every edit, Enter in
// an entry runs submit, Escape anywhere cancel.
func (fl *formField) build(changed, submit, cancel func()) fyne.CanvasObject {
	fl.problem = wrapLabel("")
	fl.problem.Importance = widget.DangerImportance
	fl.problem.Hide()
	edited := func() {
		fl.touched = true
		changed()
	}
	var input fyne.CanvasObject
	caption := widget.NewLabelWithStyle(fl.label(), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	switch {
	case fl.typ == "boolean":
		fl.check = newEscCheck(fl.label(), cancel)
		if b, ok := fl.def.(bool); ok {
			fl.check.SetChecked(b)
		}
		fl.check.OnChanged = func(bool) { edited() }
		input, caption = fl.check, nil
	case fl.typ == "array":
		box := container.NewVBox()
		for _, o := range fl.options {
			c := newEscCheck(o.title, cancel)
			if d, ok := fl.def.([]any); ok && slices.ContainsFunc(d, func(v any) bool { return sameValue(v, o.value) }) {
				c.SetChecked(true)
			}
			c.OnChanged = func(bool) { edited() }
			fl.group = append(fl.group, c)
			box.Add(c)
		}
		input = box
	case len(fl.options) > 0:
		var titles []string
		if !fl.required {
			titles = append(titles, noneTitle)
		}
		for _, o := range fl.options {
			titles = append(titles, o.title)
		}
		fl.sel = newEscSelect(titles, cancel)
		fl.sel.PlaceHolder = "(choose one)"
		if t, ok := fl.titleOf(fl.def); ok && fl.def != nil {
			fl.sel.SetSelected(t)
		}
		fl.sel.OnChanged = func(string) { edited() }
		input = fl.sel
	default:
		fl.entry = newEscEntry(cancel)
		fl.entry.SetPlaceHolder(fl.placeholder())
		if fl.def != nil {
			fl.entry.SetText(fmt.Sprint(fl.def))
		}
		fl.entry.OnChanged = func(string) { edited() }
		fl.entry.OnSubmitted = func(string) { submit() }
		input = fl.entry
	}
	rows := []fyne.CanvasObject{}
	if caption != nil {
		rows = append(rows, caption)
	}
	if fl.desc != "" {
		rows = append(rows, smallPrint(fl.desc))
	}
	rows = append(rows, input, fl.problem)
	fl.box = container.NewVBox(rows...)
	return fl.box
}

// titleOf finds the title of the option whose value is v.
func (fl *formField) titleOf(v any) (string, bool) {
	for _, o := range fl.options {
		if sameValue(o.value, v) {
			return o.title, true
		}
	}
	return "", false
}

func sameValue(a, b any) bool {
	return fmt.Sprint(a) == fmt.Sprint(b)
}

// placeholder hints the expected input.
func (fl *formField) placeholder() string {
	switch {
	case fl.typ == "integer":
		return "a whole number" + fl.rangeText()
	case fl.typ == "number":
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

func (fl *formField) rangeText() string {
	switch {
	case fl.minimum != nil && fl.maximum != nil:
		return fmt.Sprintf(" from %s to %s", num(*fl.minimum), num(*fl.maximum))
	case fl.minimum != nil:
		return " ≥ " + num(*fl.minimum)
	case fl.maximum != nil:
		return " ≤ " + num(*fl.maximum)
	}
	return ""
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// show updates the field's message (only once touched) and returns it.
func (fl *formField) show() string {
	_, _, msg := fl.value()
	if !fl.touched {
		msg = ""
	}
	if msg == "" {
		fl.problem.SetText("")
		fl.problem.Hide()
	} else {
		fl.problem.SetText(msg)
		fl.problem.Show()
	}
	_, _, real := fl.value()
	return real
}

var emailRE = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)

// value is the field's typed value, whether it is set, and what is wrong
// with it ("" when nothing).
func (fl *formField) value() (any, bool, string) {
	switch {
	case fl.check != nil:
		return fl.check.Checked, true, ""
	case fl.typ == "array":
		vals := []any{}
		for i, c := range fl.group {
			if c.Checked {
				vals = append(vals, fl.options[i].value)
			}
		}
		n := len(vals)
		switch {
		case fl.minItems != nil && n < *fl.minItems:
			return nil, false, fmt.Sprintf("Choose at least %d.", *fl.minItems)
		case fl.maxItems != nil && n > *fl.maxItems:
			return nil, false, fmt.Sprintf("Choose at most %d.", *fl.maxItems)
		case n == 0 && !fl.required:
			return nil, false, ""
		}
		return vals, true, ""
	case fl.sel != nil:
		t := fl.sel.Selected
		if t == "" || t == noneTitle {
			if fl.required {
				return nil, false, "Required: choose one."
			}
			return nil, false, ""
		}
		for _, o := range fl.options {
			if o.title == t {
				return typed(o.value, fl.typ), true, ""
			}
		}
		return nil, false, "Choose one of the options."
	}
	text := fl.entry.Text
	if strings.TrimSpace(text) == "" {
		if fl.required {
			return nil, false, "Required."
		}
		return nil, false, ""
	}
	switch fl.typ {
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

func (fl *formField) inRange(n float64) string {
	if fl.minimum != nil && n < *fl.minimum {
		return "Must be at least " + num(*fl.minimum) + "."
	}
	if fl.maximum != nil && n > *fl.maximum {
		return "Must be at most " + num(*fl.maximum) + "."
	}
	return ""
}

func (fl *formField) checkString(s string) string {
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
