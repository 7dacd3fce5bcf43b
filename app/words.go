package app

import (
	"slices"

	"fyne.io/fyne/v2/widget"
	"github.com/mcptray/mcptray/catalog"
)

// choice is an option of a select as a person reads it, and the value it
// stands for in a definition (the technical word, which the label shows
// second, in brackets, where it helps to know it).
type choice struct{ label, value string }

// choices are a select's options.
type choices []choice

// labels are the options' labels, in order.
func (cs choices) labels() []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.label
	}
	return out
}

// valueOf is the value a label stands for; a label of no option is its own
// value (a value this mcptray does not know, kept for validation to name).
func (cs choices) valueOf(label string) string {
	if i := slices.IndexFunc(cs, func(c choice) bool { return c.label == label }); i >= 0 {
		return cs[i].value
	}
	return label
}

// labelOf is the label of a value; an unknown value is its own label.
func (cs choices) labelOf(value string) string {
	if i := slices.IndexFunc(cs, func(c choice) bool { return c.value == value }); i >= 0 {
		return cs[i].label
	}
	return value
}

// only are the choices of the values given, in that order.
func (cs choices) only(values ...string) choices {
	var out choices
	for _, v := range values {
		out = append(out, choice{cs.labelOf(v), v})
	}
	return out
}

// newChoiceSelect is a select of cs showing the option of value.
func newChoiceSelect(cs choices, value string) *widget.Select {
	s := widget.NewSelect(cs.labels(), nil)
	selectKeeping(s, cs.labelOf(value))
	return s
}

// The choices of the editors and the Settings tab.
var (
	// answeredByChoices say who answers an input step.
	answeredByChoices = choices{
		{"the AI app (client)", catalog.AnsweredByClient},
		{"me, on this computer (desktop)", catalog.AnsweredByDesktop},
		{"the AI app if it can, else me (auto)", catalog.AnsweredByAuto},
	}
	// stepKindChoices are what an input step asks.
	stepKindChoices = choices{
		{"Questions to fill in (form)", catalog.StepForm},
		{"A web page to open (url)", catalog.StepURL},
		{"A question to the AI's model (sampling)", catalog.StepSampling},
		{"The AI app's folders (roots)", catalog.StepRoots},
		{"Allow or deny (approval)", catalog.StepApproval},
	}
	// taskModeChoices say whether a tool runs in the background.
	taskModeChoices = choices{
		{"never", catalog.TaskNever},
		{"if the AI app supports it (optional)", catalog.TaskOptional},
		{"always (required)", catalog.TaskRequired},
	}
	// paramTypeChoices are the kinds of value a parameter takes.
	paramTypeChoices = choices{
		{"text", "string"},
		{"whole number", "integer"},
		{"number", "number"},
		{"yes or no", "boolean"},
		{"list", "array"},
		{"object", "object"},
	}
	// cacheScopeChoices say who may reuse a cached list.
	cacheScopeChoices = choices{
		{"any AI app (public)", "public"},
		{"only the AI app that asked (private)", "private"},
	}
)
