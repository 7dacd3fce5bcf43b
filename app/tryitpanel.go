package app

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
	"github.com/mcptray/mcptray/mcpcore"
)

// TryItTrier makes a tryit.Trier the editor's ToolTrier. With eng, every
// call first brings the server in line with the catalog as stored (the
// server would notice a save within moments on its own), so "Save and
// run" runs exactly what was just saved.
func TryItTrier(t *tryit.Trier, eng *mcpcore.Engine) ToolTrier { return tryitAdapter{t, eng} }

type tryitAdapter struct {
	t   *tryit.Trier
	eng *mcpcore.Engine
}

func (a tryitAdapter) TryTool(ctx context.Context, name string, args map[string]any) (TryResult, error) {
	if a.eng != nil {
		if err := a.eng.Sync(ctx); err != nil {
			return TryResult{}, fmt.Errorf("bringing the server up to date: %w", err)
		}
	}
	r, err := a.t.TryTool(ctx, name, args)
	return TryResult(r), err
}

// tryPanel is the editor's "Try it": it calls the tool through the real
// MCP endpoint with arguments a person writes, and shows the result and
// the raw JSON-RPC exchange. Questions the tool asks (approvals, forms)
// pop up as the real desktop dialogs.
type tryPanel struct {
	e     *ToolEditor
	trier ToolTrier

	args              *widget.Entry
	argsErr           *widget.Label
	run, stop         *widget.Button
	result            *widget.Label
	request, response *widget.Label
	// fullRequest and fullResponse are the raw JSON whole, for Copy.
	fullRequest, fullResponse string
	// cancel ends the call running now; nil when none runs.
	cancel context.CancelFunc
	box    *fyne.Container
	// calls runs the calls, and counts them until their results show.
	calls background
}

func newTryPanel(e *ToolEditor) *tryPanel {
	p := &tryPanel{e: e}
	p.args = jsonArea(`{"name": "value"}`, 4)
	p.args.OnChanged = func(string) { setFieldError(p.argsErr, nil) }
	p.argsErr = fieldError()
	fill := widget.NewButtonWithIcon("Fill from parameters", theme.ViewRefreshIcon(), func() { p.fill() })
	p.run = widget.NewButtonWithIcon("Run", theme.MediaPlayIcon(), func() { p.Run() })
	p.run.Importance = widget.HighImportance
	p.stop = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), func() {
		if p.cancel != nil {
			p.cancel()
		}
	})
	p.stop.Hide()
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
		return container.NewBorder(container.NewBorder(nil, nil, widget.NewLabel(title), copyBtn), nil, nil, nil, passWheel(scroll, fits))
	}
	intro := hint("Calls the tool through mcptray's MCP endpoint, as an AI app would. Approvals and forms it asks for appear as real windows.")
	p.box = container.NewVBox(
		intro,
		widget.NewLabel("Arguments (a JSON object)"), input(p.args), p.argsErr,
		container.NewHBox(fill, p.run, p.stop),
		p.result,
		container.NewGridWithColumns(2, raw("Request", p.request, &p.fullRequest), raw("Response", p.response, &p.fullResponse)),
	)
	p.fill()
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

// fill writes sample arguments from the tool's input schema: each
// property's default or first example or first allowed value, and a
// placeholder of its type for a required one without any.
func (p *tryPanel) fill() {
	t, _ := p.e.Tool()
	p.args.SetText(sampleArgs(t.InputSchemaJSON()))
}

// sampleArgs is an indented JSON object of sample arguments for schema,
// in the order of its properties; "{}" when it has none.
func sampleArgs(schema json.RawMessage) string {
	var root struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if json.Unmarshal(schema, &root) != nil {
		return "{}"
	}
	names, props, err := orderedObject(root.Properties)
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
	args, err := parseArgs(p.args.Text)
	if err != nil {
		setFieldError(p.argsErr, []string{err.Error()})
		return
	}
	setFieldError(p.argsErr, nil)
	dirty := p.e.dirty()
	if dirty && !p.e.Save() {
		p.show(TryResult{}, errors.New("not run: the tool could not be saved (see the problems above)"))
		return
	}
	// The stored flag: the list's toggle changes it while the editor is open.
	if cur, err := p.e.st.Tool(context.Background(), p.e.orig.Name); err == nil && cur.Disabled {
		p.show(TryResult{}, fmt.Errorf("not run: %q is disabled — enable it first (tick it in the tool list)", p.e.orig.Name))
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	p.run.Disable()
	p.stop.Show()
	p.result.Importance = widget.MediumImportance
	p.result.SetText(fmt.Sprintf("Running %q…", p.e.orig.Name))
	p.request.SetText("")
	p.response.SetText("")
	name, trier := p.e.orig.Name, p.trier
	var (
		res     TryResult
		callErr error
	)
	p.calls.run(func() {
		res, callErr = trier.TryTool(ctx, name, args)
		if ctx.Err() != nil && callErr != nil {
			callErr = errors.New("cancelled")
		}
	}, func() {
		cancel()
		p.cancel = nil
		p.run.Enable()
		p.stop.Hide()
		p.show(res, callErr)
	})
}

// abandon cancels the call running, if any: its editor is going away.
func (p *tryPanel) abandon() {
	if p.cancel != nil {
		p.cancel()
	}
}

// show puts a call's outcome on the panel: the error or the result text,
// red when the tool reported an error, and the raw exchange.
func (p *tryPanel) show(res TryResult, err error) {
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

// parseArgs reads the arguments text: one JSON object.
func parseArgs(text string) (map[string]any, error) {
	if strings.TrimSpace(text) == "" {
		return map[string]any{}, nil
	}
	if err := jsonSyntax(text); err != nil {
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
