package app

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/storage"
)

// Message roles a prompt may use: who says the message.
var promptRoles = choices{
	{"the person (user)", "user"},
	{"the AI, as if it had answered (assistant)", "assistant"},
}

// argRow is one argument's card in the arguments list.
type argRow struct {
	name, title, desc, completions *widget.Entry
	required                       *widget.Check
	head                           *widget.Label
}

// messageRow is one message's card: its role and its content block.
type messageRow struct {
	*card
	role *widget.Select
	*blockFields
}

func (r *messageRow) cardOf() *card { return r.card }

// PromptEditor is the form that creates and edits a prompt: its arguments,
// its templated messages and the input steps asked before they are made.
// Save validates the prompt the way the server does and stores it, so it
// is served at once.
type PromptEditor struct {
	*editorCore[catalog.Prompt]

	titledFields
	args     []*argRow
	argBox   *fyne.Container
	messages *cardList[*messageRow]
	steps    *stepsEditor
	// tmpl is what the messages insert and preview with.
	tmpl *templateContext

	content fyne.CanvasObject
}

// NewPromptEditor edits p; isNew says it is not stored yet. onSaved gets
// the name after a save, "" after a delete.
func NewPromptEditor(st *storage.Store, p catalog.Prompt, isNew bool, onSaved func(name string)) *PromptEditor {
	errs := newFieldErrors("name", "title", "description", "arguments", "messages", "steps")
	e := &PromptEditor{editorCore: newEditorCore(st, promptKind, p, isNew, onSaved, errs)}
	e.read = e.Prompt
	e.word = e.wordProblem
	// Edits are followed by the previews only: Unsaved compares readings.
	e.tmpl = newTemplateContext(st.Path(), e.templateParams, func() []stepInfo { return e.steps.infos() })
	e.messages = newCardList[*messageRow]("Message", "messages", e.tmpl.changed)
	e.steps = newStepsEditor(p.Steps, true, e.tmpl.changed, e.tmpl)
	e.cards = func(ps []catalog.Problem) []catalog.Problem { return e.steps.showProblems(e.messages.showProblems(ps)) }

	e.titledFields = newTitledFields(p.Name, p.Title, p.Description, [3]string{
		"e.g. review_code (letters, digits, _ - .)",
		"Shown to people, e.g. Review my code",
		"What the prompt is for (required)"}, 2)
	e.name.OnChanged = e.checkName

	e.argBox = container.NewVBox()
	for _, a := range p.Arguments {
		e.addArg(a)
	}
	addArg := widget.NewButtonWithIcon("Add argument", theme.ContentAddIcon(), func() { e.addArg(catalog.PromptArgument{}) })
	argHint := hint("What the person fills in when they use the prompt; messages use an argument's value as {{.args.NAME}}.")

	for _, m := range p.Messages {
		e.addMessage(m)
	}
	if len(p.Messages) == 0 {
		e.addMessage(catalog.PromptMessage{Role: "user", Content: catalog.Content{Type: "text"}})
	}
	addMsg := widget.NewButtonWithIcon("Add message", theme.ContentAddIcon(), func() {
		e.addMessage(catalog.PromptMessage{Role: "user", Content: catalog.Content{Type: "text"}})
	})

	rows := []fyne.CanvasObject{
		errs.field("Name", e.name, "name"),
		errs.field("Title", e.title, "title"),
		errs.field("Description", e.description, "description"),
		widget.NewSeparator(),
		errs.field("Arguments", container.NewVBox(argHint, e.argBox, container.NewHBox(addArg)), "arguments"),
		widget.NewSeparator(),
		errs.field("Messages", container.NewVBox(e.messages.box, container.NewHBox(addMsg)), "messages"),
	}
	rows = append(rows, widget.NewSeparator(), errs.field("Input steps", e.steps.content(), "steps"))
	e.content = e.layout(container.NewVBox(rows...))
	e.checkName(p.Name)
	e.settle()
	return e
}

// Content is the editor's widget tree.
func (e *PromptEditor) Content() fyne.CanvasObject { return e.content }

// templateParams are the arguments' names, with sample values: the first
// suggested value, else the argument's name in brackets.
func (e *PromptEditor) templateParams() ([]string, map[string]any) {
	var names []string
	sample := map[string]any{}
	for _, r := range e.args {
		n := strings.TrimSpace(r.name.Text)
		if n == "" {
			continue
		}
		names = append(names, n)
		v, _, _ := strings.Cut(r.completions.Text, ",")
		sample[n] = cmp.Or(strings.TrimSpace(v), "["+n+"]")
	}
	return names, sample
}

// numberArgs titles the argument cards in their order.
func (e *PromptEditor) numberArgs() {
	for i, r := range e.args {
		r.head.SetText(fmt.Sprintf("Argument %d", i+1))
	}
}

func (e *PromptEditor) addArg(a catalog.PromptArgument) {
	r := &argRow{name: widget.NewEntry(), title: widget.NewEntry(), desc: widget.NewEntry(), completions: widget.NewEntry(),
		required: widget.NewCheck("Required", nil), head: widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})}
	r.name.SetPlaceHolder("name")
	r.name.SetText(a.Name)
	r.title.SetPlaceHolder("title")
	r.title.SetText(a.Title)
	r.desc.SetPlaceHolder("description")
	r.desc.SetText(a.Description)
	r.completions.SetPlaceHolder("values to suggest, comma separated")
	r.completions.SetText(strings.Join(a.Completions, ", "))
	r.required.SetChecked(a.Required)
	e.args = append(e.args, r)
	var row fyne.CanvasObject
	remove := widget.NewButtonWithIcon("", theme.DeleteIcon(), func() {
		e.args = slices.DeleteFunc(e.args, func(x *argRow) bool { return x == r })
		e.argBox.Remove(row)
		e.numberArgs()
	})
	row = container.NewVBox(
		container.NewBorder(nil, nil, nil, container.NewHBox(r.required, remove), r.head),
		container.NewGridWithColumns(2, labelled("Name", r.name), labelled("Title", r.title)),
		labelled("Description", r.desc), labelled("Suggested values", r.completions),
		widget.NewSeparator())
	e.argBox.Add(row)
	e.numberArgs()
}

func (e *PromptEditor) addMessage(m catalog.PromptMessage) {
	r := &messageRow{role: newChoiceSelect(promptRoles, cmp.Or(m.Role, "user")), blockFields: newBlockFields(m.Content, e.tmpl.changed, e.tmpl)}
	r.card = e.messages.newCard(func() *messageRow { return r },
		append([]fyne.CanvasObject{labelled("Role", r.role)}, r.fields...)...)
	e.messages.append(r)
}

// Prompt is the prompt as the form describes it, with the problems of
// fields the form itself could not read.
func (e *PromptEditor) Prompt() (catalog.Prompt, []catalog.Problem) {
	p := e.orig
	p.Name = strings.TrimSpace(e.name.Text)
	p.Title = strings.TrimSpace(e.title.Text)
	p.Description = strings.TrimSpace(e.description.Text)
	bad := &errorCollector{entry: fmt.Sprintf("prompt %q", p.Name)}
	p.Arguments = nil
	for _, r := range e.args {
		a := catalog.PromptArgument{
			Name:        strings.TrimSpace(r.name.Text),
			Title:       strings.TrimSpace(r.title.Text),
			Description: strings.TrimSpace(r.desc.Text),
			Required:    r.required.Checked,
		}
		for v := range strings.SplitSeq(r.completions.Text, ",") {
			if v = strings.TrimSpace(v); v != "" {
				a.Completions = append(a.Completions, v)
			}
		}
		p.Arguments = append(p.Arguments, a)
	}
	p.Messages = nil
	for i, r := range e.messages.items {
		m := catalog.PromptMessage{Role: promptRoles.valueOf(r.role.Selected), Content: r.block()}
		if m.Content.Type == "text" && strings.TrimSpace(string(m.Content.Text)) == "" {
			bad.add(fmt.Sprintf("messages[%d].content.text", i), "empty: write the message")
		}
		p.Messages = append(p.Messages, m)
	}
	var stepProblems []catalog.Problem
	p.Steps, stepProblems = e.steps.steps(bad.entry)
	return p, append(bad.list, stepProblems...)
}

// wordProblem names the argument a problem is about (messages have their
// own cards).
func (e *PromptEditor) wordProblem(key string, p catalog.Problem) string {
	var i int
	var rest string
	if key != "arguments" {
		return plainWord(key, p)
	}
	if n, _ := fmt.Sscanf(p.Field, key+"[%d]%s", &i, &rest); n < 1 {
		return p.Message
	}
	what := fmt.Sprintf("argument #%d", i+1)
	if i < len(e.args) && strings.TrimSpace(e.args[i].name.Text) != "" {
		what = fmt.Sprintf("argument %q", strings.TrimSpace(e.args[i].name.Text))
	}
	if rest = strings.TrimPrefix(rest, "."); rest != "" {
		what += " (" + rest + ")"
	}
	return what + ": " + p.Message
}
