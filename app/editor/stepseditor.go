package editor

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
	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/catalog"
)

// stepsEditor edits a tool's or a prompt's input steps: one card per
// step, in the order they are asked, each showing only the fields its kind
// uses.
type stepsEditor struct {
	*ui.CardList[*stepRow]
	// prompt says the steps are a prompt's: the client answers them all,
	// so no approvals, no desktop and no tasks.
	prompt bool
	// ctx offers Insert ▸ and previews in the messages and URLs.
	ctx *templateContext
}

// stepRow is one step's card.
type stepRow struct {
	*ui.Card
	orig         catalog.InputStep
	Key, round   *widget.Entry
	message, url *templated
	maxTokens    *widget.Entry
	systemPrompt *widget.Entry
	// form is a form's questions, with its schema under Advanced.
	form             *formBuilder
	Kind, AnsweredBy *widget.Select
	optional, inTask *widget.Check
	prompt           bool
	messageLabel     *widget.Label
	answeredNote     *widget.Label
	// The error lines of the fields problems are most often about, under
	// them; the others show on the card's line.
	schemaErr, KeyErr       *widget.Label
	roundErr, messageErr    *widget.Label
	urlErr                  *widget.Label
	messageBox, optionalBox fyne.CanvasObject
	formBox, urlBox         fyne.CanvasObject
	samplingBox, InTaskBox  fyne.CanvasObject
	// answeredBy offers the routes the step's kind allows.
	routes ui.Choices
}

func (r *stepRow) CardOf() *ui.Card { return r.Card }

// fieldLines: a field's problems show under it, where the person fixes
// them (the form schema's syntax is checked there as it is typed).
func (r *stepRow) FieldLines() map[string]*widget.Label {
	return map[string]*widget.Label{"schema": r.schemaErr, "key": r.KeyErr, "round": r.roundErr,
		"message": r.messageErr, "url": r.urlErr}
}

func newStepsEditor(steps []catalog.InputStep, prompt bool, changed func(), ctx *templateContext) *stepsEditor {
	s := &stepsEditor{CardList: ui.NewCardList[*stepRow]("Step", "steps", changed), prompt: prompt, ctx: ctx}
	for _, st := range steps {
		s.Add(st)
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
		s.Add(st)
		s.Changed()
	})
	what := "the action runs"
	if s.prompt {
		what = "the messages are made"
	}
	intro := ui.Hint("Steps ask for input before " + what + ". Each step's answer has a name, so that the text the tool sends can use it: Insert puts it in. Steps with the same turn are asked together, lower turns first.")
	return container.NewVBox(intro, s.Box, container.NewHBox(add))
}

// answeredByNotes say what each answeredBy choice means.
var answeredByNotes = map[string]string{
	catalog.AnsweredByClient:  "The AI app asks its user (or its model) and sends the answer.",
	catalog.AnsweredByDesktop: "You answer here, in a mcptray window on this computer.",
	catalog.AnsweredByAuto:    "The AI app when it can answer this kind of question, else you, in a mcptray window on this computer.",
}

func (s *stepsEditor) Add(st catalog.InputStep) {
	r := &stepRow{orig: st}
	r.Key = widget.NewEntry()
	r.Key.SetPlaceHolder("e.g. confirm")
	r.Key.SetText(st.Key)
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
	r.schemaErr, r.KeyErr, r.roundErr, r.messageErr, r.urlErr = ui.FieldError(), ui.FieldError(), ui.FieldError(), ui.FieldError(), ui.FieldError()
	r.message.problem = r.messageErr
	r.form = newFormBuilder(st.Schema, func() {
		r.checkSchemaSyntax(r.form.raw.Text)
		s.Changed()
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
	r.answeredNote = ui.Hint("")
	r.AnsweredBy = widget.NewSelect(nil, func(label string) {
		r.answeredNote.SetText(answeredByNotes[r.routes.ValueOf(label)])
		s.Changed()
	})

	r.messageBox = container.NewVBox(r.messageLabel, r.message.box())
	r.formBox = container.NewVBox(widget.NewLabel("The questions"),
		ui.Hint("Each question is a field of the form: text, a number, yes or no, a date, an e-mail address, a URL, or a choice among values you list."),
		r.form.box, r.schemaErr)
	r.urlBox = container.NewVBox(widget.NewLabel("URL"), r.url.box())
	r.samplingBox = container.NewVBox(ui.Labelled("Longest answer (tokens)", ui.FixedWidth(ui.NumberWidth, r.maxTokens)),
		ui.Labelled("System prompt", r.systemPrompt))
	r.optionalBox = container.NewVBox(r.optional,
		ui.Hint("Skipped when the AI app cannot answer this kind of question; its answer is then empty."))
	r.InTaskBox = container.NewVBox(r.inTask,
		ui.Hint("For tools that run in the background: the question waits inside the running task instead of before it."))
	kinds := StepKindChoices
	if s.prompt {
		kinds = slices.DeleteFunc(slices.Clone(kinds), func(c ui.Choice) bool { return c.Value == catalog.StepApproval })
		r.prompt = true
		r.InTaskBox.Hide()
	}
	r.Kind = widget.NewSelect(kinds.Labels(), func(string) {
		r.showKind()
		s.Changed()
	})
	r.Card = s.NewCard(func() *stepRow { return r },
		ui.Labelled("What it asks", r.Kind),
		container.NewBorder(nil, nil, nil,
			container.NewVBox(ui.Labelled("Turn", ui.FixedWidth(ui.NumberWidth, r.round)), r.roundErr),
			container.NewVBox(ui.Labelled("Name of its answer", r.Key), r.KeyErr)),
		r.messageBox, r.formBox, r.urlBox, r.samplingBox,
		ui.Labelled("Who answers", r.AnsweredBy), r.answeredNote,
		r.optionalBox, r.InTaskBox,
	)
	ui.SelectKeeping(r.Kind, StepKindChoices.LabelOf(cmp.Or(st.Kind, catalog.StepForm)))
	r.showKind() // also for a kind the select does not know (validation names it)
	if st.AnsweredBy != "" && slices.ContainsFunc(r.routes, func(c ui.Choice) bool { return c.Value == st.AnsweredBy }) {
		r.AnsweredBy.SetSelected(r.routes.LabelOf(st.AnsweredBy))
	}
	for _, en := range []*widget.Entry{r.Key, r.round, r.message.Entry, r.url.Entry, r.maxTokens, r.systemPrompt} {
		en.OnChanged = func(string) { s.Changed() }
	}
	for _, c := range []*widget.Check{r.optional, r.inTask} {
		c.OnChanged = func(bool) { s.Changed() }
	}
	s.Append(r)
}

// showKind shows the fields the step's kind uses, and who may answer it.
func (r *stepRow) showKind() {
	k := StepKindChoices.ValueOf(r.Kind.Selected)
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
	prev := r.routes.ValueOf(r.AnsweredBy.Selected)
	forced := len(r.routes) == 1
	switch {
	case r.prompt:
		r.routes = AnsweredByChoices.Only(catalog.AnsweredByClient)
	case k == catalog.StepApproval:
		r.routes = AnsweredByChoices.Only(catalog.AnsweredByDesktop)
	case k == catalog.StepSampling || k == catalog.StepRoots:
		r.routes = AnsweredByChoices.Only(catalog.AnsweredByClient)
	default:
		r.routes = AnsweredByChoices
	}
	r.AnsweredBy.Options = r.routes.Labels()
	ui.Enable(r.AnsweredBy, len(r.routes) > 1)
	switch {
	case slices.Contains(r.AnsweredBy.Options, r.routes.LabelOf(prev)) && !(forced && len(r.routes) > 1):
		r.AnsweredBy.Refresh()
	case len(r.routes) > 1 && r.orig.AnsweredBy == catalog.AnsweredByAuto:
		// A step made here, or stored as auto, comes back to auto.
		r.AnsweredBy.SetSelected(r.routes.LabelOf(catalog.AnsweredByAuto))
	default:
		r.AnsweredBy.SetSelected(r.AnsweredBy.Options[0])
	}
}

// checkSchemaSyntax shows a JSON syntax error of the form schema as it is
// typed; what the schema means is checked on Save.
func (r *stepRow) checkSchemaSyntax(text string) {
	if strings.TrimSpace(text) == "" {
		ui.SetFieldError(r.schemaErr, nil)
		return
	}
	if err := ui.JsonSyntax(text); err != nil {
		ui.SetFieldError(r.schemaErr, []string{err.Error()})
		return
	}
	ui.SetFieldError(r.schemaErr, nil)
}

// steps reads the steps from the cards, with the problems of fields that
// could not be read (field paths "steps[i]…").
func (s *stepsEditor) steps(entry string) ([]catalog.InputStep, []catalog.Problem) {
	var out []catalog.InputStep
	var ps []catalog.Problem
	for i, r := range s.Items {
		f := fmt.Sprintf("steps[%d]", i)
		bad := func(field, msg string) {
			ps = append(ps, catalog.Problem{Entry: entry, Field: f + field, Message: msg})
		}
		st := catalog.InputStep{
			Key:    strings.TrimSpace(r.Key.Text),
			Kind:   StepKindChoices.ValueOf(r.Kind.Selected),
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
		if a := r.routes.ValueOf(r.AnsweredBy.Selected); a != r.routes[0].Value || r.orig.AnsweredBy == a {
			st.AnsweredBy = a
		}
		if st.Kind != catalog.StepRoots {
			st.Message = catalog.Template(r.message.Entry.Text)
		}
		switch st.Kind {
		case catalog.StepForm:
			if text := strings.TrimSpace(r.form.raw.Text); text != "" {
				if err := ui.JsonSyntax(text); err != nil {
					bad(".schema", err.Error())
				} else {
					st.Schema = compactJSON(text)
				}
			}
			for _, m := range r.form.problems() {
				bad(".schema", m)
			}
		case catalog.StepURL:
			st.URL = catalog.Template(strings.TrimSpace(r.url.Entry.Text))
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
