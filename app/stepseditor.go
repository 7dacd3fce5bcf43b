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
	"github.com/mcptray/mcptray/catalog"
)

// stepsEditor edits a tool's or a prompt's input steps: one card per
// step, in the order they are asked, each showing only the fields its kind
// uses.
type stepsEditor struct {
	*cardList[*stepRow]
	// prompt says the steps are a prompt's: the client answers them all,
	// so no approvals, no desktop and no tasks.
	prompt bool
	// ctx offers Insert ▸ and previews in the messages and URLs.
	ctx *templateContext
}

// stepRow is one step's card.
type stepRow struct {
	*card
	orig         catalog.InputStep
	key, round   *widget.Entry
	message, url *templated
	maxTokens    *widget.Entry
	systemPrompt *widget.Entry
	// form is a form's questions, with its schema under Advanced.
	form             *formBuilder
	kind, answeredBy *widget.Select
	optional, inTask *widget.Check
	prompt           bool
	messageLabel     *widget.Label
	answeredNote     *widget.Label
	// The error lines of the fields problems are most often about, under
	// them; the others show on the card's line.
	schemaErr, keyErr       *widget.Label
	roundErr, messageErr    *widget.Label
	urlErr                  *widget.Label
	messageBox, optionalBox fyne.CanvasObject
	formBox, urlBox         fyne.CanvasObject
	samplingBox, inTaskBox  fyne.CanvasObject
	// answeredBy offers the routes the step's kind allows.
	routes choices
}

func (r *stepRow) cardOf() *card { return r.card }

// fieldLines: a field's problems show under it, where the person fixes
// them (the form schema's syntax is checked there as it is typed).
func (r *stepRow) fieldLines() map[string]*widget.Label {
	return map[string]*widget.Label{"schema": r.schemaErr, "key": r.keyErr, "round": r.roundErr,
		"message": r.messageErr, "url": r.urlErr}
}

func newStepsEditor(steps []catalog.InputStep, prompt bool, changed func(), ctx *templateContext) *stepsEditor {
	s := &stepsEditor{cardList: newCardList[*stepRow]("Step", "steps", changed), prompt: prompt, ctx: ctx}
	for _, st := range steps {
		s.add(st)
	}
	return s
}

// content is the list of cards with the Add button under it.
func (s *stepsEditor) content() fyne.CanvasObject {
	add := widget.NewButtonWithIcon("Add input step", theme.ContentAddIcon(), func() {
		// New questions go where they can be answered: most AI apps
		// cannot answer a form (see answeredByNotes).
		st := catalog.InputStep{Kind: catalog.StepForm, AnsweredBy: catalog.AnsweredByAuto}
		if s.prompt {
			st.AnsweredBy = ""
		}
		s.add(st)
		s.changed()
	})
	what := "the action runs"
	if s.prompt {
		what = "the messages are made"
	}
	intro := hint("Steps ask for input before " + what + "; the answer of the step with key KEY is {{.inputs.KEY}} in templates. Steps of the same round are asked together, lower rounds first.")
	return container.NewVBox(intro, s.box, container.NewHBox(add))
}

// answeredByNotes say what each answeredBy choice means.
var answeredByNotes = map[string]string{
	catalog.AnsweredByClient:  "The AI app asks its user (or its model) and sends the answer.",
	catalog.AnsweredByDesktop: "You answer here, in a mcptray window on this computer.",
	catalog.AnsweredByAuto:    "The AI app when it can answer this kind of question, else you, in a mcptray window on this computer.",
}

func (s *stepsEditor) add(st catalog.InputStep) {
	r := &stepRow{orig: st}
	r.key = widget.NewEntry()
	r.key.SetPlaceHolder("key, e.g. confirm")
	r.key.SetText(st.Key)
	r.round = widget.NewEntry()
	r.round.SetPlaceHolder("0")
	if st.Round != 0 {
		r.round.SetText(strconv.Itoa(st.Round))
	}
	r.optional = widget.NewCheck("Optional", nil)
	r.optional.SetChecked(st.Optional)
	r.inTask = widget.NewCheck("Ask while it runs in the background", nil)
	r.inTask.SetChecked(st.InTask)
	round := func() int {
		n, _ := strconv.Atoi(strings.TrimSpace(r.round.Text))
		return n
	}
	message := widget.NewMultiLineEntry()
	message.Wrapping = fyne.TextWrapWord
	message.SetMinRowsVisible(2)
	message.SetText(string(st.Message))
	r.message = s.ctx.templatedEntry(message, round)
	r.messageLabel = widget.NewLabel("")
	r.schemaErr, r.keyErr, r.roundErr, r.messageErr, r.urlErr = fieldError(), fieldError(), fieldError(), fieldError(), fieldError()
	r.message.problem = r.messageErr
	r.form = newFormBuilder(st.Schema, func() {
		r.checkSchemaSyntax(r.form.raw.Text)
		s.changed()
	})
	url := widget.NewEntry()
	url.SetPlaceHolder("https://… the page the person opens (templates allowed)")
	url.SetText(string(st.URL))
	r.url = s.ctx.templatedEntry(url, round)
	r.url.problem = r.urlErr
	r.maxTokens = widget.NewEntry()
	r.maxTokens.SetPlaceHolder("optional")
	if st.MaxTokens != 0 {
		r.maxTokens.SetText(strconv.Itoa(st.MaxTokens))
	}
	r.systemPrompt = widget.NewMultiLineEntry()
	r.systemPrompt.SetPlaceHolder("system prompt (optional)")
	r.systemPrompt.Wrapping = fyne.TextWrapWord
	r.systemPrompt.SetText(st.SystemPrompt)
	r.answeredNote = hint("")
	r.answeredBy = widget.NewSelect(nil, func(label string) {
		r.answeredNote.SetText(answeredByNotes[r.routes.valueOf(label)])
		s.changed()
	})

	r.messageBox = container.NewVBox(r.messageLabel, r.message.box())
	r.formBox = container.NewVBox(widget.NewLabel("The questions"),
		hint("Each question is a field of the form: text, a number, yes or no, a date, an e-mail address, a URL, or a choice among values you list."),
		r.form.box, r.schemaErr)
	r.urlBox = container.NewVBox(widget.NewLabel("URL"), r.url.box())
	r.samplingBox = container.NewVBox(labelled("Longest answer (tokens)", fixedWidth(numberWidth, r.maxTokens)),
		labelled("System prompt", r.systemPrompt))
	r.optionalBox = container.NewVBox(r.optional,
		hint("Skipped when the AI app cannot answer this kind of question; its answer is then empty."))
	r.inTaskBox = container.NewVBox(r.inTask,
		hint("For tools that run in the background: the question waits inside the running task instead of before it."))
	kinds := stepKindChoices
	if s.prompt {
		kinds = slices.DeleteFunc(slices.Clone(kinds), func(c choice) bool { return c.value == catalog.StepApproval })
		r.prompt = true
		r.inTaskBox.Hide()
	}
	r.kind = widget.NewSelect(kinds.labels(), func(string) {
		r.showKind()
		s.changed()
	})
	r.card = s.newCard(func() *stepRow { return r },
		labelled("What it asks", r.kind),
		container.NewBorder(nil, nil, nil,
			container.NewVBox(labelled("Round", fixedWidth(numberWidth, r.round)), r.roundErr),
			container.NewVBox(labelled("Key", r.key), r.keyErr)),
		r.messageBox, r.formBox, r.urlBox, r.samplingBox,
		labelled("Who answers", r.answeredBy), r.answeredNote,
		r.optionalBox, r.inTaskBox,
	)
	selectKeeping(r.kind, stepKindChoices.labelOf(cmp.Or(st.Kind, catalog.StepForm)))
	r.showKind() // also for a kind the select does not know (validation names it)
	if st.AnsweredBy != "" && slices.ContainsFunc(r.routes, func(c choice) bool { return c.value == st.AnsweredBy }) {
		r.answeredBy.SetSelected(r.routes.labelOf(st.AnsweredBy))
	}
	for _, en := range []*widget.Entry{r.key, r.round, r.message.entry, r.url.entry, r.maxTokens, r.systemPrompt} {
		en.OnChanged = func(string) { s.changed() }
	}
	for _, c := range []*widget.Check{r.optional, r.inTask} {
		c.OnChanged = func(bool) { s.changed() }
	}
	s.append(r)
}

// showKind shows the fields the step's kind uses, and who may answer it.
func (r *stepRow) showKind() {
	k := stepKindChoices.valueOf(r.kind.Selected)
	show := func(o fyne.CanvasObject, on bool) {
		if on {
			o.Show()
		} else {
			o.Hide()
		}
	}
	show(r.messageBox, k != catalog.StepRoots)
	show(r.formBox, k == catalog.StepForm)
	show(r.urlBox, k == catalog.StepURL)
	show(r.samplingBox, k == catalog.StepSampling)
	show(r.optionalBox, k != catalog.StepApproval)
	r.messageLabel.SetText(map[string]string{
		catalog.StepForm:     "Message — tells the person what to fill in",
		catalog.StepURL:      "Message — why the person should open the page",
		catalog.StepSampling: "Message sent to the AI app's model",
		catalog.StepApproval: "Question shown to the person",
	}[k])
	// The routes each kind allows (mcpcore.InputStep.AnsweredBy); the
	// first is the default of a stored step, whose answeredBy is empty.
	prev := r.routes.valueOf(r.answeredBy.Selected)
	forced := len(r.routes) == 1
	switch {
	case r.prompt:
		r.routes = answeredByChoices.only(catalog.AnsweredByClient)
	case k == catalog.StepApproval:
		r.routes = answeredByChoices.only(catalog.AnsweredByDesktop)
	case k == catalog.StepSampling || k == catalog.StepRoots:
		r.routes = answeredByChoices.only(catalog.AnsweredByClient)
	default:
		r.routes = answeredByChoices
	}
	r.answeredBy.Options = r.routes.labels()
	enable(r.answeredBy, len(r.routes) > 1)
	switch {
	case slices.Contains(r.answeredBy.Options, r.routes.labelOf(prev)) && !(forced && len(r.routes) > 1):
		r.answeredBy.Refresh()
	case len(r.routes) > 1 && r.orig.AnsweredBy == catalog.AnsweredByAuto:
		// A step made here, or stored as auto, comes back to auto.
		r.answeredBy.SetSelected(r.routes.labelOf(catalog.AnsweredByAuto))
	default:
		r.answeredBy.SetSelected(r.answeredBy.Options[0])
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
func (s *stepsEditor) steps(entry string) ([]catalog.InputStep, []catalog.Problem) {
	var out []catalog.InputStep
	var ps []catalog.Problem
	for i, r := range s.items {
		f := fmt.Sprintf("steps[%d]", i)
		bad := func(field, msg string) {
			ps = append(ps, catalog.Problem{Entry: entry, Field: f + field, Message: msg})
		}
		st := catalog.InputStep{
			Key:    strings.TrimSpace(r.key.Text),
			Kind:   stepKindChoices.valueOf(r.kind.Selected),
			InTask: r.inTask.Checked,
		}
		st.Optional = r.optional.Checked && st.Kind != catalog.StepApproval
		if t := strings.TrimSpace(r.round.Text); t != "" {
			n, err := strconv.Atoi(t)
			if err != nil {
				bad(".round", "a whole number (steps of round 0 are asked first)")
			}
			st.Round = n
		}
		// The kind's default route is stored as "" unless it was spelled
		// out, so steps stay as they were written.
		if a := r.routes.valueOf(r.answeredBy.Selected); a != r.routes[0].value || r.orig.AnsweredBy == a {
			st.AnsweredBy = a
		}
		if st.Kind != catalog.StepRoots {
			st.Message = catalog.Template(r.message.entry.Text)
		}
		switch st.Kind {
		case catalog.StepForm:
			if text := strings.TrimSpace(r.form.raw.Text); text != "" {
				if err := jsonSyntax(text); err != nil {
					bad(".schema", err.Error())
				} else {
					st.Schema = compactJSON(text)
				}
			}
			for _, m := range r.form.problems() {
				bad(".schema", m)
			}
		case catalog.StepURL:
			st.URL = catalog.Template(strings.TrimSpace(r.url.entry.Text))
		case catalog.StepSampling:
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

// infos are the steps as templates see them, for Insert ▸ and the
// previews.
func (s *stepsEditor) infos() []stepInfo {
	steps, _ := s.steps("")
	out := make([]stepInfo, 0, len(steps))
	for _, st := range steps {
		if st.Key == "" {
			continue
		}
		answer, fields := sampleAnswer(st)
		out = append(out, stepInfo{key: st.Key, kind: st.Kind, round: st.Round, fields: fields, answer: answer})
	}
	return out
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
