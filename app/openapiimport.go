package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	fynestorage "fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/app/words"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/importer"
)

// chooseOpenAPI is File ▸ Import from OpenAPI…: it asks for a spec, a
// file or a web address, reads it off the GUI thread, then opens the
// chooser of its operations.
func (m *Manager) chooseOpenAPI() {
	src := widget.NewEntry()
	src.SetPlaceHolder("https://api.example.com/openapi.json, or a file")
	status := ui.Hint("An OpenAPI 3.0 or 3.1 document, or a Swagger 2.0 one, in JSON or YAML.")
	var d *dialog.CustomDialog
	var read *widget.Button
	read = widget.NewButton("Read", func() {
		path := strings.TrimSpace(src.Text)
		if path == "" {
			status.SetText("Give a file or a web address first.")
			return
		}
		read.Disable()
		status.SetText("Reading " + path + "…")
		var spec *importer.Spec
		var err error
		m.background.Run(func() { spec, err = importer.ReadOpenAPI(context.Background(), path) }, func() {
			read.Enable()
			if err != nil {
				status.SetText("It cannot be read: " + err.Error())
				return
			}
			d.Hide()
			m.showOpenAPIChooser(spec, path)
		})
	})
	read.Importance = widget.HighImportance
	src.OnSubmitted = func(string) { read.OnTapped() }
	browse := widget.NewButton("Choose file…", func() {
		fd := dialog.NewFileOpen(func(rc fyne.URIReadCloser, err error) {
			if err != nil || rc == nil {
				return
			}
			src.SetText(rc.URI().Path())
			rc.Close()
		}, m.win)
		fd.SetFilter(fynestorage.NewExtensionFileFilter([]string{".json", ".yaml", ".yml"}))
		fd.Show()
	})
	content := container.NewVBox(ui.Labelled("OpenAPI spec", container.NewBorder(nil, nil, nil, browse, src)), status)
	d = dialog.NewCustomWithoutButtons("Import from OpenAPI", content, m.win)
	d.SetButtons([]fyne.CanvasObject{widget.NewButton("Cancel", func() { d.Hide() }), read})
	d.Resize(dialogSize(m.win, fyne.NewSize(620, 220)))
	d.Show()
	m.win.Canvas().Focus(src)
}

// openAPIChooser lists a spec's operations (method, path, summary) to
// pick from; the one selected shows its tool's name and description, to
// edit, and what the tool will do. Import adds the picked tools all or
// nothing.
type openAPIChooser struct {
	m    *Manager
	d    *dialog.CustomDialog
	spec *importer.Spec
	src  string
	conv *importer.Conversion
	base *widget.Entry
	pfx  *widget.Entry
	// picked and edits are kept by operation ID across conversions (a
	// base URL or prefix changed).
	picked map[string]bool
	edits  map[string]*opEdit
	list   *fyne.Container
	// shown is the operation whose details show.
	shown       *importer.Operation
	name        *widget.Entry
	description *widget.Entry
	preview     *widget.Label
	notes       *widget.Label
	status      *widget.Label
	importBtn   *widget.Button
	// filling is set while the details are filled in, so that doing so
	// does not count as the person's edit.
	filling bool
	// stored are the names of the tools the catalog has: an operation
	// whose tool has one is a duplicate, marked in its row with a choice
	// (dups): replace the stored tool, or skip the operation.
	stored  map[string]bool
	dups    map[string]*dupChoice
	replace map[string]bool
}

// dupChoice is a row's mark of a duplicate: what it says, and the choice.
type dupChoice struct {
	box    *fyne.Container
	note   *widget.Label
	choice *widget.RadioGroup
}

// The choices for a duplicate. Skip is the default: nothing of the
// person's is replaced unasked.
const (
	dupSkip    = "Skip it: keep mine"
	dupReplace = "Replace mine with it"
)

// opEdit is the person's name and description of an operation's tool.
type opEdit struct{ name, description string }

// showOpenAPIChooser opens the chooser on a spec read from src.
func (m *Manager) showOpenAPIChooser(spec *importer.Spec, src string) *openAPIChooser {
	c := &openAPIChooser{m: m, spec: spec, src: src, picked: map[string]bool{}, edits: map[string]*opEdit{},
		stored: m.storedToolNames(), dups: map[string]*dupChoice{}, replace: map[string]bool{}}
	c.conv = spec.Convert(importer.OpenAPIOptions{})
	for _, o := range c.conv.Operations {
		c.picked[o.ID] = o.Problem == ""
	}
	c.base = widget.NewEntry()
	c.base.SetText(c.conv.BaseURL)
	c.base.SetPlaceHolder("https://api.example.com/v1")
	c.base.OnChanged = func(string) { c.reconvert() }
	c.pfx = widget.NewEntry()
	c.pfx.SetPlaceHolder("e.g. github_")
	c.pfx.OnChanged = func(string) { c.reconvert() }
	c.list = container.NewVBox()
	c.name = widget.NewEntry()
	c.name.OnChanged = func(s string) { c.edited() }
	c.description = widget.NewMultiLineEntry()
	c.description.Wrapping = fyne.TextWrapWord
	c.description.SetMinRowsVisible(3)
	c.description.OnChanged = func(string) { c.edited() }
	c.preview = ui.WrapLabel("")
	c.preview.TextStyle = fyne.TextStyle{Monospace: true}
	c.notes = ui.Hint("")
	c.status = ui.WrapLabel("")
	c.status.Importance = widget.DangerImportance // it says only what stops Import
	c.importBtn = widget.NewButton("Import", c.doImport)
	c.importBtn.Importance = widget.HighImportance

	title := spec.Title
	if spec.Version != "" {
		title += " " + spec.Version
	}
	head := container.NewVBox(
		ui.WrapLabel(fmt.Sprintf("%s — %s, %s.", title, spec.Format, words.Count(len(c.conv.Operations), "operation", "operations"))),
		// Label beside entry: the list below gets the height.
		container.New(layout.NewFormLayout(), widget.NewLabel("Base URL"), c.base, widget.NewLabel("Name prefix"), c.pfx),
	)
	details := container.NewVBox(
		ui.Labelled("Tool name", c.name),
		ui.Labelled("Description", ui.MultiLine(c.description)),
		widget.NewLabelWithStyle("What the tool does", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		c.preview,
		c.notes,
	)
	// The list scrolls both ways: rows as wide as their summaries would
	// otherwise push the split off its offset and squeeze the details.
	split := container.NewHSplit(container.NewScroll(c.list), container.NewVScroll(details))
	split.SetOffset(0.45)
	all := widget.NewButton("Select all", func() { c.pickAll(true) })
	none := widget.NewButton("Select none", func() { c.pickAll(false) })
	content := container.NewBorder(head, c.status, nil, nil, split)
	c.d = dialog.NewCustomWithoutButtons("Import from OpenAPI", content, m.win)
	c.d.SetButtons([]fyne.CanvasObject{widget.NewButton("Cancel", func() { c.d.Hide() }), all, none, c.importBtn})
	c.d.Resize(dialogSize(m.win, fyne.NewSize(960, 660)))
	c.fill()
	c.d.Show()
	return c
}

// reconvert makes the tools again with the base URL and prefix given.
func (c *openAPIChooser) reconvert() {
	could := map[string]bool{}
	for _, o := range c.conv.Operations {
		could[o.ID] = o.Problem == ""
	}
	c.conv = c.spec.Convert(importer.OpenAPIOptions{BaseURL: strings.TrimSpace(c.base.Text), Prefix: strings.TrimSpace(c.pfx.Text)})
	// An operation that can become a tool only now (a spec naming no
	// server it can call, and a Base URL typed) is picked, as those that
	// could are at the start.
	for _, o := range c.conv.Operations {
		if o.Problem == "" && !could[o.ID] {
			c.picked[o.ID] = true
		}
	}
	c.fill()
}

// fill lists the operations again.
func (c *openAPIChooser) fill() {
	c.list.RemoveAll()
	var first *importer.Operation
	for _, o := range c.conv.Operations {
		if c.shown != nil && o.ID == c.shown.ID || first == nil {
			first = o
		}
		c.list.Add(c.row(o))
	}
	for _, n := range c.conv.Notes {
		c.list.Add(ui.Hint(n))
	}
	c.show(first)
	c.count()
}

// row is an operation in the list: a check to pick it, and its method,
// path and summary, which show its details when tapped.
func (c *openAPIChooser) row(o *importer.Operation) fyne.CanvasObject {
	check := widget.NewCheck("", func(on bool) {
		c.picked[o.ID] = on
		c.count()
	})
	check.SetChecked(c.picked[o.ID] && o.Problem == "")
	text := o.Method + " " + o.Path
	if o.Summary != "" {
		text += " — " + o.Summary
	}
	if o.Problem != "" {
		check.Disable()
		text += " (cannot be imported)"
	}
	label := widget.NewButton(text, func() { c.show(o) })
	label.Alignment = widget.ButtonAlignLeading
	label.Importance = widget.LowImportance
	d := &dupChoice{note: ui.WrapLabel("")}
	d.note.Importance = widget.WarningImportance
	d.choice = widget.NewRadioGroup([]string{dupSkip, dupReplace}, func(v string) {
		c.replace[o.ID] = v == dupReplace
		c.count()
	})
	d.choice.Horizontal = true
	d.choice.Required = true
	d.choice.SetSelected(dupSkip)
	if c.replace[o.ID] {
		d.choice.SetSelected(dupReplace)
	}
	d.box = container.NewVBox(d.note, d.choice)
	c.dups[o.ID] = d
	c.markDup(o)
	return container.NewVBox(container.NewBorder(nil, nil, check, nil, label), d.box)
}

// storedToolNames are the names of the tools the catalog has now.
func (m *Manager) storedToolNames() map[string]bool {
	names := map[string]bool{}
	cat, err := m.cfg.Store.Catalog(m.ctx())
	if err != nil {
		return names
	}
	for _, t := range cat.Tools {
		names[t.Name] = true
	}
	return names
}

// duplicate says whether o's tool, as named now, is one the catalog has.
func (c *openAPIChooser) duplicate(o *importer.Operation) bool {
	return o.Problem == "" && c.stored[c.tool(o).Name]
}

// markDup shows or hides o's duplicate mark, as its tool is named now.
func (c *openAPIChooser) markDup(o *importer.Operation) {
	d := c.dups[o.ID]
	if d == nil {
		return
	}
	if !c.duplicate(o) {
		d.box.Hide()
		return
	}
	d.note.SetText(fmt.Sprintf("You have a tool named %s already.", c.tool(o).Name))
	d.box.Show()
}

// show fills the details with an operation.
func (c *openAPIChooser) show(o *importer.Operation) {
	c.shown = o
	c.filling = true
	defer func() { c.filling = false }()
	if o == nil {
		c.name.SetText("")
		c.description.SetText("")
		c.preview.SetText("")
		c.notes.SetText("")
		return
	}
	tool := c.tool(o)
	c.name.SetText(tool.Name)
	c.description.SetText(tool.Description)
	if o.Problem != "" {
		c.name.Disable()
		c.description.Disable()
		c.preview.SetText("This operation cannot be imported: " + o.Problem)
	} else {
		c.name.Enable()
		c.description.Enable()
		c.preview.SetText(c.describe(o, tool))
	}
	c.notes.SetText(strings.Join(o.Notes, "\n"))
}

// tool is the operation's tool with the person's edits.
func (c *openAPIChooser) tool(o *importer.Operation) catalog.Tool {
	t := o.Tool
	if e := c.edits[o.ID]; e != nil {
		t.Name, t.Description = e.name, e.description
	}
	return t
}

// describe says what a tool does, for people.
func (c *openAPIChooser) describe(o *importer.Operation, t catalog.Tool) string {
	var b strings.Builder
	b.WriteString("An example call:\n")
	b.WriteString(requestPreview(t, exampleCall(t)))
	for _, s := range o.Secrets {
		fmt.Fprintf(&b, "\nSecret %s: %s", s.Name, s.Holds)
	}
	if h := t.Hints; h != nil {
		switch {
		case h.ReadOnly != nil && *h.ReadOnly:
			b.WriteString("\nRead-only.")
		case h.Destructive != nil && *h.Destructive:
			b.WriteString("\nDestructive: mcptray asks you before it runs.")
		}
	}
	return b.String()
}

// edited keeps the person's name and description of the shown tool.
func (c *openAPIChooser) edited() {
	if c.filling || c.shown == nil || c.shown.Problem != "" {
		return
	}
	c.edits[c.shown.ID] = &opEdit{name: strings.TrimSpace(c.name.Text), description: c.description.Text}
	c.markDup(c.shown)
	c.count()
}

// pickAll picks every operation that can become a tool, or none.
func (c *openAPIChooser) pickAll(on bool) {
	for _, o := range c.conv.Operations {
		c.picked[o.ID] = on && o.Problem == ""
	}
	c.fill()
}

// chosen is the picked operations, with the person's edits.
func (c *openAPIChooser) chosen() []*importer.Operation {
	var out []*importer.Operation
	for _, o := range c.conv.Operations {
		if !c.picked[o.ID] || o.Problem != "" || c.duplicate(o) && !c.replace[o.ID] {
			continue
		}
		op := *o
		op.Tool = c.tool(o)
		out = append(out, &op)
	}
	return out
}

// count says how many tools Import adds, or, as the names are typed, why
// it cannot.
func (c *openAPIChooser) count() {
	ops := c.chosen()
	text := "Import " + words.Count(len(ops), "tool", "tools")
	if n := c.replacing(ops); n > 0 {
		text += fmt.Sprintf(" (%d replacing yours)", n)
	}
	c.importBtn.SetText(text)
	problem := nameProblem(ops)
	switch {
	case len(ops) == 0:
		c.importBtn.Disable()
		c.importBtn.SetText("Import")
	case problem != "":
		c.importBtn.Disable()
	default:
		c.importBtn.Enable()
	}
	c.status.SetText(problem)
}

// replacing counts the operations of ops whose tool replaces a stored one.
func (c *openAPIChooser) replacing(ops []*importer.Operation) int {
	n := 0
	for _, o := range ops {
		if c.stored[o.Tool.Name] {
			n++
		}
	}
	return n
}

// nameProblem is what is wrong with the tool names of ops — one that is
// no tool name, or one two of them share — or "".
func nameProblem(ops []*importer.Operation) string {
	seen := map[string]*importer.Operation{}
	for _, o := range ops {
		if err := catalog.CheckName(o.Tool.Name); err != nil {
			return fmt.Sprintf("The tool name of %s %s: %v.", o.Method, o.Path, err)
		}
		if other := seen[o.Tool.Name]; other != nil {
			return fmt.Sprintf("%s %s and %s %s are both named %s: rename one.", other.Method, other.Path, o.Method, o.Path, o.Tool.Name)
		}
		seen[o.Tool.Name] = o
	}
	return ""
}

// doImport adds the picked tools, all or nothing; the problems show in a
// dialog, one by one.
func (c *openAPIChooser) doImport() {
	ops := c.chosen()
	tools, secrets, err := importer.Build(ops)
	if err != nil {
		c.m.showImportError(c.src, err)
		return
	}
	c.importBtn.Disable()
	// Only the duplicates the person chose to replace are among ops.
	replace := c.replacing(ops) > 0
	var missing []missingSecret
	c.m.background.Run(func() {
		err = importer.AddTools(context.Background(), c.m.cfg.Store, tools, replace)
		if err == nil {
			missing = c.m.unset(secrets)
		}
	}, func() {
		c.importBtn.Enable()
		if err != nil {
			var ve *catalog.ValidationError
			if !errors.As(err, &ve) {
				c.status.SetText("Not imported: " + err.Error())
				return
			}
			c.m.showImportError(c.src, err)
			return
		}
		c.d.Hide()
		c.m.reloadEntries()
		c.m.showImported(fmt.Sprintf("Imported %s from %s.", words.Count(len(tools), "tool", "tools"), cmp.Or(c.spec.Title, c.src)), missing)
	})
}

// unset are the secrets of refs that have no value yet, with what they
// hold and the tools that read them; call it off the UI goroutine.
func (m *Manager) unset(refs []importer.SecretRef) []missingSecret {
	if m.cfg.Secrets == nil || len(refs) == 0 {
		return nil
	}
	needs, err := readSecretNeeds(context.Background(), m.cfg.Store, m.cfg.Secrets)
	if err != nil {
		return nil
	}
	var out []missingSecret
	for _, ms := range missingOf(needs) {
		for _, r := range refs {
			if r.Name == ms.name {
				ms.holds = r.Holds
				out = append(out, ms)
				break
			}
		}
	}
	return out
}

// showImported reports an import: what it did, then a field for each
// secret its tools read that has no value yet.
func (m *Manager) showImported(did string, missing []missingSecret) {
	body := container.NewVBox(ui.WrapLabel(did))
	if len(missing) > 0 {
		body.Add(ui.WrapLabel("They read these secrets, which have no value yet: type each one's value here (or later in Settings › Secrets)."))
		body.Add(secretFields(missing, func(name, value string, done func(error)) {
			setSecretIn(&m.background, m.cfg.Secrets, name, value, done)
		}))
	}
	info := dialog.NewCustom("Tools imported", "Close", container.NewVScroll(body), m.win)
	info.Resize(dialogSize(m.win, fyne.NewSize(640, 420)))
	info.Show()
}
