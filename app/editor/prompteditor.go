package editor

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/storage"
)

// Message roles a prompt may use: who says the message.
var PromptRoles = ui.Choices{
	{Label: "the person (user)", Value: "user"},
	{Label: "the AI, as if it had answered (assistant)", Value: "assistant"},
}

// argRow is one argument's card in the arguments list.
type argRow struct {
	Name, title, Desc, Completions *widget.Entry
	Required                       *widget.Check
	head                           *widget.Label
}

// messageRow is one message's Card: its role and its content block.
type messageRow struct {
	*ui.Card
	Role *widget.Select
	*blockFields
}

func (r *messageRow) CardOf() *ui.Card { return r.Card }

// PromptEditor is the form that creates and edits a prompt: its arguments,
// its templated messages and the input steps asked before they are made.
// Save validates the prompt the way the server does and stores it, so it
// is served at once.
type PromptEditor struct {
	*editorCore[catalog.Prompt]

	titledFields
	Args     []*argRow
	argBox   *fyne.Container
	Messages *ui.CardList[*messageRow]
	Steps    *stepsEditor
	// Tmpl is what the messages insert and preview with.
	Tmpl *templateContext

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
	e.Tmpl = newTemplateContext(st.Path(), e.templateParams, func() []stepInfo { return e.Steps.infos() })
	e.Messages = ui.NewCardList[*messageRow]("Message", "messages", e.Tmpl.changed)
	e.Steps = newStepsEditor(p.Steps, true, e.Tmpl.changed, e.Tmpl)
	e.cards = func(ps []catalog.Problem) []catalog.Problem { return e.Steps.ShowProblems(e.Messages.ShowProblems(ps)) }

	e.titledFields = newTitledFields(p.Name, p.Title, p.Description, [3]string{
		"e.g. review_code (letters, digits, _ - .)",
		"Shown to people, e.g. Review my code",
		"What the prompt is for (required)"}, 2)
	e.Name.OnChanged = e.checkName

	e.argBox = container.NewVBox()
	for _, a := range p.Arguments {
		e.AddArg(a)
	}
	addArg := widget.NewButtonWithIcon("Add argument", theme.ContentAddIcon(), func() { e.AddArg(catalog.PromptArgument{}) })
	argHint := ui.Hint("What the person fills in when they use the prompt; messages use an argument's value as {{.args.NAME}}.")

	for _, m := range p.Messages {
		e.AddMessage(m)
	}
	if len(p.Messages) == 0 {
		e.AddMessage(catalog.PromptMessage{Role: "user", Content: catalog.Content{Type: "text"}})
	}
	addMsg := widget.NewButtonWithIcon("Add message", theme.ContentAddIcon(), func() {
		e.AddMessage(catalog.PromptMessage{Role: "user", Content: catalog.Content{Type: "text"}})
	})

	rows := []fyne.CanvasObject{
		errs.field("Name", e.Name, "name"),
		errs.field("Title", e.Title, "title"),
		errs.field("Description", e.Description, "description"),
		widget.NewSeparator(),
		errs.field("Arguments", container.NewVBox(argHint, e.argBox, container.NewHBox(addArg)), "arguments"),
		widget.NewSeparator(),
		errs.field("Messages", container.NewVBox(e.Messages.Box, container.NewHBox(addMsg)), "messages"),
	}
	rows = append(rows, widget.NewSeparator(), errs.field("Input steps", e.Steps.content(), "steps"))
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
	for _, r := range e.Args {
		n := strings.TrimSpace(r.Name.Text)
		if n == "" {
			continue
		}
		names = append(names, n)
		v, _, _ := strings.Cut(r.Completions.Text, ",")
		sample[n] = cmp.Or(strings.TrimSpace(v), "["+n+"]")
	}
	return names, sample
}

// numberArgs titles the argument cards in their order.
func (e *PromptEditor) numberArgs() {
	for i, r := range e.Args {
		r.head.SetText(fmt.Sprintf("Argument %d", i+1))
	}
}

// AddArg adds an argument row filled with a.
func (e *PromptEditor) AddArg(a catalog.PromptArgument) {
	r := &argRow{Name: widget.NewEntry(), title: widget.NewEntry(), Desc: widget.NewEntry(), Completions: widget.NewEntry(),
		Required: widget.NewCheck("Required", nil), head: widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})}
	r.Name.SetPlaceHolder("name")
	r.Name.SetText(a.Name)
	r.title.SetPlaceHolder("title")
	r.title.SetText(a.Title)
	r.Desc.SetPlaceHolder("description")
	r.Desc.SetText(a.Description)
	r.Completions.SetPlaceHolder("values to suggest, comma separated")
	r.Completions.SetText(strings.Join(a.Completions, ", "))
	r.Required.SetChecked(a.Required)
	e.Args = append(e.Args, r)
	var row fyne.CanvasObject
	remove := widget.NewButtonWithIcon("", theme.DeleteIcon(), func() {
		e.Args = slices.DeleteFunc(e.Args, func(x *argRow) bool { return x == r })
		e.argBox.Remove(row)
		e.numberArgs()
	})
	row = container.NewVBox(
		container.NewBorder(nil, nil, nil, container.NewHBox(r.Required, remove), r.head),
		container.NewGridWithColumns(2, ui.Labelled("Name", r.Name), ui.Labelled("Title", r.title)),
		ui.Labelled("Description", r.Desc), ui.Labelled("Suggested values", r.Completions),
		widget.NewSeparator())
	e.argBox.Add(row)
	e.numberArgs()
}

// AddMessage adds a message card filled with m.
func (e *PromptEditor) AddMessage(m catalog.PromptMessage) {
	r := &messageRow{Role: ui.NewChoiceSelect(PromptRoles, cmp.Or(m.Role, "user")), blockFields: newBlockFields(m.Content, e.Tmpl.changed, e.Tmpl)}
	r.Card = e.Messages.NewCard(func() *messageRow { return r },
		append([]fyne.CanvasObject{ui.Labelled("Role", r.Role)}, r.fields...)...)
	e.Messages.Append(r)
}

// Prompt is the prompt as the form describes it, with the problems of
// fields the form itself could not read.
func (e *PromptEditor) Prompt() (catalog.Prompt, []catalog.Problem) {
	p := e.Orig
	p.Name = strings.TrimSpace(e.Name.Text)
	p.Title = strings.TrimSpace(e.Title.Text)
	p.Description = strings.TrimSpace(e.Description.Text)
	bad := &errorCollector{entry: fmt.Sprintf("prompt %q", p.Name)}
	p.Arguments = nil
	for _, r := range e.Args {
		a := catalog.PromptArgument{
			Name:        strings.TrimSpace(r.Name.Text),
			Title:       strings.TrimSpace(r.title.Text),
			Description: strings.TrimSpace(r.Desc.Text),
			Required:    r.Required.Checked,
		}
		for v := range strings.SplitSeq(r.Completions.Text, ",") {
			if v = strings.TrimSpace(v); v != "" {
				a.Completions = append(a.Completions, v)
			}
		}
		p.Arguments = append(p.Arguments, a)
	}
	p.Messages = nil
	for i, r := range e.Messages.Items {
		m := catalog.PromptMessage{Role: PromptRoles.ValueOf(r.Role.Selected), Content: r.block()}
		if m.Content.Type == "text" && strings.TrimSpace(string(m.Content.Text)) == "" {
			bad.add(fmt.Sprintf("messages[%d].content.text", i), "empty: write the message")
		}
		p.Messages = append(p.Messages, m)
	}
	var stepProblems []catalog.Problem
	p.Steps, stepProblems = e.Steps.steps(bad.entry)
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
	if i < len(e.Args) && strings.TrimSpace(e.Args[i].Name.Text) != "" {
		what = fmt.Sprintf("argument %q", strings.TrimSpace(e.Args[i].Name.Text))
	}
	if rest = strings.TrimPrefix(rest, "."); rest != "" {
		what += " (" + rest + ")"
	}
	return what + ": " + p.Message
}
