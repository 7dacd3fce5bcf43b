package editor

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/storage"
)

// Action kinds as the editor names them.
const (
	kindRespond = "Answer with content"
	KindCommand = "Run a command"
	kindHTTP    = "Call a URL"
)

// paramRow is one parameter's card in the parameters list.
type paramRow struct {
	Name, enum, Def, desc, header *widget.Entry
	// pattern is the regular expression a text value must match.
	pattern *widget.Entry
	// min and max bound a number; boundsBox holds them, shown for numbers
	// only.
	min, max   *widget.Entry
	boundsBox  fyne.CanvasObject
	typ, items *widget.Select
	Required   *widget.Check
	title      *widget.Label
	// itemsBox is the item type with its label, shown for lists only.
	itemsBox fyne.CanvasObject
	orig     catalog.Param
}

// Approval choices as the editor names them, and the catalog.Tool.Approval
// value each stands for.
var approvalChoices = ui.Choices{
	{Label: "Ask before destructive calls", Value: ""},
	{Label: "Always ask", Value: catalog.ApprovalAlways},
	{Label: "Never ask", Value: catalog.ApprovalOff},
}

// ToolEditor is the form that creates and edits a tool. Save validates the
// whole tool (the same checks the server makes) and stores it through
// storage, with which client tokens see it, so the running server serves
// it at once; problems show next to the fields they are about and nothing
// is stored.
type ToolEditor struct {
	*editorCore[catalog.Tool]

	titledFields
	Params   []*paramRow
	paramBox *fyne.Container
	// paramSection is the list with its Add button, hidden while the input
	// schema is hand-written; paramsRaw says so meanwhile.
	paramSection fyne.CanvasObject
	paramsRaw    *widget.Label
	ActionKind   *widget.Select
	Blocks       *contentEditor
	isError      *widget.Check
	structured   *templated
	Command      *commandFields
	http         *httpFields
	body         *templated
	// Tmpl is what the templated fields insert and preview with.
	Tmpl                   *templateContext
	respondBox, commandBox *fyne.Container
	httpBox                *fyne.Container
	readOnly, destructive  *widget.Check
	idempotent, openWorld  *widget.Check
	taskMode               *widget.Select
	approval               *widget.Select
	Steps                  *stepsEditor
	tokens                 *tokenAccess
	schema                 *schemaEditor
	// Advanced holds the raw schemas.
	Advanced *ui.Disclosure
	Try      *tryPanel
	// TryBox holds the Try it panel; it shows once SetTrier gives the
	// editor a way to call tools.
	TryBox *ui.Disclosure
	tryBtn *widget.Button
	// built is set once every widget exists: change callbacks fired while
	// the form is filled in are no edits.
	built bool

	content fyne.CanvasObject
}

// NewToolEditor edits t; isNew says it is not stored yet. onSaved gets the
// name after a save, "" after a delete.
func NewToolEditor(st *storage.Store, t catalog.Tool, isNew bool, onSaved func(name string)) *ToolEditor {
	t = asParams(t)
	errs := newFieldErrors("name", "title", "description", "params",
		"action", "action.respond", "action.respond.structured", "action.command", "action.command.argv", "action.command.dir", "action.command.os", "action.command.os.windows.dir", "action.command.env",
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
	e.Tmpl = newTemplateContext(st.Path(), e.templateParams, e.templateSteps)
	e.Tmpl.samples = "Try it's sample arguments"
	e.titledFields = newTitledFields(t.Name, t.Title, t.Description, [3]string{
		"e.g. search_notes (letters, digits, _ - .)",
		"Shown to people, e.g. Search my notes",
		"What it does and when to use it: the model reads this to decide"}, 3)
	e.Name.OnChanged = func(s string) {
		e.checkName(s)
		e.followChange()
	}

	e.paramBox = container.NewVBox()
	for _, p := range t.Params {
		e.AddParam(p)
	}
	addParam := widget.NewButtonWithIcon("Add parameter", theme.ContentAddIcon(), func() {
		e.AddParam(catalog.Param{Type: "string"})
	})
	e.paramsRaw = ui.Hint("Written by hand as a JSON schema, under Advanced: raw schemas.")
	e.paramSection = container.NewVBox(
		ui.Hint("What the AI app passes to the tool; Insert puts a parameter in the text the tool sends or runs ({{.args.NAME}})."),
		e.paramBox, container.NewHBox(addParam))

	e.buildAction(t.Action)
	e.cards = func(ps []catalog.Problem) []catalog.Problem { return e.Blocks.ShowProblems(e.Steps.ShowProblems(ps)) }

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
		ui.Hint("What the AI app is told about the tool, to decide how freely to call it."),
		e.readOnly, ui.Hint("It only reads: it changes nothing (readOnly)."),
		e.destructive, ui.Hint("It may delete or overwrite things; mcptray asks you before it runs (destructive)."),
		e.idempotent, ui.Hint("Calling it twice with the same arguments does no more than once (idempotent)."),
		e.openWorld, ui.Hint("It talks to the internet or other programs, not only to this computer (openWorld)."))
	e.taskMode = ui.NewChoiceSelect(TaskModeChoices, cmp.Or(t.TaskMode, catalog.TaskNever))
	e.approval = ui.NewChoiceSelect(approvalChoices, t.Approval)
	approvalNote := ui.Hint("Asked on this computer before the tool runs; an approval step replaces it.")
	e.Steps = newStepsEditor(t.Steps, false, e.followChange, e.Tmpl)
	e.tokens = newTokenAccess(st, e.origKey(), e.followChange)
	e.extra = e.tokens
	errs["tokens"] = e.tokens.err
	e.schema = newSchemaEditor(t, errs["inputSchema"], errs["outputSchema"], e.readParams, e.setParams, e.showParams, e.followChange)
	e.showParams(len(t.InputSchema) > 0)
	e.Advanced = ui.NewDisclosure("Advanced: raw schemas", e.schema.content(), e.formScroll)
	e.opening = func(ps []catalog.Problem) {
		if slices.ContainsFunc(ps, func(p catalog.Problem) bool {
			return strings.HasPrefix(p.Field, "inputSchema") || strings.HasPrefix(p.Field, "outputSchema")
		}) && !e.Advanced.IsOpen() {
			e.Advanced.Open()
		}
	}
	e.Try = newTryPanel(e)
	e.TryBox = ui.NewDisclosure("Try it", e.Try.content(), e.formScroll)
	e.TryBox.Box.Hide()
	e.tryBtn = widget.NewButtonWithIcon("Try it", theme.MediaPlayIcon(), e.TryBox.Open)
	e.tryBtn.Hide()

	form := container.NewVBox(
		errs.field("Name", e.Name, "name"),
		errs.field("Title", e.Title, "title"),
		errs.field("Description", e.Description, "description"),
		widget.NewSeparator(),
		errs.field("Parameters", container.NewVBox(e.paramSection, e.paramsRaw), "params"),
		widget.NewSeparator(),
		errs.field("Action", container.NewVBox(e.ActionKind, e.respondBox, e.commandBox, e.httpBox), "action"),
		widget.NewSeparator(),
		errs.field("Input steps", e.Steps.content(), "steps"),
		errs.field("Approval", container.NewVBox(e.approval, approvalNote), "approval"),
		widget.NewSeparator(),
		errs.field("Hints", hints, "hints"),
		errs.field("Run in the background", container.NewVBox(e.taskMode,
			ui.Hint("A long call can run as a task: the AI app gets an answer at once and follows the progress (taskMode).")), "taskMode"),
		widget.NewSeparator(),
		errs.field("Which AI apps see it (client tokens)", e.tokens.content(), "tokens"),
		e.Advanced.Box,
		e.TryBox.Box,
	)
	e.content = e.layout(form, e.tryBtn)
	e.checkName(t.Name)
	entries := append([]*widget.Entry{e.Title, e.Description, e.structured.Entry, e.body.Entry}, e.Command.entries()...)
	for _, en := range append(entries, e.http.entries()...) {
		en.OnChanged = func(string) { e.followChange() }
	}
	for _, c := range []*widget.Check{e.readOnly, e.destructive, e.idempotent, e.openWorld, e.isError} {
		c.OnChanged = func(bool) { e.followChange() }
	}
	for _, sel := range append([]*widget.Select{e.taskMode, e.approval, e.http.method}, e.Command.selects()...) {
		sel.OnChanged = func(string) { e.followChange() }
	}
	onKind := e.ActionKind.OnChanged
	e.ActionKind.OnChanged = func(k string) {
		onKind(k)
		e.followChange()
	}
	e.built = true
	e.settle()
	// The previews show at once; after an edit, once typing pauses.
	e.Tmpl.Refresh()
	return e
}

// SetTrier lets the editor run the tool through the MCP endpoint (Try
// it); nil hides Try it.
func (e *ToolEditor) SetTrier(t ToolTrier) {
	e.Try.trier = t
	if t == nil {
		e.TryBox.Box.Hide()
		e.tryBtn.Hide()
		return
	}
	e.TryBox.Box.Show()
	e.tryBtn.Show()
	e.followChange()
}

// followChange follows an edit or a save: Try it's Run says whether it
// saves first, and the previews follow.
func (e *ToolEditor) followChange() {
	if !e.built {
		return
	}
	e.Try.setDirty(e.dirty())
	t, _ := e.Tool()
	e.Try.follow(t.InputSchemaJSON())
	e.Tmpl.changed()
}

// checkProgram warns, after a save, when the command's program cannot be
// found.
func (e *ToolEditor) checkProgram() {
	if c := e.Orig.Action.Command; c != nil {
		e.Command.checkProgram(c, e.Tmpl.server)
		return
	}
	e.Command.warn.Hide()
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
		ns, _, err := ui.OrderedObject(root.Properties)
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
	// them what Try it holds. A tool that may destroy gets no made-up
	// sample here either: "--older-than-days 0" under clean_downloads'
	// command would read as if it deleted every download.
	args, _ := ParseArgs(sampleArgs(schema, e.destructive != nil && e.destructive.Checked))
	for _, n := range names {
		if v, ok := args[n]; !ok || v == "" {
			args[n] = "[" + n + "]"
		}
	}
	if e.Try != nil {
		if vals, ok := e.Try.sampleValues(); ok {
			maps.Copy(args, vals)
		}
	}
	return names, args
}

// templateSteps are the input steps as templates see them, the implicit
// approval of a destructive tool last.
func (e *ToolEditor) templateSteps() []stepInfo {
	out := e.Steps.infos()
	if e.destructive != nil && (e.destructive.Checked || approvalChoices.ValueOf(e.approval.Selected) == catalog.ApprovalAlways) &&
		approvalChoices.ValueOf(e.approval.Selected) != catalog.ApprovalOff && !slices.ContainsFunc(out, func(s stepInfo) bool { return s.kind == catalog.StepApproval }) {
		answer, _ := sampleAnswer(catalog.InputStep{Kind: catalog.StepApproval})
		out = append(out, stepInfo{key: "approval", kind: catalog.StepApproval, round: afterAllRounds, answer: answer})
	}
	return out
}

// dirty says whether the form differs from what is stored.
func (e *ToolEditor) dirty() bool {
	if e.IsNew || e.tokens.dirty() {
		return true
	}
	t, local := e.Tool()
	return len(local) > 0 || !sameJSON(t, e.Orig)
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
	for i, r := range e.Params {
		r.title.SetText(fmt.Sprintf("Parameter %d", i+1))
	}
}

// setParams replaces the rows of the parameters table.
func (e *ToolEditor) setParams(ps []catalog.Param) {
	e.Params = nil
	e.paramBox.Objects = nil
	for _, p := range ps {
		e.AddParam(p)
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

// AddParam adds a parameter row filled with p.
func (e *ToolEditor) AddParam(p catalog.Param) {
	r := &paramRow{orig: p, title: widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})}
	r.Name = widget.NewEntry()
	r.Name.SetPlaceHolder("e.g. city")
	r.Name.SetText(p.Name)
	r.items = ui.NewChoiceSelect(ParamTypeChoices, cmp.Or(p.Items, "string"))
	r.itemsBox = ui.Labelled("List of", r.items)
	itemsCell := container.NewStack(r.itemsBox) // keeps the grid's columns when items hide
	r.typ = widget.NewSelect(ParamTypeChoices.Labels(), func(label string) {
		if ParamTypeChoices.ValueOf(label) == "array" {
			r.itemsBox.Show()
		} else {
			r.itemsBox.Hide()
		}
		if r.boundsBox != nil { // made after the type is first chosen
			r.showBounds()
		}
	})
	ui.SelectKeeping(r.typ, ParamTypeChoices.LabelOf(cmp.Or(p.Type, "string")))
	r.Required = widget.NewCheck("Required", nil)
	r.Required.SetChecked(p.Required)
	r.enum = widget.NewEntry()
	r.enum.SetPlaceHolder("comma separated")
	r.enum.SetText(joinValues(p.Enum))
	r.Def = widget.NewEntry()
	r.Def.SetPlaceHolder("optional")
	if p.Default != nil {
		r.Def.SetText(valueText(p.Default))
	}
	r.desc = widget.NewEntry()
	r.desc.SetPlaceHolder("what the AI app should pass")
	r.desc.SetText(p.Description)
	r.header = widget.NewEntry()
	r.header.SetPlaceHolder("optional, e.g. Region")
	r.header.SetText(p.Header)
	r.pattern = widget.NewEntry()
	r.pattern.SetPlaceHolder(`optional, e.g. ^[A-Za-z0-9_.-]+$`)
	r.pattern.SetText(p.Pattern)
	r.min, r.max = widget.NewEntry(), widget.NewEntry()
	r.min.SetPlaceHolder("no limit")
	r.max.SetPlaceHolder("no limit")
	if p.Minimum != nil {
		r.min.SetText(ui.Num(*p.Minimum))
	}
	if p.Maximum != nil {
		r.max.SetText(ui.Num(*p.Maximum))
	}
	r.boundsBox = container.NewGridWithColumns(2, ui.Labelled("Smallest allowed", r.min), ui.Labelled("Largest allowed", r.max))
	r.showBounds()
	e.Params = append(e.Params, r)
	var row *fyne.Container
	remove := widget.NewButtonWithIcon("", theme.DeleteIcon(), func() {
		e.Params = slices.DeleteFunc(e.Params, func(x *paramRow) bool { return x == r })
		e.paramBox.Remove(row)
		e.numberParams()
		e.paramsChanged()
	})
	// The pattern and the header are for the few who write regular
	// expressions or route requests by header: under Advanced, open from
	// the start only when one is set.
	built := false
	advanced := ui.NewDisclosure("Advanced", container.NewVBox(
		ui.Labelled("Text must match", r.pattern),
		ui.Hint("A regular expression (pattern) every value of this text parameter must match, or the call is refused before anything runs: ^[A-Za-z0-9_.-]+$ lets through a file name and never a path."),
		ui.Labelled("Also send it in an HTTP header named", r.header),
		ui.Hint("For proxies and gateways that route calls by header: the AI app then sends the value in the header Mcp-Param-NAME as well. Most tools need none.")),
		func() *container.Scroll {
			if !built {
				return nil // opened as it is made: nothing to scroll yet
			}
			return e.formScroll()
		})
	if p.Header != "" || p.Pattern != "" {
		advanced.Open()
	}
	built = true
	row = container.NewVBox(
		container.NewBorder(nil, nil, nil, container.NewHBox(r.Required, remove), r.title),
		container.NewGridWithColumns(3, ui.Labelled("Name", r.Name), ui.Labelled("Type", r.typ), itemsCell),
		ui.Labelled("Description", r.desc),
		container.NewGridWithColumns(2, ui.Labelled("Allowed values", r.enum), ui.Labelled("Default", r.Def)),
		r.boundsBox,
		advanced.Box,
		widget.NewSeparator(),
	)
	for _, en := range []*widget.Entry{r.Name, r.enum, r.Def, r.desc, r.header, r.pattern, r.min, r.max} {
		en.OnChanged = func(string) { e.paramsChanged() }
	}
	onType := r.typ.OnChanged
	r.typ.OnChanged = func(typ string) {
		onType(typ)
		e.paramsChanged()
	}
	r.items.OnChanged = func(string) { e.paramsChanged() }
	r.Required.OnChanged = func(bool) { e.paramsChanged() }
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
	e.Blocks = newContentEditor(r.Content, e.followChange, e.Tmpl)
	e.isError = widget.NewCheck("Answer as an error", nil)
	e.isError.SetChecked(r.IsError)
	structured := ui.JsonArea(`optional, e.g. {"city": "{{.args.city}}", "temperature": 21}`, 3)
	if len(r.Structured) > 0 {
		structured.SetText(indentJSON(r.Structured))
	}
	e.structured = e.Tmpl.templatedEntry(structured, action)
	e.Command = newCommandFields(e.Errs, "action.command", a.Command, e.Tmpl)
	e.http = newHTTPFields(e.Errs, "action.http", a.HTTP, e.Tmpl)
	body := widget.NewMultiLineEntry()
	body.SetPlaceHolder("request body (optional; templates allowed)")
	if a.HTTP != nil {
		body.SetText(string(a.HTTP.Body))
	}
	e.body = e.Tmpl.templatedEntry(body, action)
	structuredHint := ui.Hint("For AI apps that read data rather than text: written as JSON, whose strings may use the parameters; with an output schema (under Advanced) it is checked against it (structuredContent).")
	e.respondBox = container.NewVBox(e.Blocks.content(), e.Errs["action.respond"],
		e.isError, ui.Hint("The AI app's model sees that the tool failed (isError)."),
		widget.NewLabel("Data for programs (optional)"), structuredHint, e.structuredBox())
	e.commandBox = e.Command.box
	e.httpBox = container.NewVBox(e.http.box, e.Errs.templatedSub("Body", e.body, "action.http.body"))
	e.ActionKind = widget.NewSelect([]string{kindRespond, KindCommand, kindHTTP}, func(k string) {
		e.respondBox.Hide()
		e.commandBox.Hide()
		e.httpBox.Hide()
		switch k {
		case KindCommand:
			e.commandBox.Show()
		case kindHTTP:
			e.httpBox.Show()
		default:
			e.respondBox.Show()
		}
	})
	switch a.Kind() {
	case "command":
		e.ActionKind.SetSelected(KindCommand)
	case "http":
		e.ActionKind.SetSelected(kindHTTP)
	default:
		e.ActionKind.SetSelected(kindRespond)
	}
}

// structuredBox is the structured content's field, its problems on its
// error line.
func (e *ToolEditor) structuredBox() fyne.CanvasObject {
	e.structured.problem = e.Errs["action.respond.structured"]
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
	t := e.Orig // keeps what the form does not edit (disabled, action details, …)
	entry := fmt.Sprintf("tool %q", e.Name.Text)
	var local []catalog.Problem
	bad := func(field string, msgs ...string) {
		for _, m := range msgs {
			local = append(local, catalog.Problem{Entry: entry, Field: field, Message: m})
		}
	}
	t.Name = strings.TrimSpace(e.Name.Text)
	t.Title = strings.TrimSpace(e.Title.Text)
	t.Description = strings.TrimSpace(e.Description.Text)
	var ps []catalog.Problem
	t.InputSchema, t.OutputSchema, ps = e.schema.schemas(entry)
	local = append(local, ps...)
	t.Params = nil
	if !e.schema.raw.Checked {
		t.Params = e.readParams()
		for i, p := range t.Params {
			if p.Type != "integer" && p.Type != "number" {
				continue
			}
			for _, b := range []struct{ field, text string }{{"minimum", e.Params[i].min.Text}, {"maximum", e.Params[i].max.Text}} {
				if _, ok := readBound(b.text); !ok {
					bad(fmt.Sprintf("params[%d].%s", i, b.field), "must be a number, like 1 or 0.5")
				}
			}
		}
	}
	t.Steps, ps = e.Steps.steps(entry)
	local = append(local, ps...)
	t.Approval = approvalChoices.ValueOf(e.approval.Selected)
	switch e.ActionKind.Selected {
	case KindCommand:
		c := e.Command.spec(t.Action.Command, "action.command", bad)
		t.Action = catalog.Action{Command: c}
	case kindHTTP:
		h := e.http.spec(t.Action.HTTP, "action.http", bad)
		h.Body = catalog.Template(e.body.Entry.Text)
		t.Action = catalog.Action{HTTP: h}
	default:
		r := &catalog.Respond{}
		if t.Action.Respond != nil {
			*r = *t.Action.Respond
		}
		r.Content = e.Blocks.blocks()
		r.IsError = e.isError.Checked
		r.Structured = nil
		if text := strings.TrimSpace(e.structured.Entry.Text); text != "" {
			if err := ui.JsonSyntax(text); err != nil {
				bad("action.respond.structured", err.Error())
			} else {
				r.Structured = compactJSON(text)
			}
		}
		t.Action = catalog.Action{Respond: r}
	}
	var orig catalog.Hints
	if e.Orig.Hints != nil {
		orig = *e.Orig.Hints
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
	t.TaskMode = TaskModeChoices.ValueOf(e.taskMode.Selected)
	if t.TaskMode == catalog.TaskNever {
		t.TaskMode = ""
	}
	return t, local
}

// readParams reads the parameters table.
func (e *ToolEditor) readParams() []catalog.Param {
	var out []catalog.Param
	for _, r := range e.Params {
		p := r.orig
		p.Name = strings.TrimSpace(r.Name.Text)
		p.Type = ParamTypeChoices.ValueOf(r.typ.Selected)
		p.Required = r.Required.Checked
		p.Description = strings.TrimSpace(r.desc.Text)
		p.Header = strings.TrimSpace(r.header.Text)
		p.Pattern = strings.TrimSpace(r.pattern.Text)
		// "string" is the default item type; it is stored only when it
		// was spelled out.
		p.Items = ""
		if items := ParamTypeChoices.ValueOf(r.items.Selected); p.Type == "array" && (items != "string" || r.orig.Items == "string") {
			p.Items = items
		}
		p.Enum = nil
		if s := strings.TrimSpace(r.enum.Text); s != "" {
			for _, v := range strings.Split(s, ",") {
				p.Enum = append(p.Enum, parseValue(p.Type, strings.TrimSpace(v)))
			}
		}
		p.Default = nil
		if s := strings.TrimSpace(r.Def.Text); s != "" {
			p.Default = parseValue(p.Type, s)
		}
		p.Minimum, p.Maximum = nil, nil
		if p.Type == "integer" || p.Type == "number" {
			p.Minimum, _ = readBound(r.min.Text)
			p.Maximum, _ = readBound(r.max.Text)
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
	if n, _ := fmt.Sscanf(field, "params[%d]%s", &i, &rest); n >= 1 && i >= 0 && i < len(e.Params) {
		name := e.Params[i].Name.Text
		if name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
		return fmt.Sprintf("parameter %s%s: ", name, rest)
	}
	return ""
}

// readBound reads a number parameter's smallest or largest value: nil
// when empty; false when it is no number.
func readBound(text string) (*float64, bool) {
	s := strings.TrimSpace(text)
	if s == "" {
		return nil, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, false
	}
	return &f, true
}

// showBounds shows the smallest and largest values for a number only.
func (r *paramRow) showBounds() {
	if t := ParamTypeChoices.ValueOf(r.typ.Selected); t == "integer" || t == "number" {
		r.boundsBox.Show()
	} else {
		r.boundsBox.Hide()
	}
}
