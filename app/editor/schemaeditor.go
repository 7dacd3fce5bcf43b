package editor

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore"
)

// schemaCheckDelay is how long typing must pause before a schema is
// checked against the meta-schema (compiling it takes a moment).
const schemaCheckDelay = 300 * time.Millisecond

// schemaEditor is the "Advanced: raw schemas" section: the input schema,
// generated from the parameters (read-only) or hand-written, and the
// optional output schema, both checked as they are typed.
type schemaEditor struct {
	// raw says the input schema is hand-written; the parameters table is
	// then hidden.
	raw                 *widget.Check
	input, output       *widget.Entry
	inputErr, outputErr *widget.Label
	// note says what the raw switch does, or why it could not.
	note *widget.Label

	// params reads the parameters table; toParams replaces its rows; onRaw
	// shows or hides it.
	params func() []catalog.Param
	// order is the parameters' names when the schema became hand-written:
	// back to the table, they keep that order (the schema's properties
	// come alphabetically).
	order    []string
	toParams func([]catalog.Param)
	onRaw    func(raw bool)
	changed  func()

	mu  sync.Mutex
	gen uint64 // bumped on each edit: an older check's result is dropped
	// checks counts the checks under way, results shown included. Tests
	// wait for it: the test driver runs fyne.Do inline, off the test's
	// goroutine.
	checks sync.WaitGroup
}

func newSchemaEditor(t catalog.Tool, inputErr, outputErr *widget.Label, params func() []catalog.Param,
	toParams func([]catalog.Param), onRaw func(bool), changed func()) *schemaEditor {
	s := &schemaEditor{inputErr: inputErr, outputErr: outputErr, params: params, toParams: toParams, onRaw: onRaw, changed: changed}
	s.input = ui.JsonArea("", 8)
	s.output = ui.JsonArea(`optional, e.g. {"type": "object", "properties": {"count": {"type": "integer"}}}`, 6)
	if len(t.OutputSchema) > 0 {
		s.output.SetText(indentJSON(t.OutputSchema))
	}
	s.note = ui.Hint("")
	s.raw = widget.NewCheck("Write the input schema by hand", s.setRaw)
	if len(t.InputSchema) > 0 {
		s.input.SetText(indentJSON(t.InputSchema))
		s.raw.Checked = true
	} else {
		s.showGenerated()
	}
	s.input.OnChanged = func(string) {
		if s.raw.Checked {
			s.check()
			s.changed()
		}
	}
	s.output.OnChanged = func(string) {
		s.check()
		s.changed()
	}
	return s
}

// content is the section's widget tree.
func (s *schemaEditor) content() fyne.CanvasObject {
	return container.NewVBox(
		widget.NewLabelWithStyle("Input schema", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		ui.Hint("The JSON Schema of the arguments, which the AI app sees. Written by hand, it replaces the parameters and is served exactly as written."),
		s.raw, s.note, ui.Input(s.input), s.inputErr,
		widget.NewLabelWithStyle("Output schema", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		ui.Hint("When set, results carry structured content (structuredContent) that must match it."),
		ui.Input(s.output), s.outputErr,
	)
}

// showGenerated shows the schema the parameters generate, read-only.
func (s *schemaEditor) showGenerated() {
	if s.raw.Checked {
		return
	}
	s.input.SetText(indentJSON(catalog.Tool{Params: s.params()}.InputSchemaJSON()))
	s.input.Disable()
	s.note.SetText("Made from the parameters.")
}

// setRaw switches between parameters and a hand-written schema. Back to
// parameters is refused when the schema says more than parameters can.
func (s *schemaEditor) setRaw(raw bool) {
	if raw {
		s.order = s.order[:0]
		for _, p := range s.params() {
			s.order = append(s.order, p.Name)
		}
		s.input.Enable()
		s.note.SetText("Written by hand: untick to go back to the parameters.")
		s.onRaw(true)
		s.changed()
		return
	}
	ps, err := paramsFromSchema(s.input.Text)
	if err != nil {
		// Stay hand-written; without OnChanged, so this is no new switch.
		fn := s.raw.OnChanged
		s.raw.OnChanged = nil
		s.raw.SetChecked(true)
		s.raw.OnChanged = fn
		s.note.SetText("Can't go back to parameters: " + err.Error())
		return
	}
	// Stable: parameters the table never had keep the schema's order, after.
	slices.SortStableFunc(ps, func(a, b catalog.Param) int {
		rank := func(p catalog.Param) int {
			if i := slices.Index(s.order, p.Name); i >= 0 {
				return i
			}
			return len(s.order)
		}
		return rank(a) - rank(b)
	})
	s.toParams(ps)
	s.onRaw(false)
	ui.SetFieldError(s.inputErr, nil)
	s.showGenerated()
	s.changed()
}

// schemas reads the input schema (nil when parameters generate it) and
// the output schema, with a problem for each that is not JSON.
func (s *schemaEditor) schemas(entry string) (input, output json.RawMessage, ps []catalog.Problem) {
	if s.raw.Checked {
		if err := ui.JsonSyntax(s.input.Text); err != nil {
			ps = append(ps, catalog.Problem{Entry: entry, Field: "inputSchema", Message: err.Error()})
		} else {
			input = compactJSON(s.input.Text)
		}
	}
	if strings.TrimSpace(s.output.Text) != "" {
		if err := ui.JsonSyntax(s.output.Text); err != nil {
			ps = append(ps, catalog.Problem{Entry: entry, Field: "outputSchema", Message: err.Error()})
		} else {
			output = compactJSON(s.output.Text)
		}
	}
	return input, output, ps
}

// check validates both schemas once typing pauses, off the GUI thread,
// and shows the problems under their areas.
func (s *schemaEditor) check() {
	s.mu.Lock()
	s.gen++
	gen := s.gen
	s.mu.Unlock()
	input, output, local := s.schemas("")
	s.checks.Add(1)
	time.AfterFunc(schemaCheckDelay, func() {
		defer s.checks.Done()
		s.mu.Lock()
		stale := gen != s.gen
		s.mu.Unlock()
		if stale {
			return
		}
		ps := append(local, schemaProblems(input, output)...)
		fyne.Do(func() {
			s.mu.Lock()
			stale := gen != s.gen
			s.mu.Unlock()
			if !stale {
				s.showProblems(ps)
			}
		})
	})
}

// showProblems shows the inputSchema and outputSchema problems of ps.
func (s *schemaEditor) showProblems(ps []catalog.Problem) {
	var in, out []string
	for _, p := range ps {
		switch p.Field {
		case "inputSchema":
			in = append(in, p.Message)
		case "outputSchema":
			out = append(out, p.Message)
		}
	}
	ui.SetFieldError(s.inputErr, in)
	ui.SetFieldError(s.outputErr, out)
}

// schemaProblems are what mcpcore.ValidateTool says of these schemas
// (meta-schema and MCP rules), on a tool that is otherwise fine.
func schemaProblems(input, output json.RawMessage) []catalog.Problem {
	probe := catalog.Tool{Name: "schema_check", Description: "schema check", InputSchema: input, OutputSchema: output,
		Action: catalog.Action{Respond: &catalog.Respond{Structured: json.RawMessage(`{}`)}}}
	var out []catalog.Problem
	for _, p := range mcpcore.ValidateTool(probe) {
		if p.Field == "inputSchema" || p.Field == "outputSchema" {
			out = append(out, p)
		}
	}
	return out
}

// objectProperties reads an object schema's "required" (a list of what,
// e.g. "property names"), each naming a property, and its "properties",
// in the order written.
func objectProperties(root map[string]json.RawMessage, what string) (required, names []string, props map[string]json.RawMessage, err error) {
	if r, ok := root["required"]; ok {
		if err := json.Unmarshal(r, &required); err != nil {
			return nil, nil, nil, fmt.Errorf(`"required" must be a list of %s`, what)
		}
	}
	names, props, err = ui.OrderedObject(root["properties"])
	if err != nil {
		return nil, nil, nil, fmt.Errorf(`"properties": %w`, err)
	}
	// Written back, a required name that is no property would be lost.
	for _, r := range required {
		if !slices.Contains(names, r) {
			return nil, nil, nil, fmt.Errorf("%q is required but not a property", r)
		}
	}
	return required, names, props, nil
}

// asParams is t with a hand-written input schema that parameters say
// exactly turned into those parameters, so that the form shows them: the
// starter catalog's clean_downloads (a whole number of days from 1 to
// 3650) read "Written by hand as a JSON schema", out of reach of anyone
// who does not write JSON. A schema parameters cannot say stays as
// written.
func asParams(t catalog.Tool) catalog.Tool {
	if len(t.InputSchema) == 0 {
		return t
	}
	ps, err := paramsFromSchema(string(t.InputSchema))
	if err != nil || !sameJSON(catalog.Tool{Params: ps}.InputSchemaJSON(), t.InputSchema) {
		return t
	}
	t.Params, t.InputSchema = ps, nil
	return t
}

// paramsFromSchema turns a hand-written input schema back into parameters,
// or says what in it parameters cannot express.
func paramsFromSchema(text string) ([]catalog.Param, error) {
	if err := ui.JsonSyntax(text); err != nil {
		return nil, err
	}
	var root map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &root); err != nil {
		return nil, errors.New("the schema is not a JSON object")
	}
	for k := range root {
		if !slices.Contains([]string{"type", "properties", "required", "additionalProperties", "$schema"}, k) {
			return nil, fmt.Errorf("the schema uses %q, which parameters cannot express", k)
		}
	}
	if string(root["type"]) != `"object"` {
		return nil, errors.New(`the schema's root must be "type": "object"`)
	}
	if string(root["additionalProperties"]) != "false" {
		return nil, errors.New(`parameters always refuse unknown arguments; add "additionalProperties": false to go back`)
	}
	required, names, props, err := objectProperties(root, "property names")
	if err != nil {
		return nil, err
	}
	var out []catalog.Param
	for _, name := range names {
		p, err := paramFromProperty(name, props[name])
		if err != nil {
			return nil, fmt.Errorf("property %q: %w", name, err)
		}
		p.Required = slices.Contains(required, name)
		out = append(out, p)
	}
	return out, nil
}

func paramFromProperty(name string, raw json.RawMessage) (catalog.Param, error) {
	var prop map[string]json.RawMessage
	if err := json.Unmarshal(raw, &prop); err != nil {
		return catalog.Param{}, errors.New("not a JSON object")
	}
	p := catalog.Param{Name: name}
	for k, v := range prop {
		var err error
		switch k {
		case "type":
			err = json.Unmarshal(v, &p.Type)
			if err == nil && !slices.Contains(catalog.ParamTypes, p.Type) {
				err = fmt.Errorf("type %q is not one of %s", p.Type, strings.Join(catalog.ParamTypes, ", "))
			}
		case "description":
			err = json.Unmarshal(v, &p.Description)
		case "enum":
			err = json.Unmarshal(v, &p.Enum)
		case "default":
			err = json.Unmarshal(v, &p.Default)
		case "x-mcp-header":
			err = json.Unmarshal(v, &p.Header)
		case "minimum":
			err = json.Unmarshal(v, &p.Minimum)
		case "maximum":
			err = json.Unmarshal(v, &p.Maximum)
		case "pattern":
			err = json.Unmarshal(v, &p.Pattern)
		case "items":
			var items map[string]string
			if json.Unmarshal(v, &items) != nil || len(items) != 1 || items["type"] == "" {
				err = errors.New(`"items" can only be {"type": …} of a simple type`)
			}
			p.Items = items["type"]
		default:
			err = fmt.Errorf("uses %q, which parameters cannot express", k)
		}
		if err != nil {
			return p, err
		}
	}
	if p.Type == "" {
		return p, errors.New(`needs a "type"`)
	}
	if p.Items == "string" {
		p.Items = "" // the default item type
	}
	return p, nil
}
