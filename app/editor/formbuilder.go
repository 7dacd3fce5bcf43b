package editor

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/mcptray/mcptray/app/ui"
)

// This file holds the field builder of a form step: the questions a form
// asks, edited as a list of fields — name, label, type, required, default,
// choices with labels, limits, help — instead of a JSON Schema. It writes
// the flat requestedSchema MCP allows (primitive properties: text with an
// e-mail, URL, date or date-and-time format, numbers, yes/no, a choice as
// enum or oneOf of const+title, a multiple choice as an array of enum or
// anyOf), and reads one back when it can say the same; otherwise it says
// why, and the schema is edited as JSON.

// Kinds of question, as the builder names them.
const (
	qText     = "text"
	qNumber   = "number"
	qWhole    = "whole number"
	qYesNo    = "yes or no"
	qChoice   = "choice"
	qMulti    = "multiple choice"
	qDate     = "date"
	qDateTime = "date and time"
	qEmail    = "e-mail"
	qURL      = "URL"
)

var questionKinds = []string{qText, qNumber, qWhole, qYesNo, qChoice, qMulti, qDate, qDateTime, qEmail, qURL}

// formats are the string formats the spec allows, by kind.
var formats = map[string]string{qDate: "date", qDateTime: "date-time", qEmail: "email", qURL: "uri"}

// question is one field of a form, as the builder reads it.
type question struct {
	name, title, help, kind string
	required                bool
	def                     string
	// choices are value = label pairs; a label may be empty.
	choices  []ui.Option
	min, max string
}

// questionFromSchema reads a form's property into a question, or says
// what of it the builder cannot show.
func questionFromSchema(name string, raw json.RawMessage) (question, error) {
	var prop map[string]json.RawMessage
	if err := json.Unmarshal(raw, &prop); err != nil {
		return question{}, errors.New("it is not a JSON object")
	}
	for k := range prop {
		if !slices.Contains([]string{"type", "title", "description", "default", "format", "minLength", "maxLength",
			"minimum", "maximum", "enum", "enumNames", "oneOf", "items", "minItems", "maxItems"}, k) {
			return question{}, fmt.Errorf("it uses %q, which the fields cannot show", k)
		}
	}
	var ps ui.PropSchema
	if err := json.Unmarshal(raw, &ps); err != nil {
		return question{}, err
	}
	q := question{name: name, title: ps.Title, help: ps.Description}
	typ, _ := ps.Type.(string)
	limits := func(lo, hi *int) {
		if lo != nil {
			q.min = strconv.Itoa(*lo)
		}
		if hi != nil {
			q.max = strconv.Itoa(*hi)
		}
	}
	switch {
	case typ == "string" && (len(ps.Enum) > 0 || len(ps.OneOf) > 0):
		q.kind = qChoice
		q.choices = ui.OptionsOf(&ps)
	case typ == "string" && ps.Format == "":
		q.kind = qText
		limits(ps.MinLength, ps.MaxLength)
	case typ == "string":
		for k, f := range formats {
			if f == ps.Format {
				q.kind = k
			}
		}
		if q.kind == "" {
			return q, fmt.Errorf("its format %q is none of email, uri, date, date-time", ps.Format)
		}
		if ps.MinLength != nil || ps.MaxLength != nil {
			return q, errors.New("it limits the length of a formatted text")
		}
	case typ == "number" || typ == "integer":
		q.kind = map[string]string{"number": qNumber, "integer": qWhole}[typ]
		if ps.Minimum != nil {
			q.min = ui.Num(*ps.Minimum)
		}
		if ps.Maximum != nil {
			q.max = ui.Num(*ps.Maximum)
		}
	case typ == "boolean":
		q.kind = qYesNo
	case typ == "array" && ps.Items != nil && (len(ps.Items.Enum) > 0 || len(ps.Items.AnyOf) > 0):
		q.kind = qMulti
		q.choices = ui.OptionsOf(ps.Items)
		limits(ps.MinItems, ps.MaxItems)
	default:
		return q, errors.New("it is not one of the kinds of field a form may ask (text, a number, yes or no, a choice)")
	}
	if len(ps.Default) > 0 {
		var v any
		if err := json.Unmarshal(ps.Default, &v); err != nil {
			return q, err
		}
		switch d := v.(type) {
		case []any:
			var s []string
			for _, x := range d {
				s = append(s, fmt.Sprint(x))
			}
			q.def = strings.Join(s, ", ")
		case bool:
			q.def = map[bool]string{true: "yes", false: "no"}[d]
		case float64:
			q.def = ui.Num(d)
		default:
			q.def = fmt.Sprint(d)
		}
	}
	// The titles are what a person reads; a choice titled as its value has
	// none of its own.
	for i, o := range q.choices {
		if o.Title == fmt.Sprint(o.Value) {
			q.choices[i].Title = ""
		}
	}
	return q, nil
}

// questionsFromSchema reads a form schema into questions, in property
// order, or says what the builder cannot show.
func questionsFromSchema(text string) ([]question, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	if err := ui.JsonSyntax(text); err != nil {
		return nil, err
	}
	var root map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &root); err != nil {
		return nil, errors.New("the schema is not a JSON object")
	}
	for k := range root {
		if !slices.Contains([]string{"type", "properties", "required", "$schema"}, k) {
			return nil, fmt.Errorf("the schema uses %q, which the fields cannot show", k)
		}
	}
	if string(root["type"]) != `"object"` {
		return nil, errors.New(`the schema's root must be "type": "object"`)
	}
	required, names, props, err := objectProperties(root, "field names")
	if err != nil {
		return nil, err
	}
	var out []question
	for _, n := range names {
		q, err := questionFromSchema(n, props[n])
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", n, err)
		}
		q.required = slices.Contains(required, n)
		out = append(out, q)
	}
	return out, nil
}

// prop is one key of a property, in the order it is written.
type prop struct {
	key string
	val any
}

// schema writes the property of the question, and the problems of what
// it could not read (a limit that is no number…).
func (q question) schema() (json.RawMessage, []string) {
	var props []prop
	var bad []string
	add := func(k string, v any) { props = append(props, prop{k, v}) }
	number := func(what, s string, whole bool) (float64, bool) {
		if s = strings.TrimSpace(s); s == "" {
			return 0, false
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || whole && f != float64(int64(f)) {
			kind := "a number"
			if whole {
				kind = "a whole number"
			}
			bad = append(bad, fmt.Sprintf("%s must be %s", what, kind))
			return 0, false
		}
		return f, true
	}
	limit := func(key, what, s string, whole bool) {
		if f, ok := number(what, s, whole); ok {
			if whole && f < 0 {
				bad = append(bad, what+" must not be negative")
				return
			}
			add(key, jsonNumber(f))
		}
	}
	titled := slices.ContainsFunc(q.choices, func(o ui.Option) bool { return o.Title != "" })
	values := func() []any {
		out := make([]any, len(q.choices))
		for i, o := range q.choices {
			out[i] = o.Value
		}
		return out
	}
	consts := func() []any {
		out := make([]any, len(q.choices))
		for i, o := range q.choices {
			out[i] = orderedJSON([]prop{{"const", o.Value}, {"title", cmp.Or(o.Title, fmt.Sprint(o.Value))}})
		}
		return out
	}
	switch q.kind {
	case qNumber, qWhole:
		add("type", map[string]string{qNumber: "number", qWhole: "integer"}[q.kind])
	case qYesNo:
		add("type", "boolean")
	case qMulti:
		add("type", "array")
	default:
		add("type", "string")
	}
	if q.title != "" {
		add("title", q.title)
	}
	if q.help != "" {
		add("description", q.help)
	}
	if f, ok := formats[q.kind]; ok {
		add("format", f)
	}
	switch q.kind {
	case qText:
		limit("minLength", "the shortest length", q.min, true)
		limit("maxLength", "the longest length", q.max, true)
	case qNumber, qWhole:
		limit("minimum", "the smallest", q.min, q.kind == qWhole)
		limit("maximum", "the largest", q.max, q.kind == qWhole)
	case qChoice:
		if len(q.choices) == 0 {
			bad = append(bad, "a choice needs choices, one per line")
		}
		if titled {
			add("oneOf", consts())
		} else {
			add("enum", values())
		}
	case qMulti:
		if len(q.choices) == 0 {
			bad = append(bad, "a multiple choice needs choices, one per line")
		}
		if titled {
			add("items", orderedJSON([]prop{{"anyOf", consts()}}))
		} else {
			add("items", orderedJSON([]prop{{"type", "string"}, {"enum", values()}}))
		}
		limit("minItems", "the fewest choices", q.min, true)
		limit("maxItems", "the most choices", q.max, true)
	}
	if d := strings.TrimSpace(q.def); d != "" {
		switch q.kind {
		case qNumber, qWhole:
			if f, ok := number("the default", d, q.kind == qWhole); ok {
				add("default", jsonNumber(f))
			}
		case qYesNo:
			switch strings.ToLower(d) {
			case "yes", "true":
				add("default", true)
			case "no", "false":
				add("default", false)
			default:
				bad = append(bad, `the default must be "yes" or "no"`)
			}
		case qMulti:
			var vs []any
			for v := range strings.SplitSeq(d, ",") {
				vs = append(vs, strings.TrimSpace(v))
			}
			add("default", vs)
		default:
			add("default", d)
		}
	}
	return orderedJSON(props), bad
}

// jsonNumber writes a whole number without a fraction.
func jsonNumber(f float64) json.RawMessage { return json.RawMessage(ui.Num(f)) }

// orderedJSON is a JSON object with its keys in the order given.
func orderedJSON(props []prop) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range props {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p.key)
		v, _ := json.Marshal(p.val)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// formSchema is the flat schema of the questions, in their order, and the
// problems found in them (by question).
func formSchema(qs []question) (json.RawMessage, []string) {
	var props []prop
	var required []string
	var bad []string
	for i, q := range qs {
		name := strings.TrimSpace(q.name)
		what := fmt.Sprintf("question %d", i+1)
		if name != "" {
			what += fmt.Sprintf(" (%s)", name)
		}
		switch {
		case name == "":
			bad = append(bad, what+": a name is required (the answer's key, e.g. reason)")
			continue
		case slices.ContainsFunc(props, func(p prop) bool { return p.key == name }):
			bad = append(bad, fmt.Sprintf("%s: another question has the name %q", what, name))
			continue
		}
		raw, msgs := q.schema()
		for _, m := range msgs {
			bad = append(bad, what+": "+m)
		}
		props = append(props, prop{name, raw})
		if q.required {
			required = append(required, name)
		}
	}
	root := []prop{{"type", "object"}, {"properties", orderedJSON(props)}}
	if len(required) > 0 {
		root = append(root, prop{"required", required})
	}
	return orderedJSON(root), bad
}

// questionRow is one question's card in the builder.
type questionRow struct {
	*ui.Card
	name, title, help, def *widget.Entry
	min, max               *widget.Entry
	choices                *widget.Entry
	kind                   *widget.Select
	required               *widget.Check
	minLabel, maxLabel     *widget.Label
	minBox, maxBox         fyne.CanvasObject
	limits, choicesBox     fyne.CanvasObject
}

func (r *questionRow) CardOf() *ui.Card { return r.Card }

// formBuilder edits a form step's questions, and keeps the raw schema —
// under Advanced — in step with them, both ways.
type formBuilder struct {
	*ui.CardList[*questionRow]
	// raw is the schema as JSON; note says why the questions cannot show
	// it, when they cannot.
	raw     *widget.Entry
	note    *widget.Label
	add     *widget.Button
	advance *ui.Disclosure
	// writing is set while the builder writes raw: no edit of it then.
	writing bool
	box     fyne.CanvasObject
}

// newFormBuilder edits the form schema raw; changed follows every edit
// (of the questions or of the JSON).
func newFormBuilder(raw json.RawMessage, changed func()) *formBuilder {
	b := &formBuilder{}
	b.CardList = ui.NewCardList[*questionRow]("Question", "questions", func() {
		b.write()
		changed()
	})
	b.raw = ui.JsonArea(`{"type": "object", "properties": {"reason": {"type": "string"}}, "required": ["reason"]}`, 5)
	if len(raw) > 0 {
		b.raw.SetText(indentJSON(raw))
	}
	b.note = ui.Hint("")
	b.note.Hide()
	b.add = widget.NewButtonWithIcon("Add question", theme.ContentAddIcon(), func() {
		b.addQuestion(question{kind: qText})
		b.Changed()
	})
	b.advance = ui.NewDisclosure("Advanced: the form's schema (JSON)", container.NewVBox(
		ui.Hint("The questions as the AI app receives them (a flat JSON Schema, requestedSchema). Edit either: the other follows."),
		ui.Input(b.raw)), func() *container.Scroll { return nil })
	b.box = container.NewVBox(b.note, b.CardList.Box, container.NewHBox(b.add), b.advance.Box)
	b.read()
	b.raw.OnChanged = func(string) {
		if b.writing {
			return
		}
		b.read()
		changed()
	}
	return b
}

// read shows the raw schema as questions, or why it cannot: the questions
// then hide, and the schema is edited as JSON.
func (b *formBuilder) read() {
	qs, err := questionsFromSchema(b.raw.Text)
	if err != nil {
		b.note.SetText("The questions cannot show this schema (" + err.Error() + "): edit it as JSON below.")
		b.note.Show()
		b.CardList.Box.Hide()
		b.add.Hide()
		if !b.advance.IsOpen() {
			b.advance.Open()
		}
		return
	}
	b.note.Hide()
	b.CardList.Box.Show()
	b.add.Show()
	b.Items = nil
	for _, q := range qs {
		b.addQuestion(q)
	}
	b.Relayout()
}

// write puts the questions' schema in the JSON, unless the questions do
// not show it (the JSON is then the form's).
func (b *formBuilder) write() {
	if !b.CardList.Box.Visible() {
		return
	}
	raw, _ := formSchema(b.questions())
	b.writing = true
	b.raw.SetText(indentJSON(raw))
	b.writing = false
}

// questions are the questions as the cards say.
func (b *formBuilder) questions() []question {
	out := make([]question, len(b.Items))
	for i, r := range b.Items {
		q := question{name: strings.TrimSpace(r.name.Text), title: strings.TrimSpace(r.title.Text), help: strings.TrimSpace(r.help.Text),
			kind: r.kind.Selected, required: r.required.Checked, def: r.def.Text, min: r.min.Text, max: r.max.Text}
		for line := range strings.SplitSeq(r.choices.Text, "\n") {
			v, label, _ := strings.Cut(line, "=")
			if v = strings.TrimSpace(v); v != "" {
				q.choices = append(q.choices, ui.Option{Value: v, Title: strings.TrimSpace(label)})
			}
		}
		out[i] = q
	}
	return out
}

// problems are what the questions cannot say as a schema; none when the
// JSON is the form's.
func (b *formBuilder) problems() []string {
	if !b.CardList.Box.Visible() {
		return nil
	}
	_, bad := formSchema(b.questions())
	return bad
}

func (b *formBuilder) addQuestion(q question) {
	r := &questionRow{}
	entry := func(placeholder, text string) *widget.Entry {
		e := widget.NewEntry()
		e.SetPlaceHolder(placeholder)
		e.SetText(text)
		return e
	}
	r.name = entry("e.g. reason", q.name)
	r.title = entry("e.g. Why?", q.title)
	r.help = entry("optional help under the field", q.help)
	r.def = entry("optional", q.def)
	r.min, r.max = entry("optional", q.min), entry("optional", q.max)
	r.minLabel, r.maxLabel = widget.NewLabel(""), widget.NewLabel("")
	r.choices = widget.NewMultiLineEntry()
	r.choices.SetPlaceHolder("one per line: value, or value = Label shown")
	r.choices.SetMinRowsVisible(3)
	var lines []string
	for _, o := range q.choices {
		if o.Title != "" {
			lines = append(lines, fmt.Sprintf("%v = %s", o.Value, o.Title))
		} else {
			lines = append(lines, fmt.Sprint(o.Value))
		}
	}
	r.choices.SetText(strings.Join(lines, "\n"))
	r.required = widget.NewCheck("Required", nil)
	r.required.SetChecked(q.required)
	r.kind = widget.NewSelect(questionKinds, nil)
	ui.SelectKeeping(r.kind, q.kind)
	r.minBox, r.maxBox = container.NewVBox(r.minLabel, ui.Input(r.min)), container.NewVBox(r.maxLabel, ui.Input(r.max))
	r.limits = container.NewGridWithColumns(3, ui.Labelled("Default", r.def), r.minBox, r.maxBox)
	r.choicesBox = ui.Labelled("Choices", r.choices)
	r.Card = b.NewCard(func() *questionRow { return r },
		container.NewGridWithColumns(3, ui.Labelled("Name", r.name), ui.Labelled("Label", r.title), ui.Labelled("Type", r.kind)),
		container.NewBorder(nil, nil, nil, container.NewVBox(widget.NewLabel(""), r.required), ui.Labelled("Help", r.help)),
		r.limits, r.choicesBox)
	r.showKind()
	r.kind.OnChanged = func(string) { r.showKind() }
	edited := func() {
		b.write()
		b.Changed()
	}
	for _, e := range []*widget.Entry{r.name, r.title, r.help, r.def, r.min, r.max, r.choices} {
		e.OnChanged = func(string) { edited() }
	}
	r.required.OnChanged = func(bool) { edited() }
	onKind := r.kind.OnChanged
	r.kind.OnChanged = func(k string) {
		onKind(k)
		edited()
	}
	b.Items = append(b.Items, r)
	b.Relayout()
}

// showKind shows the limits and choices the question's kind has.
func (r *questionRow) showKind() {
	show := func(o fyne.CanvasObject, on bool) {
		if on {
			o.Show()
		} else {
			o.Hide()
		}
	}
	k := r.kind.Selected
	labels := map[string][2]string{
		qText: {"Shortest (characters)", "Longest (characters)"}, qNumber: {"Smallest", "Largest"},
		qWhole: {"Smallest", "Largest"}, qMulti: {"Choose at least", "Choose at most"}}
	l, limited := labels[k]
	r.minLabel.SetText(l[0])
	r.maxLabel.SetText(l[1])
	show(r.minBox, limited)
	show(r.maxBox, limited)
	show(r.choicesBox, k == qChoice || k == qMulti)
}
