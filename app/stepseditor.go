package app

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/mcpcore/actions"
)

// stepsEditor edits a tool's or a prompt's input steps: one card per
// step, in the order they are asked, each showing only the fields its kind
// uses.
type stepsEditor struct {
	*cardList[*stepRow]
	// prompt says the steps are a prompt's: the client answers them all,
	// so no approvals, no desktop and no tasks.
	prompt bool
}

// stepRow is one step's card.
type stepRow struct {
	*card
	orig                    mcpcore.InputStep
	key, round, message     *widget.Entry
	schema, url, maxTokens  *widget.Entry
	systemPrompt            *widget.Entry
	kind, answeredBy        *widget.Select
	optional, inTask        *widget.Check
	prompt                  bool
	messageLabel            *widget.Label
	answeredNote            *widget.Label
	schemaErr               *widget.Label
	messageBox, optionalBox fyne.CanvasObject
	formBox, urlBox         fyne.CanvasObject
	samplingBox             fyne.CanvasObject
}

func (r *stepRow) cardOf() *card { return r.card }

func newStepsEditor(steps []mcpcore.InputStep, prompt bool, changed func()) *stepsEditor {
	s := &stepsEditor{cardList: newCardList[*stepRow]("Step", "steps", changed), prompt: prompt}
	for _, st := range steps {
		s.add(st)
	}
	return s
}

// content is the list of cards with the Add button under it.
func (s *stepsEditor) content() fyne.CanvasObject {
	add := widget.NewButtonWithIcon("Add input step", theme.ContentAddIcon(), func() {
		s.add(mcpcore.InputStep{Kind: mcpcore.StepForm})
		s.changed()
	})
	what := "the action runs"
	if s.prompt {
		what = "the messages are made"
	}
	intro := widget.NewLabel("Steps ask for input before " + what + "; the answer of step KEY is {{.inputs.KEY}} in templates. Steps of the same round are asked together, rounds in ascending order.")
	intro.Wrapping = fyne.TextWrapWord
	return container.NewVBox(intro, s.box, container.NewHBox(add))
}

// Labels of the answeredBy choices.
var answeredByNotes = map[string]string{
	mcpcore.AnsweredByClient:  "The AI client asks its user (or its model) and sends the answer.",
	mcpcore.AnsweredByDesktop: "A person answers here, in a mcptray dialog on this computer.",
	mcpcore.AnsweredByAuto:    "The client when it can answer this kind of step, else a dialog on this computer.",
}

func (s *stepsEditor) add(st mcpcore.InputStep) {
	r := &stepRow{orig: st}
	r.key = widget.NewEntry()
	r.key.SetPlaceHolder("key, e.g. confirm")
	r.key.SetText(st.Key)
	r.round = widget.NewEntry()
	r.round.SetPlaceHolder("0")
	if st.Round != 0 {
		r.round.SetText(strconv.Itoa(st.Round))
	}
	r.optional = widget.NewCheck("Optional: skipped when the client cannot answer it", nil)
	r.optional.SetChecked(st.Optional)
	r.inTask = widget.NewCheck("Asked while the task runs (task mode only)", nil)
	r.inTask.SetChecked(st.InTask)
	r.message = widget.NewMultiLineEntry()
	r.message.Wrapping = fyne.TextWrapWord
	r.message.SetMinRowsVisible(2)
	r.message.SetText(string(st.Message))
	r.messageLabel = widget.NewLabel("")
	r.schema = jsonArea(`{"type": "object", "properties": {"reason": {"type": "string"}}, "required": ["reason"]}`, 5)
	if len(st.Schema) > 0 {
		r.schema.SetText(indentJSON(st.Schema))
	}
	r.schemaErr = fieldError()
	r.url = widget.NewEntry()
	r.url.SetPlaceHolder("https://… the page the person opens (templates allowed)")
	r.url.SetText(string(st.URL))
	r.maxTokens = widget.NewEntry()
	r.maxTokens.SetPlaceHolder("maximum tokens of the answer (optional)")
	if st.MaxTokens != 0 {
		r.maxTokens.SetText(strconv.Itoa(st.MaxTokens))
	}
	r.systemPrompt = widget.NewMultiLineEntry()
	r.systemPrompt.SetPlaceHolder("system prompt (optional)")
	r.systemPrompt.Wrapping = fyne.TextWrapWord
	r.systemPrompt.SetText(st.SystemPrompt)
	r.answeredNote = widget.NewLabel("")
	r.answeredNote.Wrapping = fyne.TextWrapWord
	r.answeredBy = widget.NewSelect(nil, func(v string) {
		r.answeredNote.SetText(answeredByNotes[v])
		s.changed()
	})

	label := func(text string, obj fyne.CanvasObject) fyne.CanvasObject {
		return container.NewVBox(widget.NewLabel(text), obj)
	}
	r.messageBox = container.NewVBox(r.messageLabel, r.message)
	r.formBox = container.NewVBox(widget.NewLabel("Form schema — an object of flat properties (string, number, integer, boolean, enum)"), r.schema, r.schemaErr)
	r.urlBox = label("URL", r.url)
	r.samplingBox = container.NewGridWithColumns(2, label("Max tokens", r.maxTokens), label("System prompt", r.systemPrompt))
	r.optionalBox = r.optional
	kinds := mcpcore.StepKinds
	if s.prompt {
		kinds = slices.DeleteFunc(slices.Clone(kinds), func(k string) bool { return k == mcpcore.StepApproval })
		r.prompt = true
		r.inTask.Hide()
	}
	r.kind = widget.NewSelect(kinds, func(string) {
		r.showKind()
		s.changed()
	})
	r.card = s.newCard(func() *stepRow { return r },
		container.NewGridWithColumns(3, label("Key", r.key), label("Kind", r.kind), label("Round", r.round)),
		r.messageBox, r.formBox, r.urlBox, r.samplingBox,
		container.NewBorder(nil, nil, widget.NewLabel("Answered by"), nil, r.answeredBy), r.answeredNote,
		r.optionalBox, r.inTask,
	)
	selectKeeping(r.kind, cmp.Or(st.Kind, mcpcore.StepForm))
	r.showKind() // also for a kind the select does not know (validation names it)
	if st.AnsweredBy != "" && slices.Contains(r.answeredBy.Options, st.AnsweredBy) {
		r.answeredBy.SetSelected(st.AnsweredBy)
	}
	r.schema.OnChanged = func(text string) {
		r.checkSchemaSyntax(text)
		s.changed()
	}
	for _, en := range []*widget.Entry{r.key, r.round, r.message, r.url, r.maxTokens, r.systemPrompt} {
		en.OnChanged = func(string) { s.changed() }
	}
	for _, c := range []*widget.Check{r.optional, r.inTask} {
		c.OnChanged = func(bool) { s.changed() }
	}
	s.append(r)
}

// showKind shows the fields the step's kind uses, and who may answer it.
func (r *stepRow) showKind() {
	k := r.kind.Selected
	show := func(o fyne.CanvasObject, on bool) {
		if on {
			o.Show()
		} else {
			o.Hide()
		}
	}
	show(r.messageBox, k != mcpcore.StepRoots)
	show(r.formBox, k == mcpcore.StepForm)
	show(r.urlBox, k == mcpcore.StepURL)
	show(r.samplingBox, k == mcpcore.StepSampling)
	show(r.optionalBox, k != mcpcore.StepApproval)
	r.messageLabel.SetText(map[string]string{
		mcpcore.StepForm:     "Message — tells the person what to fill in",
		mcpcore.StepURL:      "Message — why the person should open the page",
		mcpcore.StepSampling: "Message sent to the client's model",
		mcpcore.StepApproval: "Question shown to the person",
	}[k])
	// The routes each kind allows (mcpcore.InputStep.AnsweredBy); the
	// first is the default.
	var opts []string
	switch {
	case r.prompt:
		opts = []string{mcpcore.AnsweredByClient}
	case k == mcpcore.StepApproval:
		opts = []string{mcpcore.AnsweredByDesktop}
	case k == mcpcore.StepSampling || k == mcpcore.StepRoots:
		opts = []string{mcpcore.AnsweredByClient}
	default:
		opts = []string{mcpcore.AnsweredByClient, mcpcore.AnsweredByDesktop, mcpcore.AnsweredByAuto}
	}
	prev := r.answeredBy.Selected
	r.answeredBy.Options = opts
	if len(opts) == 1 {
		r.answeredBy.Disable()
	} else {
		r.answeredBy.Enable()
	}
	if slices.Contains(opts, prev) {
		r.answeredBy.Refresh()
	} else {
		r.answeredBy.SetSelected(opts[0])
	}
}

// checkSchemaSyntax shows a JSON syntax error of the form schema as it is
// typed; what the schema means is checked on Save.
func (r *stepRow) checkSchemaSyntax(text string) {
	if strings.TrimSpace(text) == "" {
		setFieldError(r.schemaErr, nil)
		return
	}
	if err := jsonSyntax(text); err != nil {
		setFieldError(r.schemaErr, []string{err.Error()})
		return
	}
	setFieldError(r.schemaErr, nil)
}

// steps reads the steps from the cards, with the problems of fields that
// could not be read (field paths "steps[i]…").
func (s *stepsEditor) steps(entry string) ([]mcpcore.InputStep, []mcpcore.Problem) {
	var out []mcpcore.InputStep
	var ps []mcpcore.Problem
	for i, r := range s.items {
		f := fmt.Sprintf("steps[%d]", i)
		bad := func(field, msg string) {
			ps = append(ps, mcpcore.Problem{Entry: entry, Field: f + field, Message: msg})
		}
		st := mcpcore.InputStep{
			Key:      strings.TrimSpace(r.key.Text),
			Kind:     r.kind.Selected,
			Optional: r.optional.Checked && r.kind.Selected != mcpcore.StepApproval,
			InTask:   r.inTask.Checked,
		}
		if t := strings.TrimSpace(r.round.Text); t != "" {
			n, err := strconv.Atoi(t)
			if err != nil {
				bad(".round", "a whole number (steps of round 0 are asked first)")
			}
			st.Round = n
		}
		// The kind's default route is stored as "" unless it was spelled
		// out, so steps stay as they were written.
		if a := r.answeredBy.Selected; a != r.answeredBy.Options[0] || r.orig.AnsweredBy == a {
			st.AnsweredBy = a
		}
		if st.Kind != mcpcore.StepRoots {
			st.Message = actions.Template(r.message.Text)
		}
		switch st.Kind {
		case mcpcore.StepForm:
			if text := strings.TrimSpace(r.schema.Text); text != "" {
				if err := jsonSyntax(text); err != nil {
					bad(".schema", err.Error())
				} else {
					st.Schema = compactJSON(text)
				}
			}
		case mcpcore.StepURL:
			st.URL = actions.Template(strings.TrimSpace(r.url.Text))
		case mcpcore.StepSampling:
			if t := strings.TrimSpace(r.maxTokens.Text); t != "" {
				n, err := strconv.Atoi(t)
				if err != nil {
					bad(".maxTokens", "a whole number of tokens")
				}
				st.MaxTokens = n
			}
			st.SystemPrompt = strings.TrimSpace(r.systemPrompt.Text)
		}
		out = append(out, st)
	}
	return out, ps
}

// indentJSON formats raw JSON for a text area.
func indentJSON(raw []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// compactJSON is text (valid JSON) without insignificant whitespace.
func compactJSON(text string) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(text)); err != nil {
		return json.RawMessage(text)
	}
	return b.Bytes()
}
