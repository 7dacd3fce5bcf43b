package app

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/storage"
)

// Action kinds as the editor names them.
const (
	kindRespond = "Answer with content"
	kindCommand = "Run a command"
	kindHTTP    = "Call a URL"
)

// fieldError is the red line under a field where its problems show.
func fieldError() *widget.Label {
	l := widget.NewLabel("")
	l.Importance = widget.DangerImportance
	l.Wrapping = fyne.TextWrapWord
	l.Hide()
	return l
}

func setFieldError(l *widget.Label, msgs []string) {
	if len(msgs) == 0 {
		l.SetText("")
		l.Hide()
		return
	}
	l.SetText(strings.Join(msgs, "\n"))
	l.Show()
}

// paramRow is one parameter's card in the parameters list.
type paramRow struct {
	name, enum, def, desc, header *widget.Entry
	typ, items                    *widget.Select
	required                      *widget.Check
	title                         *widget.Label
	// itemsBox is the item type with its label, shown for lists only.
	itemsBox fyne.CanvasObject
	orig     catalog.Param
}

// Approval choices as the editor names them, and the catalog.Tool.Approval
// value each stands for.
var approvalChoices = choices{
	{"Ask before destructive calls", ""},
	{"Always ask", catalog.ApprovalAlways},
	{"Never ask", catalog.ApprovalOff},
}

// ToolEditor is the form that creates and edits a tool. Save validates the
// whole tool (the same checks the server makes) and stores it through
// storage, with which client tokens see it, so the running server serves
// it at once; problems show next to the fields they are about and nothing
// is stored.
type ToolEditor struct {
	*editorCore[catalog.Tool]

	titledFields
	params   []*paramRow
	paramBox *fyne.Container
	// paramSection is the list with its Add button, hidden while the input
	// schema is hand-written; paramsRaw says so meanwhile.
	paramSection fyne.CanvasObject
	paramsRaw    *widget.Label
	actionKind   *widget.Select
	blocks       *contentEditor
	isError      *widget.Check
	structured   *templated
	command      *commandFields
	http         *httpFields
	body         *templated
	// tmpl is what the templated fields insert and preview with.
	tmpl                   *templateContext
	respondBox, commandBox *fyne.Container
	httpBox                *fyne.Container
	readOnly, destructive  *widget.Check
	idempotent, openWorld  *widget.Check
	taskMode               *widget.Select
	approval               *widget.Select
	steps                  *stepsEditor
	tokens                 *tokenAccess
	schema                 *schemaEditor
	// advanced holds the raw schemas.
	advanced *disclosure
	try      *tryPanel
	// tryBox holds the Try it panel; it shows once SetTrier gives the
	// editor a way to call tools.
	tryBox *disclosure
	tryBtn *widget.Button
	// built is set once every widget exists: change callbacks fired while
	// the form is filled in are no edits.
	built bool

	content fyne.CanvasObject
}

// NewToolEditor edits t; isNew says it is not stored yet. onSaved gets the
// name after a save, "" after a delete.
func NewToolEditor(st *storage.Store, t catalog.Tool, isNew bool, onSaved func(name string)) *ToolEditor {
	errs := newFieldErrors("name", "title", "description", "params",
		"action", "action.respond", "action.respond.structured", "action.command", "action.command.argv", "action.command.dir", "action.command.env",
		"action.command.inheritEnv", "action.command.stdin", "action.command.stream", "action.command.maxOutputBytes",
		"action.command.timeoutMs", "action.http", "action.http.method", "action.http.url", "action.http.query", "action.http.headers",
		"action.http.body", "hints", "taskMode", "approval", "steps", "inputSchema", "outputSchema")
	e := &ToolEditor{}
	e.editorCore = newEditorCore(st, toolKind(func() storage.ToolAccess { return e.tokens.access() }), t, isNew, onSaved, errs)
	e.read = e.Tool
	e.word = e.wordProblem
	e.changed = func() {
		e.followChange()
		e.checkProgram()
	}
	e.tmpl = newTemplateContext(st.Path(), e.templateParams, e.templateSteps)
	e.tmpl.samples = "Try it's sample arguments"
	e.titledFields = newTitledFields(t.Name, t.Title, t.Description, [3]string{
		"e.g. search_notes (letters, digits, _ - .)",
		"Shown to people, e.g. Search my notes",
		"What it does and when to use it: the model reads this to decide"}, 3)
	e.name.OnChanged = func(s string) {
		e.checkName(s)
		e.followChange()
	}

	e.paramBox = container.NewVBox()
	for _, p := range t.Params {
		e.addParam(p)
	}
	addParam := widget.NewButtonWithIcon("Add parameter", theme.ContentAddIcon(), func() {
		e.addParam(catalog.Param{Type: "string"})
	})
	e.paramsRaw = hint("Written by hand as a JSON schema, under Advanced: raw schemas.")
	e.paramSection = container.NewVBox(
		hint("What the AI app passes to the tool; templates use a parameter as {{.args.NAME}}."),
		e.paramBox, container.NewHBox(addParam))

	e.buildAction(t.Action)
	e.cards = func(ps []catalog.Problem) []catalog.Problem { return e.blocks.showProblems(e.steps.showProblems(ps)) }

	h := t.Hints
	if h == nil {
		h = &catalog.Hints{}
	}
	e.readOnly = widget.NewCheck("Read-only", nil)
	e.readOnly.SetChecked(hintOn(h.ReadOnly))
	e.destructive = widget.NewCheck("Destructive", nil)
	e.destructive.SetChecked(hintOn(h.Destructive))
	e.idempotent = widget.NewCheck("Safe to repeat", nil)
	e.idempotent.SetChecked(hintOn(h.Idempotent))
	e.openWorld = widget.NewCheck("Reaches the outside world", nil)
	e.openWorld.SetChecked(hintOn(h.OpenWorld))
	hints := container.NewVBox(
		hint("What the AI app is told about the tool, to decide how freely to call it."),
		e.readOnly, hint("It only reads: it changes nothing (readOnly)."),
		e.destructive, hint("It may delete or overwrite things; mcptray asks you before it runs (destructive)."),
		e.idempotent, hint("Calling it twice with the same arguments does no more than once (idempotent)."),
		e.openWorld, hint("It talks to the internet or other programs, not only to this computer (openWorld)."))
	e.taskMode = newChoiceSelect(taskModeChoices, cmp.Or(t.TaskMode, catalog.TaskNever))
	e.approval = newChoiceSelect(approvalChoices, t.Approval)
	approvalNote := hint("Asked on this computer before the tool runs; an approval step replaces it.")
	e.steps = newStepsEditor(t.Steps, false, e.followChange, e.tmpl)
	e.tokens = newTokenAccess(st, e.origKey(), e.followChange)
	e.extra = e.tokens
	errs["tokens"] = e.tokens.err
	e.schema = newSchemaEditor(t, errs["inputSchema"], errs["outputSchema"], e.readParams, e.setParams, e.showParams, e.followChange)
	e.showParams(len(t.InputSchema) > 0)
	e.advanced = newDisclosure("Advanced: raw schemas", e.schema.content(), e.formScroll)
	e.opening = func(ps []catalog.Problem) {
		if slices.ContainsFunc(ps, func(p catalog.Problem) bool {
			return strings.HasPrefix(p.Field, "inputSchema") || strings.HasPrefix(p.Field, "outputSchema")
		}) && !e.advanced.isOpen() {
			e.advanced.open()
		}
	}
	e.try = newTryPanel(e)
	e.tryBox = newDisclosure("Try it", e.try.content(), e.formScroll)
	e.tryBox.box.Hide()
	e.tryBtn = widget.NewButtonWithIcon("Try it", theme.MediaPlayIcon(), e.tryBox.open)
	e.tryBtn.Hide()

	form := container.NewVBox(
		errs.field("Name", e.name, "name"),
		errs.field("Title", e.title, "title"),
		errs.field("Description", e.description, "description"),
		widget.NewSeparator(),
		errs.field("Parameters", container.NewVBox(e.paramSection, e.paramsRaw), "params"),
		widget.NewSeparator(),
		errs.field("Action", container.NewVBox(e.actionKind, e.respondBox, e.commandBox, e.httpBox), "action"),
		widget.NewSeparator(),
		errs.field("Input steps", e.steps.content(), "steps"),
		errs.field("Approval", container.NewVBox(e.approval, approvalNote), "approval"),
		widget.NewSeparator(),
		errs.field("Hints", hints, "hints"),
		errs.field("Run in the background", container.NewVBox(e.taskMode,
			hint("A long call can run as a task: the AI app gets an answer at once and follows the progress (taskMode).")), "taskMode"),
		widget.NewSeparator(),
		errs.field("Which AI apps see it (client tokens)", e.tokens.content(), "tokens"),
		e.advanced.box,
		e.tryBox.box,
	)
	e.content = e.layout(form, e.tryBtn)
	e.checkName(t.Name)
	entries := append([]*widget.Entry{e.title, e.description, e.structured.entry, e.body.entry}, e.command.entries()...)
	for _, en := range append(entries, e.http.entries()...) {
		en.OnChanged = func(string) { e.followChange() }
	}
	for _, c := range []*widget.Check{e.readOnly, e.destructive, e.idempotent, e.openWorld, e.isError} {
		c.OnChanged = func(bool) { e.followChange() }
	}
	for _, sel := range append([]*widget.Select{e.taskMode, e.approval, e.http.method}, e.command.selects()...) {
		sel.OnChanged = func(string) { e.followChange() }
	}
	onKind := e.actionKind.OnChanged
	e.actionKind.OnChanged = func(k string) {
		onKind(k)
		e.followChange()
	}
	e.built = true
	e.settle()
	// The previews show at once; after an edit, once typing pauses.
	e.tmpl.refresh()
	return e
}

// SetTrier lets the editor run the tool through the MCP endpoint (Try
// it); nil hides Try it.
func (e *ToolEditor) SetTrier(t ToolTrier) {
	e.try.trier = t
	if t == nil {
		e.tryBox.box.Hide()
		e.tryBtn.Hide()
		return
	}
	e.tryBox.box.Show()
	e.tryBtn.Show()
	e.followChange()
}

// followChange follows an edit or a save: Try it's Run says whether it
// saves first, and the previews follow.
func (e *ToolEditor) followChange() {
	if !e.built {
		return
	}
	e.try.setDirty(e.dirty())
	t, _ := e.Tool()
	e.try.follow(t.InputSchemaJSON())
	e.tmpl.changed()
}

// checkProgram warns, after a save, when the command's program cannot be
// found.
func (e *ToolEditor) checkProgram() {
	if c := e.orig.Action.Command; c != nil {
		e.command.checkProgram(c, e.tmpl.server)
		return
	}
	e.command.warn.Hide()
}

// templateParams are the parameters' names, and sample values of them:
// Try it's arguments when they read, else samples from the schema. A
// hand-written schema whose properties cannot be read declares no names,
// so any goes.
func (e *ToolEditor) templateParams() ([]string, map[string]any) {
	var names []string
	var schema json.RawMessage
	if e.schema.raw.Checked {
		schema = json.RawMessage(e.schema.input.Text)
		var root struct {
			Properties json.RawMessage `json:"properties"`
		}
		if json.Unmarshal(schema, &root) != nil {
			return nil, map[string]any{}
		}
		ns, _, err := orderedObject(root.Properties)
		if err != nil {
			return nil, map[string]any{}
		}
		names = append([]string{}, ns...)
	} else {
		ps := e.readParams()
		for _, p := range ps {
			names = append(names, p.Name)
		}
		schema = catalog.Tool{Params: ps}.InputSchemaJSON()
	}
	// Samples from the schema, "[NAME]" for text without one, and over
	// them what Try it holds.
	args, _ := parseArgs(sampleArgs(schema))
	for _, n := range names {
		if v, ok := args[n]; !ok || v == "" {
			args[n] = "[" + n + "]"
		}
	}
	if e.try != nil {
		if vals, ok := e.try.sampleValues(); ok {
			maps.Copy(args, vals)
		}
	}
	return names, args
}

// templateSteps are the input steps as templates see them, the implicit
// approval of a destructive tool last.
func (e *ToolEditor) templateSteps() []stepInfo {
	out := e.steps.infos()
	if e.destructive != nil && (e.destructive.Checked || approvalChoices.valueOf(e.approval.Selected) == catalog.ApprovalAlways) &&
		approvalChoices.valueOf(e.approval.Selected) != catalog.ApprovalOff && !slices.ContainsFunc(out, func(s stepInfo) bool { return s.kind == catalog.StepApproval }) {
		answer, _ := sampleAnswer(catalog.InputStep{Kind: catalog.StepApproval})
		out = append(out, stepInfo{key: "approval", kind: catalog.StepApproval, round: afterAllRounds, answer: answer})
	}
	return out
}

// dirty says whether the form differs from what is stored.
func (e *ToolEditor) dirty() bool {
	if e.isNew || e.tokens.dirty() {
		return true
	}
	t, local := e.Tool()
	return len(local) > 0 || !sameJSON(t, e.orig)
}

// sameJSON says whether a and b have the same JSON form, whatever the
// spacing of the raw JSON inside them.
func sameJSON(a, b any) bool {
	var va, vb any
	for _, x := range []struct {
		in  any
		out *any
	}{{a, &va}, {b, &vb}} {
		raw, err := json.Marshal(x.in)
		if err != nil || json.Unmarshal(raw, x.out) != nil {
			return false
		}
	}
	return reflect.DeepEqual(va, vb)
}

// showParams shows the parameters, or hides them while the input schema
// is hand-written.
func (e *ToolEditor) showParams(raw bool) {
	if raw {
		e.paramSection.Hide()
		e.paramsRaw.Show()
		return
	}
	e.paramSection.Show()
	e.paramsRaw.Hide()
}

// numberParams titles the parameter cards in their order.
func (e *ToolEditor) numberParams() {
	for i, r := range e.params {
		r.title.SetText(fmt.Sprintf("Parameter %d", i+1))
	}
}

// setParams replaces the rows of the parameters table.
func (e *ToolEditor) setParams(ps []catalog.Param) {
	e.params = nil
	e.paramBox.Objects = nil
	for _, p := range ps {
		e.addParam(p)
	}
	e.paramBox.Refresh()
}

// paramsChanged follows an edit of the parameters table.
func (e *ToolEditor) paramsChanged() {
	if !e.built {
		return
	}
	e.schema.showGenerated()
	e.followChange()
}

// Content is the editor's widget tree.
func (e *ToolEditor) Content() fyne.CanvasObject { return e.content }

func (e *ToolEditor) addParam(p catalog.Param) {
	r := &paramRow{orig: p, title: widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})}
	r.name = widget.NewEntry()
	r.name.SetPlaceHolder("e.g. city")
	r.name.SetText(p.Name)
	r.items = newChoiceSelect(paramTypeChoices, cmp.Or(p.Items, "string"))
	r.itemsBox = labelled("List of", r.items)
	itemsCell := container.NewStack(r.itemsBox) // keeps the grid's columns when items hide
	r.typ = widget.NewSelect(paramTypeChoices.labels(), func(label string) {
		if paramTypeChoices.valueOf(label) == "array" {
			r.itemsBox.Show()
		} else {
			r.itemsBox.Hide()
		}
	})
	selectKeeping(r.typ, paramTypeChoices.labelOf(cmp.Or(p.Type, "string")))
	r.required = widget.NewCheck("Required", nil)
	r.required.SetChecked(p.Required)
	r.enum = widget.NewEntry()
	r.enum.SetPlaceHolder("comma separated")
	r.enum.SetText(joinValues(p.Enum))
	r.def = widget.NewEntry()
	r.def.SetPlaceHolder("optional")
	if p.Default != nil {
		r.def.SetText(valueText(p.Default))
	}
	r.desc = widget.NewEntry()
	r.desc.SetPlaceHolder("what the AI app should pass")
	r.desc.SetText(p.Description)
	r.header = widget.NewEntry()
	r.header.SetPlaceHolder("optional, e.g. Region")
	r.header.SetText(p.Header)
	e.params = append(e.params, r)
	var row *fyne.Container
	remove := widget.NewButtonWithIcon("", theme.DeleteIcon(), func() {
		e.params = slices.DeleteFunc(e.params, func(x *paramRow) bool { return x == r })
		e.paramBox.Remove(row)
		e.numberParams()
		e.paramsChanged()
	})
	row = container.NewVBox(
		container.NewBorder(nil, nil, nil, container.NewHBox(r.required, remove), r.title),
		container.NewGridWithColumns(3, labelled("Name", r.name), labelled("Type", r.typ), itemsCell),
		labelled("Description", r.desc),
		container.NewGridWithColumns(3, labelled("Allowed values", r.enum), labelled("Default", r.def),
			labelled("HTTP header", r.header)),
		widget.NewSeparator(),
	)
	for _, en := range []*widget.Entry{r.name, r.enum, r.def, r.desc, r.header} {
		en.OnChanged = func(string) { e.paramsChanged() }
	}
	onType := r.typ.OnChanged
	r.typ.OnChanged = func(typ string) {
		onType(typ)
		e.paramsChanged()
	}
	r.items.OnChanged = func(string) { e.paramsChanged() }
	r.required.OnChanged = func(bool) { e.paramsChanged() }
	e.paramBox.Add(row)
	e.numberParams()
	e.paramsChanged()
}

func joinValues(vs []any) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = valueText(v)
	}
	return strings.Join(s, ", ")
}

func valueText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// parseValue reads a value typed for a parameter of type typ; a value that
// does not parse is kept as a string, for validation to name.
func parseValue(typ, s string) any {
	switch typ {
	case "integer", "number", "boolean", "array", "object":
		var v any
		if err := json.Unmarshal([]byte(s), &v); err == nil {
			return v
		}
	}
	return s
}

func (e *ToolEditor) buildAction(a catalog.Action) {
	var r catalog.Respond
	if a.Respond != nil {
		r = *a.Respond
	} else {
		// Something to type in; a stored respond action without blocks
		// (structured content only, an error) stays without.
		r.Content = []catalog.Content{{Type: "text"}}
	}
	action := func() int { return -1 }
	e.blocks = newContentEditor(r.Content, e.followChange, e.tmpl)
	e.isError = widget.NewCheck("Answer as an error", nil)
	e.isError.SetChecked(r.IsError)
	structured := jsonArea(`optional, e.g. {"city": "{{.args.city}}", "temperature": 21}`, 3)
	if len(r.Structured) > 0 {
		structured.SetText(indentJSON(r.Structured))
	}
	e.structured = e.tmpl.templatedEntry(structured, action)
	e.command = newCommandFields(e.errs, "action.command", a.Command, e.tmpl)
	e.http = newHTTPFields(e.errs, "action.http", a.HTTP, e.tmpl)
	body := widget.NewMultiLineEntry()
	body.SetPlaceHolder("request body (optional; templates allowed)")
	if a.HTTP != nil {
		body.SetText(string(a.HTTP.Body))
	}
	e.body = e.tmpl.templatedEntry(body, action)
	structuredHint := hint("JSON whose strings are templates, for AI apps that read data; with an output schema (under Advanced) it is checked against it.")
	e.respondBox = container.NewVBox(e.blocks.content(), e.errs["action.respond"],
		e.isError, hint("The AI app's model sees that the tool failed (isError)."),
		widget.NewLabel("Structured content (JSON)"), structuredHint, e.structuredBox())
	e.commandBox = e.command.box
	e.httpBox = container.NewVBox(e.http.box, e.errs.templatedSub("Body", e.body, "action.http.body"))
	e.actionKind = widget.NewSelect([]string{kindRespond, kindCommand, kindHTTP}, func(k string) {
		e.respondBox.Hide()
		e.commandBox.Hide()
		e.httpBox.Hide()
		switch k {
		case kindCommand:
			e.commandBox.Show()
		case kindHTTP:
			e.httpBox.Show()
		default:
			e.respondBox.Show()
		}
	})
	switch a.Kind() {
	case "command":
		e.actionKind.SetSelected(kindCommand)
	case "http":
		e.actionKind.SetSelected(kindHTTP)
	default:
		e.actionKind.SetSelected(kindRespond)
	}
}

// structuredBox is the structured content's field, its problems on its
// error line.
func (e *ToolEditor) structuredBox() fyne.CanvasObject {
	e.structured.problem = e.errs["action.respond.structured"]
	return e.structured.box()
}

func joinMap(m map[string]catalog.Template, sep string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	lines := make([]string, len(keys))
	for i, k := range keys {
		lines[i] = k + sep + string(m[k])
	}
	return strings.Join(lines, "\n")
}

// splitMap reads "key<sep>value" lines; a line without sep is a problem.
func splitMap(s, sep string) (map[string]catalog.Template, []string) {
	var bad []string
	m := map[string]catalog.Template{}
	for i, line := range strings.Split(s, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		k, v, ok := strings.Cut(line, strings.TrimSpace(sep))
		if !ok || strings.TrimSpace(k) == "" {
			bad = append(bad, fmt.Sprintf("line %d: expected NAME%svalue", i+1, sep))
			continue
		}
		m[strings.TrimSpace(k)] = catalog.Template(strings.TrimSpace(v))
	}
	if len(m) == 0 {
		m = nil
	}
	return m, bad
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

// hintOn says whether a hint is set and true.
func hintOn(b *bool) bool { return b != nil && *b }

func boolHint(checked bool, orig *bool) *bool {
	if checked {
		v := true
		return &v
	}
	if orig != nil {
		v := false
		return &v
	}
	return nil
}

// Tool is the tool as the form describes it, with the problems of fields
// the form itself could not read (by field path).
func (e *ToolEditor) Tool() (catalog.Tool, []catalog.Problem) {
	t := e.orig // keeps what the form does not edit (disabled, action details, …)
	entry := fmt.Sprintf("tool %q", e.name.Text)
	var local []catalog.Problem
	bad := func(field string, msgs ...string) {
		for _, m := range msgs {
			local = append(local, catalog.Problem{Entry: entry, Field: field, Message: m})
		}
	}
	t.Name = strings.TrimSpace(e.name.Text)
	t.Title = strings.TrimSpace(e.title.Text)
	t.Description = strings.TrimSpace(e.description.Text)
	var ps []catalog.Problem
	t.InputSchema, t.OutputSchema, ps = e.schema.schemas(entry)
	local = append(local, ps...)
	t.Params = nil
	if !e.schema.raw.Checked {
		t.Params = e.readParams()
	}
	t.Steps, ps = e.steps.steps(entry)
	local = append(local, ps...)
	t.Approval = approvalChoices.valueOf(e.approval.Selected)
	switch e.actionKind.Selected {
	case kindCommand:
		c := e.command.spec(t.Action.Command, "action.command", bad)
		t.Action = catalog.Action{Command: c}
	case kindHTTP:
		h := e.http.spec(t.Action.HTTP, "action.http", bad)
		h.Body = catalog.Template(e.body.entry.Text)
		t.Action = catalog.Action{HTTP: h}
	default:
		r := &catalog.Respond{}
		if t.Action.Respond != nil {
			*r = *t.Action.Respond
		}
		r.Content = e.blocks.blocks()
		r.IsError = e.isError.Checked
		r.Structured = nil
		if text := strings.TrimSpace(e.structured.entry.Text); text != "" {
			if err := jsonSyntax(text); err != nil {
				bad("action.respond.structured", err.Error())
			} else {
				r.Structured = compactJSON(text)
			}
		}
		t.Action = catalog.Action{Respond: r}
	}
	var orig catalog.Hints
	if e.orig.Hints != nil {
		orig = *e.orig.Hints
	}
	h := &catalog.Hints{
		ReadOnly:    boolHint(e.readOnly.Checked, orig.ReadOnly),
		Destructive: boolHint(e.destructive.Checked, orig.Destructive),
		Idempotent:  boolHint(e.idempotent.Checked, orig.Idempotent),
		OpenWorld:   boolHint(e.openWorld.Checked, orig.OpenWorld),
	}
	t.Hints = h
	if *h == (catalog.Hints{}) {
		t.Hints = nil
	}
	t.TaskMode = taskModeChoices.valueOf(e.taskMode.Selected)
	if t.TaskMode == catalog.TaskNever {
		t.TaskMode = ""
	}
	return t, local
}

// readParams reads the parameters table.
func (e *ToolEditor) readParams() []catalog.Param {
	var out []catalog.Param
	for _, r := range e.params {
		p := r.orig
		p.Name = strings.TrimSpace(r.name.Text)
		p.Type = paramTypeChoices.valueOf(r.typ.Selected)
		p.Required = r.required.Checked
		p.Description = strings.TrimSpace(r.desc.Text)
		p.Header = strings.TrimSpace(r.header.Text)
		// "string" is the default item type; it is stored only when it
		// was spelled out.
		p.Items = ""
		if items := paramTypeChoices.valueOf(r.items.Selected); p.Type == "array" && (items != "string" || r.orig.Items == "string") {
			p.Items = items
		}
		p.Enum = nil
		if s := strings.TrimSpace(r.enum.Text); s != "" {
			for _, v := range strings.Split(s, ",") {
				p.Enum = append(p.Enum, parseValue(p.Type, strings.TrimSpace(v)))
			}
		}
		p.Default = nil
		if s := strings.TrimSpace(r.def.Text); s != "" {
			p.Default = parseValue(p.Type, s)
		}
		out = append(out, p)
	}
	return out
}

// wordProblem names the parameter a problem is about.
func (e *ToolEditor) wordProblem(key string, p catalog.Problem) string {
	if key == "params" {
		return e.paramLabel(p.Field) + p.Message
	}
	return plainWord(key, p)
}

// paramLabel names the parameter a params[i].x problem is about.
func (e *ToolEditor) paramLabel(field string) string {
	var i int
	var rest string
	if n, _ := fmt.Sscanf(field, "params[%d]%s", &i, &rest); n >= 1 && i >= 0 && i < len(e.params) {
		name := e.params[i].name.Text
		if name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
		return fmt.Sprintf("parameter %s%s: ", name, rest)
	}
	return ""
}
