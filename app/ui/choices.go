package ui

import (
	"slices"

	"fyne.io/fyne/v2/widget"
)

// Choice is an option of a select as a person reads it, and the value it
// stands for in a definition (the technical word, which the label shows
// second, in brackets, where it helps to know it).
type Choice struct{ Label, Value string }

// Choices are a select's options.
type Choices []Choice

// Labels are the options' labels, in order.
func (cs Choices) Labels() []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Label
	}
	return out
}

// ValueOf is the value a label stands for; a label of no option is its own
// value (a value this mcptray does not know, kept for validation to name).
func (cs Choices) ValueOf(label string) string {
	if i := slices.IndexFunc(cs, func(c Choice) bool { return c.Label == label }); i >= 0 {
		return cs[i].Value
	}
	return label
}

// LabelOf is the label of a value; an unknown value is its own label.
func (cs Choices) LabelOf(value string) string {
	if i := slices.IndexFunc(cs, func(c Choice) bool { return c.Value == value }); i >= 0 {
		return cs[i].Label
	}
	return value
}

// Only are the choices of the values given, in that order.
func (cs Choices) Only(values ...string) Choices {
	var out Choices
	for _, v := range values {
		out = append(out, Choice{cs.LabelOf(v), v})
	}
	return out
}

// NewChoiceSelect is a select of cs showing the option of value.
func NewChoiceSelect(cs Choices, value string) *widget.Select {
	s := widget.NewSelect(cs.Labels(), nil)
	SelectKeeping(s, cs.LabelOf(value))
	return s
}
