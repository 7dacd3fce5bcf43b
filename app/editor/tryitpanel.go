package editor

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/tryit"
	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/app/words"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore"
)

// TryItTrier makes a tryit.Trier the editor's ToolTrier. With eng, every
// call first brings the server in line with the catalog as stored (the
// server would notice a save within moments on its own), so "Save and
// run" runs exactly what was just saved.
func TryItTrier(t *tryit.Trier, eng Syncer) ToolTrier { return tryitAdapter{t, eng} }

// Syncer brings the server in line with the stored catalog
// (mcpcore.Engine.Sync).
type Syncer interface {
	Sync(ctx context.Context) error
}

type tryitAdapter struct {
	t   *tryit.Trier
	eng Syncer
}

func (a tryitAdapter) TryTool(ctx context.Context, name string, args map[string]any) (TryResult, error) {
	return a.TryToolAnswering(ctx, name, args, nil)
}

// TryToolAnswering is TryTool, the tool's forms answered by answer.
func (a tryitAdapter) TryToolAnswering(ctx context.Context, name string, args map[string]any, answer func(context.Context, mcpcore.Question) (mcpcore.Answer, error)) (TryResult, error) {
	return a.TryToolFollowing(ctx, name, args, answer, nil)
}

// formTrier is a ToolTrier that can answer the forms a tool asks: Try it
// then shows them in its panel. Without it they are not answered.
type formTrier interface {
	TryToolAnswering(ctx context.Context, name string, args map[string]any, answer func(context.Context, mcpcore.Question) (mcpcore.Answer, error)) (TryResult, error)
}

// tryPanel is the editor's "Try it": it calls the tool through the real
// MCP endpoint with arguments a person fills in — a form made from the
// parameters, or JSON — and shows the result and the raw JSON-RPC
// exchange. Forms the tool asks the AI app show in the panel (Try it is
// the AI app); questions for the desktop pop up as the real dialogs. The
// last arguments of each tool are kept (Fyne's preferences) for the next
// time.
type tryPanel struct {
	e     *ToolEditor
	trier ToolTrier

	// asJSON switches between the form and the JSON of the arguments.
	asJSON  *widget.Check
	fields  []*argField
	formBox *fyne.Container
	// schema is the input schema the form was made from.
	schema  string
	args    *widget.Entry
	argsBox fyne.CanvasObject
	argsErr *widget.Label
	run     *widget.Button
	stop    *widget.Button
	// progress shows how far a tool running in the background got.
	progress *widget.ProgressBar
	// missing names the secrets the tool reads that have no value.
	missing *widget.Label
	// question shows a form the tool asks while it runs; asked is it.
	question *fyne.Container
	asked    *ui.FormDialog
	result   *widget.Label
	request  *widget.Label
	response *widget.Label
	// fullRequest and fullResponse are the raw JSON whole, for Copy.
	fullRequest, fullResponse string
	// cancel ends the call running now; nil when none runs.
	cancel context.CancelFunc
	box    *fyne.Container
	// Calls runs the calls, and counts them until their results show.
	Calls ui.Background
}

// argField is one argument in Try it's form: a field of the kind of its
// parameter (formField), or JSON for a list or an object.
type argField struct {
	*ui.FormField
	name     string
	json     *widget.Entry
	required bool
	// def is the parameter's default, which the field starts with.
	def any
	// jsonErr shows what is wrong with the JSON of a list or an object
	// (a form field shows its own problem).
	jsonErr *widget.Label
	box     fyne.CanvasObject
}

// prefTryArgs prefixes the preference that keeps a tool's last arguments.
const prefTryArgs = "tryItArgs:"

func newTryPanel(e *ToolEditor) *tryPanel {
	p := &tryPanel{e: e}
	p.args = ui.JsonArea(`{"name": "value"}`, 4)
	p.args.OnChanged = func(string) {
		ui.SetFieldError(p.argsErr, nil)
		e.Tmpl.changed()
	}
	p.argsErr = ui.FieldError()
	p.formBox = container.NewVBox()
	p.argsBox = ui.Input(p.args)
	p.argsBox.Hide()
	p.asJSON = widget.NewCheck("Write them as JSON", p.switchJSON)
	fill := widget.NewButtonWithIcon("Fill with samples", theme.ViewRefreshIcon(), func() { p.fill() })
	p.run = widget.NewButtonWithIcon("Run", theme.MediaPlayIcon(), func() { p.Run() })
	p.run.Importance = widget.HighImportance
	p.stop = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), func() {
		if p.cancel != nil {
			p.cancel()
		}
	})
	p.stop.Hide()
	p.progress = widget.NewProgressBar()
	p.progress.Hide()
	p.missing = ui.WrapLabel("")
	p.missing.Importance = widget.WarningImportance
	p.missing.Hide()
	p.question = container.NewVBox()
	p.question.Hide()
	p.result = widget.NewLabel("")
	p.result.Wrapping = fyne.TextWrapWord
	p.result.Selectable = true
	p.request, p.response = rawArea(), rawArea()
	raw := func(title string, l *widget.Label, full *string) fyne.CanvasObject {
		copyBtn := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() {
			fyne.CurrentApp().Clipboard().SetContent(*full)
		})
		scroll := container.NewScroll(l)
		scroll.SetMinSize(fyne.NewSize(0, 180))
		fits := func() bool { return scroll.Content.MinSize().Height <= scroll.Size().Height }
		return container.NewBorder(container.NewBorder(nil, nil, widget.NewLabel(title), copyBtn), nil, nil, nil, ui.PassWheel(scroll, fits))
	}
	intro := ui.Hint("Calls the tool through mcptray's MCP endpoint, as an AI app would. Forms it asks the AI app show here; approvals and questions for this computer appear as real windows.")
	p.box = container.NewVBox(
		intro,
		container.NewBorder(nil, nil, widget.NewLabelWithStyle("Arguments", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), p.asJSON),
		p.formBox, p.argsBox, p.argsErr,
		p.missing,
		container.NewHBox(fill, p.run, p.stop),
		p.progress,
		p.question,
		p.result,
		container.NewGridWithColumns(2, raw("Request", p.request, &p.fullRequest), raw("Response", p.response, &p.fullResponse)),
	)
	t, _ := e.Tool()
	p.build(t.InputSchemaJSON())
	if kept := fyne.CurrentApp().Preferences().String(prefTryArgs + e.Orig.Name); kept != "" && !e.IsNew {
		if args, err := ParseArgs(kept); err == nil {
			p.setValues(args)
		}
	}
	p.args.SetText(p.valuesJSON())
	return p
}

func rawArea() *widget.Label {
	l := widget.NewLabel("")
	l.TextStyle = fyne.TextStyle{Monospace: true}
	l.Selectable = true
	return l
}

// content is the panel's widget tree.
func (p *tryPanel) content() fyne.CanvasObject { return p.box }

// follow makes the form anew when the parameters changed, keeping what
// was typed in the fields that are still there; a field still holding its
// old default (or nothing) takes its new default.
func (p *tryPanel) follow(schema json.RawMessage) {
	if string(schema) == p.schema {
		return
	}
	typed := map[string]any{}
	for _, a := range p.fields {
		if v, set, msg := a.value(); set && msg == "" && (a.def == nil || !ui.SameValue(v, a.def)) {
			typed[a.name] = v
		}
	}
	p.build(schema)
	for _, a := range p.fields {
		if v, ok := typed[a.name]; ok {
			a.set(v)
		}
	}
}

// build makes the form of schema's properties: defaults filled in.
func (p *tryPanel) build(schema json.RawMessage) {
	p.schema = string(schema)
	p.fields = nil
	fields, err := ui.ParseForm(schema)
	var rows []fyne.CanvasObject
	if err != nil {
		rows = append(rows, ui.Hint("The parameters cannot show as a form ("+err.Error()+"): write the arguments as JSON."))
	}
	for _, fl := range fields {
		a := &argField{name: fl.Name, required: fl.Required, def: fl.Def}
		if fl.Typ == "object" || fl.Typ == "array" && len(fl.Options) == 0 {
			a.json = widget.NewEntry()
			a.json.TextStyle = fyne.TextStyle{Monospace: true}
			a.json.SetPlaceHolder(map[string]string{"object": `JSON, e.g. {"key": "value"}`, "array": `JSON, e.g. ["one", "two"]`}[fl.Typ])
			if fl.Def != nil {
				b, _ := json.Marshal(fl.Def)
				a.json.SetText(string(b))
			}
			a.json.OnChanged = func(string) { p.e.Tmpl.changed() }
			a.jsonErr = ui.FieldError()
			caption := widget.NewLabelWithStyle(fl.Label(), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
			rows := []fyne.CanvasObject{caption}
			if fl.Desc != "" {
				rows = append(rows, ui.SmallPrint(fl.Desc))
			}
			a.box = container.NewVBox(append(rows, ui.Input(a.json), a.jsonErr)...)
		} else {
			a.FormField = fl
			a.box = fl.Build(func() { p.e.Tmpl.changed() }, func() { p.Run() }, func() {})
		}
		p.fields = append(p.fields, a)
		rows = append(rows, a.box)
	}
	if len(fields) == 0 && err == nil {
		rows = append(rows, ui.Hint("The tool has no parameters."))
	}
	p.formBox.Objects = rows
	p.formBox.Refresh()
}

// value is the argument's value, whether it is set, and what is wrong
// with it.
func (a *argField) value() (any, bool, string) {
	if a.FormField != nil {
		return a.FormField.Value()
	}
	text := strings.TrimSpace(a.json.Text)
	if text == "" {
		if a.required {
			return nil, false, "Required."
		}
		return nil, false, ""
	}
	v, err := parseJSONValue(text)
	if err != nil {
		return nil, false, err.Error()
	}
	return v, true, ""
}

// parseJSONValue reads one JSON value, numbers as written.
func parseJSONValue(text string) (any, error) {
	if err := ui.JsonSyntax(text); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// set shows v in the field; nil empties it.
func (a *argField) set(v any) {
	switch fl := a.FormField; {
	case fl == nil:
		a.json.SetText("")
		if v != nil {
			b, _ := json.Marshal(v)
			a.json.SetText(string(b))
		}
	case fl.Check != nil:
		b, _ := v.(bool)
		fl.Check.SetChecked(b)
	case fl.Typ == "array":
		vs, _ := v.([]any)
		for i, c := range fl.Group {
			c.SetChecked(slices.ContainsFunc(vs, func(x any) bool { return ui.SameValue(x, fl.Options[i].Value) }))
		}
	case fl.Sel != nil:
		if t, ok := fl.TitleOf(v); ok && v != nil {
			fl.Sel.SetSelected(t)
		} else {
			fl.Sel.ClearSelected()
		}
	default:
		fl.Entry.SetText("")
		if v != nil {
			fl.Entry.SetText(fmt.Sprint(v))
		}
	}
}

// values are the arguments the form holds, and how many fields have a
// problem; show shows each problem at its field.
func (p *tryPanel) values(show bool) (map[string]any, int) {
	out := map[string]any{}
	bad := 0
	for _, a := range p.fields {
		v, set, msg := a.value()
		if show {
			if a.FormField != nil {
				a.Touched = true
				a.Show()
			} else if msg != "" {
				ui.SetFieldError(a.jsonErr, []string{msg})
			} else {
				ui.SetFieldError(a.jsonErr, nil)
			}
		}
		if msg != "" {
			bad++
			continue
		}
		if set {
			out[a.name] = v
		}
	}
	return out, bad
}

// setValues shows args in the form; fields args does not name are
// emptied.
func (p *tryPanel) setValues(args map[string]any) {
	for _, a := range p.fields {
		a.set(args[a.name])
	}
}

// valuesJSON is the form's arguments as indented JSON.
func (p *tryPanel) valuesJSON() string {
	vals, _ := p.values(false)
	if len(vals) == 0 {
		return "{}"
	}
	b, _ := json.MarshalIndent(vals, "", "  ")
	return string(b)
}

// switchJSON shows the arguments as JSON, or back as the form (refused,
// with the reason, while the JSON does not read).
func (p *tryPanel) switchJSON(on bool) {
	if on {
		p.args.SetText(p.valuesJSON())
		p.formBox.Hide()
		p.argsBox.Show()
		return
	}
	args, err := ParseArgs(p.args.Text)
	if err != nil {
		ui.SetFieldError(p.argsErr, []string{err.Error()})
		fn := p.asJSON.OnChanged
		p.asJSON.OnChanged = nil
		p.asJSON.SetChecked(true)
		p.asJSON.OnChanged = fn
		return
	}
	ui.SetFieldError(p.argsErr, nil)
	p.setValues(args)
	p.argsBox.Hide()
	p.formBox.Show()
}

// sampleValues are the arguments as they stand, for the previews; false
// when the JSON does not read.
func (p *tryPanel) sampleValues() (map[string]any, bool) {
	if p.asJSON.Checked {
		args, err := ParseArgs(p.args.Text)
		return args, err == nil
	}
	vals, _ := p.values(false)
	return vals, true
}

// fill fills the arguments with samples from the tool's input schema:
// each property's default or first example or first allowed value, and a
// placeholder of its type for a required one without any. A tool that
// says it may destroy gets only what its author wrote (defaults,
// examples): a value made up here could be the one that destroys the most
// (clean_downloads with days=0 deletes every download), so the person
// types it.
func (p *tryPanel) fill() {
	t, _ := p.e.Tool()
	text := sampleArgs(t.InputSchemaJSON(), destructive(t))
	p.args.SetText(text)
	if args, err := ParseArgs(text); err == nil {
		p.setValues(args)
	}
}

// SampleArgs is an indented JSON object of sample arguments for schema,
// in the order of its properties; "{}" when it has none.
func SampleArgs(schema json.RawMessage) string { return sampleArgs(schema, false) }

// destructive says whether t's hints say it may destroy things.
func destructive(t catalog.Tool) bool {
	return t.Hints != nil && t.Hints.Destructive != nil && *t.Hints.Destructive
}

// sampleArgs is SampleArgs; authorsOnly keeps only the defaults and
// examples the schema gives, no value made up.
func sampleArgs(schema json.RawMessage, authorsOnly bool) string {
	var root struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(schema, &root) != nil {
		return "{}"
	}
	names, props, err := ui.OrderedObject(root.Properties)
	if err != nil || len(names) == 0 {
		return "{}"
	}
	var lines []string
	for _, name := range names {
		var prop struct {
			Type     any               `json:"type"`
			Default  json.RawMessage   `json:"default"`
			Examples []json.RawMessage `json:"examples"`
			Enum     []json.RawMessage `json:"enum"`
		}
		_ = json.Unmarshal(props[name], &prop) // a property that is no object gets no sample
		var v json.RawMessage
		switch {
		case len(prop.Default) > 0:
			v = prop.Default
		case len(prop.Examples) > 0:
			v = prop.Examples[0]
		case authorsOnly:
			continue
		case len(prop.Enum) > 0:
			v = prop.Enum[0]
		case slices.Contains(root.Required, name):
			v = zeroOf(prop.Type)
		default:
			continue
		}
		k, _ := json.Marshal(name)
		lines = append(lines, fmt.Sprintf("  %s: %s", k, compactJSON(string(v))))
	}
	if len(lines) == 0 {
		return "{}"
	}
	return "{\n" + strings.Join(lines, ",\n") + "\n}"
}

// zeroOf is a placeholder value of a JSON Schema type.
func zeroOf(typ any) json.RawMessage {
	switch typ {
	case "integer", "number":
		return json.RawMessage("0")
	case "boolean":
		return json.RawMessage("false")
	case "array":
		return json.RawMessage("[]")
	case "object":
		return json.RawMessage("{}")
	}
	return json.RawMessage(`""`)
}

// setDirty names the Run button after what it will do.
func (p *tryPanel) setDirty(dirty bool) {
	if dirty {
		p.run.SetText("Save and run")
	} else {
		p.run.SetText("Run")
	}
}

// Run checks the arguments, saves the tool when the form has unsaved
// changes (running nothing if Save refuses), and calls it in the
// background; the result is shown when it comes.
func (p *tryPanel) Run() {
	if p.cancel != nil {
		return
	}
	var args map[string]any
	if p.asJSON.Checked {
		var err error
		if args, err = ParseArgs(p.args.Text); err != nil {
			ui.SetFieldError(p.argsErr, []string{err.Error()})
			return
		}
	} else if vals, bad := p.values(true); bad > 0 {
		p.show(TryResult{}, fmt.Errorf("not run: %s in the arguments", words.Count(bad, "field needs fixing", "fields need fixing")))
		return
	} else {
		args = vals
	}
	ui.SetFieldError(p.argsErr, nil)
	dirty := p.e.dirty()
	if dirty && !p.e.Save() {
		p.show(TryResult{}, errors.New("not run: the tool could not be saved (see the problems above)"))
		return
	}
	// The stored flag: the list's toggle changes it while the editor is open.
	if cur, err := p.e.st.Tool(context.Background(), p.e.Orig.Name); err == nil && cur.Disabled {
		p.show(TryResult{}, fmt.Errorf("not run: %q is disabled — enable it first (tick it in the tool list)", p.e.Orig.Name))
		return
	}
	if b, err := json.Marshal(args); err == nil {
		fyne.CurrentApp().Preferences().SetString(prefTryArgs+p.e.Orig.Name, string(b))
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	p.run.Disable()
	p.stop.Show()
	p.result.Importance = widget.MediumImportance
	p.result.SetText(fmt.Sprintf("Running %q…", p.e.Orig.Name))
	p.request.SetText("")
	p.response.SetText("")
	name, trier := p.e.Orig.Name, p.trier
	var (
		res     TryResult
		callErr error
	)
	follow := func(tp TaskProgress) { fyne.Do(func() { p.showProgress(tp) }) }
	p.Calls.Run(func() {
		if ft, ok := trier.(followTrier); ok {
			res, callErr = ft.TryToolFollowing(ctx, name, args, p.ask, follow)
		} else if ft, ok := trier.(formTrier); ok {
			res, callErr = ft.TryToolAnswering(ctx, name, args, p.ask)
		} else {
			res, callErr = trier.TryTool(ctx, name, args)
		}
		if ctx.Err() != nil && callErr != nil {
			callErr = errors.New("cancelled")
		}
	}, func() {
		cancel()
		p.cancel = nil
		p.run.Enable()
		p.stop.Hide()
		p.progress.Hide()
		p.show(res, callErr)
	})
}

// ask shows a form the tool asks in the panel, and waits for the answer:
// Send, Cancel, or the call ending.
func (p *tryPanel) ask(ctx context.Context, q mcpcore.Question) (mcpcore.Answer, error) {
	q.ToolTitle = p.e.Orig.Title
	answered := make(chan mcpcore.Answer, 1)
	var f *ui.FormDialog
	fyne.Do(func() {
		f = ui.NewFormDialog(q, func(a mcpcore.Answer) {
			select {
			case answered <- a:
			default:
			}
			p.closeQuestion(f)
		})
		f.Focus = func(o fyne.Focusable) {
			if c := fyne.CurrentApp().Driver().CanvasForObject(p.box); c != nil {
				c.Focus(o)
			}
		}
		p.asked = f
		p.question.Objects = []fyne.CanvasObject{widget.NewSeparator(), f.Content, f.Buttons, widget.NewSeparator()}
		p.question.Show()
		p.question.Refresh()
		ui.ScrollIntoView(p.e.formScroll(), p.question)
	})
	select {
	case a := <-answered:
		return a, nil
	case <-ctx.Done():
		fyne.Do(func() { p.closeQuestion(f) })
		return mcpcore.Answer{Action: "cancel"}, ctx.Err()
	}
}

// closeQuestion takes the form f away, if it is still the one shown.
func (p *tryPanel) closeQuestion(f *ui.FormDialog) {
	if p.asked != f {
		return
	}
	p.asked = nil
	p.question.Objects = nil
	p.question.Hide()
	p.question.Refresh()
}

// Abandon cancels the call running, if any: its editor is going away.
func (p *tryPanel) Abandon() {
	if p.cancel != nil {
		p.cancel()
	}
}

// show puts a call's outcome on the panel: the error or the result text,
// red when the tool reported an error, and the raw exchange.
func (p *tryPanel) show(res TryResult, err error) {
	// A command's output is drawn in monospace, so that its columns (df,
	// ls -l) line up as in a terminal.
	p.result.TextStyle.Monospace = err == nil && p.e.ActionKind.Selected == KindCommand
	switch {
	case err != nil:
		p.result.Importance = widget.DangerImportance
		p.result.SetText(err.Error())
	case res.IsError:
		p.result.Importance = widget.DangerImportance
		p.result.SetText("The tool reported an error:\n" + res.Text)
	default:
		p.result.Importance = widget.MediumImportance
		p.result.SetText(cmp.Or(res.Text, "(no text content)"))
	}
	p.fullRequest, p.fullResponse = res.Request, res.Response
	p.request.SetText(shortened(res.Request))
	p.response.SetText(shortened(res.Response))
}

// maxShownJSON is how much raw JSON the panel shows: a tool answering with
// a large image must not make a label of megabytes. Copy takes it all.
const maxShownJSON = 64 << 10

// shortened is s cut to maxShownJSON, saying how much is left out.
func shortened(s string) string {
	if len(s) <= maxShownJSON {
		return s
	}
	cut := maxShownJSON
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n… %d more bytes (Copy takes all of it)", len(s)-cut)
}

// ParseArgs reads the arguments text: one JSON object.
func ParseArgs(text string) (map[string]any, error) {
	if strings.TrimSpace(text) == "" {
		return map[string]any{}, nil
	}
	if err := ui.JsonSyntax(text); err != nil {
		return nil, err
	}
	// Numbers stay as written: an id beyond 2^53 must not become a float.
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var args map[string]any
	if err := dec.Decode(&args); err != nil || args == nil {
		return nil, errors.New(`the arguments must be a JSON object, e.g. {"name": "value"}`)
	}
	return args, nil
}

// ToolTrier runs a catalog tool through the real MCP endpoint, as an AI
// client would, for the tool editor's Try it.
type ToolTrier interface {
	TryTool(ctx context.Context, name string, args map[string]any) (TryResult, error)
}

// TryResult is what Try it shows: the outcome as a person reads it and the
// raw JSON-RPC exchange.
type TryResult struct {
	// Text is the result's content, IsError whether the tool reported an
	// error.
	Text    string
	IsError bool
	// Request and Response are the JSON-RPC messages sent and received,
	// indented.
	Request, Response string
}
