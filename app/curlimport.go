package app

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/editor"
	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/importer"
	"github.com/mcptray/mcptray/mcpcore/actions"
)

// curlImport is File ▸ New tool from curl…: a curl command pasted and read
// as it is typed; each credential it holds listed with the secret it
// becomes, each other value with a check that makes it a parameter (one
// click), and the request the tool will send; Create stores the secrets
// and the tool, all or nothing, and opens the tool in the editor. The
// rules are the importer package's.
type curlImport struct {
	m       *Manager
	d       *dialog.CustomDialog
	command *widget.Entry
	name    *widget.Entry
	// summary says what the command calls, or why it cannot be a tool.
	summary *widget.Label
	values  *fyne.Container
	notes   *widget.Label
	preview *widget.Label
	create  *widget.Button
	ct      *importer.CurlTool
	// The person's choices, by value ID, kept while the command is edited.
	params  map[string]string
	secrets map[string]string
}

// curlPlaceholder shows what to paste.
const curlPlaceholder = `curl -H "Authorization: Bearer …" "https://api.example.com/v1/weather?city=Paris"`

// showCurlImport opens the dialog.
func (m *Manager) showCurlImport() *curlImport {
	c := &curlImport{m: m, params: map[string]string{}, secrets: map[string]string{}}
	c.command = widget.NewMultiLineEntry()
	c.command.SetPlaceHolder(curlPlaceholder)
	c.command.Wrapping = fyne.TextWrapBreak
	c.command.SetMinRowsVisible(4)
	c.name = widget.NewEntry()
	c.name.SetText("new_tool")
	c.summary = ui.WrapLabel("Paste a curl command, as an API's documentation or a browser's “Copy as cURL” gives it.")
	c.values = container.NewVBox()
	c.notes = ui.Hint("")
	c.notes.Hide()
	c.preview = ui.WrapLabel("")
	c.preview.TextStyle = fyne.TextStyle{Monospace: true}
	c.create = widget.NewButton("Create tool", c.createTool)
	c.create.Importance = widget.HighImportance
	c.create.Disable()
	c.command.OnChanged = func(string) { c.read() }
	c.name.OnChanged = func(string) { c.read() }

	form := container.NewVBox(
		ui.Labelled("curl command", ui.MultiLine(c.command)),
		ui.Hint("It is read here, never run. Credentials in it (tokens, API keys, passwords) become secrets: the tool holds only their names."),
		ui.Labelled("Tool name", c.name),
		c.summary,
		c.values,
		c.notes,
		widget.NewLabelWithStyle("The request the tool sends", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		c.preview,
	)
	cancel := widget.NewButton("Cancel", func() { c.d.Hide() })
	c.d = dialog.NewCustomWithoutButtons("New tool from curl", container.NewVScroll(form), m.win)
	c.d.SetButtons([]fyne.CanvasObject{cancel, c.create})
	c.d.Resize(dialogSize(m.win, fyne.NewSize(720, 560)))
	c.d.Show()
	m.win.Canvas().Focus(c.command)
	return c
}

// dialogSize is want, or less on a window too small for it.
func dialogSize(win fyne.Window, want fyne.Size) fyne.Size {
	have := win.Canvas().Size()
	if have.Width > 0 && have.Width-40 < want.Width {
		want.Width = have.Width - 40
	}
	if have.Height > 0 && have.Height-40 < want.Height {
		want.Height = have.Height - 40
	}
	return want
}

// read reads the command again, keeping the person's choices.
func (c *curlImport) read() {
	c.values.RemoveAll()
	c.ct = nil
	c.create.Disable()
	c.notes.Hide()
	c.preview.SetText("")
	if strings.TrimSpace(c.command.Text) == "" {
		c.summary.SetText("Paste a curl command, as an API's documentation or a browser's “Copy as cURL” gives it.")
		return
	}
	ct, err := importer.ParseCurl(c.command.Text, strings.TrimSpace(c.name.Text))
	if err != nil {
		c.summary.SetText("This command cannot become a tool: " + err.Error())
		return
	}
	c.ct = ct
	c.summary.SetText(fmt.Sprintf("It calls %s %s.", ct.Method, ct.URL))
	for _, v := range ct.Values {
		if v.Secret {
			if name, ok := c.secrets[v.ID]; ok {
				v.SecretName = name
			}
			c.values.Add(c.secretRow(v))
			continue
		}
		if name, ok := c.params[v.ID]; ok {
			v.Param = name
		}
		c.values.Add(c.valueRow(v))
	}
	if len(ct.Values) > 0 {
		c.values.Objects = append([]fyne.CanvasObject{widget.NewLabelWithStyle("Its values", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})}, c.values.Objects...)
	}
	if len(ct.Notes) > 0 {
		c.notes.SetText(strings.Join(ct.Notes, "\n"))
		c.notes.Show()
	}
	c.update()
}

// secretRow shows a credential: where it is, the start of its value, and
// the name of the secret it becomes.
func (c *curlImport) secretRow(v *importer.CurlValue) fyne.CanvasObject {
	name := widget.NewEntry()
	name.SetText(v.SecretName)
	name.OnChanged = func(s string) {
		v.SecretName = strings.TrimSpace(s)
		c.secrets[v.ID] = v.SecretName
		c.update()
	}
	return container.NewVBox(
		ui.WrapLabel(fmt.Sprintf("The %s (%s) is a credential: it becomes the secret", v.Where, masked(v.Value))),
		ui.Input(name))
}

// masked shows the first characters of a secret, enough to recognise it.
func masked(s string) string {
	r := []rune(s)
	if len(r) <= 4 {
		return "••••"
	}
	return string(r[:3]) + "••••"
}

// valueRow shows a value that can become a parameter: one click, and its
// name.
func (c *curlImport) valueRow(v *importer.CurlValue) fyne.CanvasObject {
	name := widget.NewEntry()
	name.SetText(c.ct.ProposedParam(v))
	if v.Param != "" {
		name.SetText(v.Param)
	}
	name.OnChanged = func(s string) {
		v.Param = strings.TrimSpace(s)
		c.params[v.ID] = v.Param
		c.update()
	}
	nameRow := ui.Labelled("Parameter name", name)
	check := widget.NewCheck(fmt.Sprintf("Make the %s (%s) a parameter", v.Where, shorten(v.Value, 40)), func(on bool) {
		if on {
			v.Param = strings.TrimSpace(name.Text)
			c.params[v.ID] = v.Param
			nameRow.Show()
		} else {
			v.Param = ""
			delete(c.params, v.ID)
			nameRow.Hide()
		}
		c.update()
	})
	check.SetChecked(v.Param != "")
	if v.Param == "" {
		nameRow.Hide()
	}
	return container.NewVBox(check, nameRow)
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// update shows the request the tool sends with the choices made, or what
// is wrong with them.
func (c *curlImport) update() {
	if c.ct == nil {
		return
	}
	c.ct.Name = strings.TrimSpace(c.name.Text)
	tool, _, err := c.ct.Tool()
	if err != nil {
		c.preview.SetText("Not yet: " + problemText(err))
		c.create.Disable()
		return
	}
	c.preview.SetText(requestPreview(tool, asIs))
	c.create.Enable()
}

// problemText is an error as lines for people: each problem of a
// validation error on its own line.
func problemText(err error) string {
	if ve, ok := err.(*catalog.ValidationError); ok {
		var lines []string
		for _, p := range ve.Problems {
			lines = append(lines, strings.TrimPrefix(p.String(), p.Entry+": "))
		}
		return strings.Join(lines, "\n")
	}
	return err.Error()
}

// requestPreview shows the request an http tool sends, each template
// through render: as it is (asIs), or filled in as an example call would
// (exampleCall). A secret appears by its name only. A query parameter or
// header rendered empty is left out, as a call leaves it out.
func requestPreview(t catalog.Tool, render func(catalog.Template) string) string {
	h := t.Action.HTTP
	if h == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", cmp.Or(h.Method, "GET"), render(h.URL))
	for _, k := range slices.Sorted(maps.Keys(h.Query)) {
		if v := render(h.Query[k]); v != "" {
			fmt.Fprintf(&b, "  query %s = %s\n", k, v)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(h.Headers)) {
		if v := render(h.Headers[k]); v != "" {
			fmt.Fprintf(&b, "  %s: %s\n", k, v)
		}
	}
	if body := render(h.Body); body != "" {
		// A body template leaves the blank lines and commas of the fields
		// it leaves out: JSON reads better laid out again.
		var out bytes.Buffer
		if json.Indent(&out, []byte(body), "", "  ") == nil {
			body = out.String()
		}
		fmt.Fprintf(&b, "\n%s\n", body)
	}
	if len(t.Params) > 0 {
		var ps []string
		for _, p := range t.Params {
			ps = append(ps, p.Name+" ("+p.Type+")")
		}
		fmt.Fprintf(&b, "\nParameters: %s", strings.Join(ps, ", "))
	} else if len(t.InputSchema) > 0 {
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		_ = json.Unmarshal(t.InputSchema, &s)
		fmt.Fprintf(&b, "\nParameters: %s", strings.Join(slices.Sorted(maps.Keys(s.Properties)), ", "))
	}
	return strings.TrimRight(b.String(), "\n")
}

// asIs is a template's own text.
func asIs(t catalog.Template) string { return string(t) }

// exampleCall renders templates with the sample arguments Try it starts
// with for t (defaults, examples, a placeholder for each required
// parameter), secrets as [secret:NAME]: an OpenAPI tool's body template is
// long and all code, its example is what a person can read. A template
// that does not render shows as it is.
func exampleCall(t catalog.Tool) func(catalog.Template) string {
	args, _ := editor.ParseArgs(editor.SampleArgs(t.InputSchemaJSON()))
	sample := actions.Sample{Args: args}
	return func(x catalog.Template) string {
		out, err := actions.Preview(x, sample)
		if err != nil {
			return string(x)
		}
		return out
	}
}

// createTool stores the secrets and the tool, then opens it.
func (c *curlImport) createTool() {
	if c.ct == nil {
		return
	}
	tool, secrets, err := c.ct.Tool()
	if err != nil {
		c.preview.SetText("Not yet: " + problemText(err))
		return
	}
	var sec importer.SecretStore
	if c.m.cfg.Secrets != nil {
		sec = c.m.cfg.Secrets
	}
	c.create.Disable()
	c.m.background.Run(func() {
		err = importer.CreateTool(context.Background(), c.m.cfg.Store, sec, tool, secrets)
	}, func() {
		if err != nil {
			c.preview.SetText("Not created: " + problemText(err))
			c.create.Enable()
			return
		}
		c.d.Hide()
		c.m.reloadEntries()
		c.m.tools.leave(func() { c.m.openEntry(catalogEntry{kind: entryTool, key: tool.Name}) })
	})
}
