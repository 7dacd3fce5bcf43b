package app

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/app/words"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/examples"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/mcptray/mcptray/storage"
)

// This file holds New tool ▸ From an example: a gallery of working tools
// — the starter catalog's and the examples package's gallery — any of
// which opens in the editor as a new tool to adapt, so that a person
// starts from something that runs rather than from empty fields.

// galleryTools are the examples, the starter catalog's first.
func galleryTools() ([]catalog.Tool, error) {
	var out []catalog.Tool
	for _, src := range []struct {
		what string
		data []byte
	}{{"the starter catalog", examples.Starter}, {"the gallery", examples.Gallery}} {
		c, err := mcpcore.ParseCatalog(src.data)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", src.what, err)
		}
		out = append(out, examples.On(c, runtime.GOOS).Tools...)
	}
	return out, nil
}

// freeToolName is name when no stored tool has it, else the first of
// name_2, name_3… that none has.
func (m *Manager) freeToolName(name string) (string, error) {
	for i := 1; ; i++ {
		n := name
		if i > 1 {
			n = fmt.Sprintf("%s_%d", name, i)
		}
		_, err := m.cfg.Store.Tool(m.ctx(), n)
		switch {
		case errors.Is(err, storage.ErrNotFound):
			return n, nil
		case err != nil:
			return "", fmt.Errorf("checking the tool name %q: %w", n, err)
		}
	}
}

// galleryDialog is the open gallery.
type galleryDialog struct {
	tools  []catalog.Tool
	list   *widget.List
	detail *widget.Label
	open   *widget.Button
	chosen int
	d      *dialog.CustomDialog
}

// showGallery opens the gallery; choosing an example opens a copy of it
// in the editor, not yet saved.
func (m *Manager) showGallery() *galleryDialog {
	tools, err := galleryTools()
	if err != nil {
		dialog.ShowError(err, m.win)
		return nil
	}
	g := &galleryDialog{tools: tools, chosen: -1}
	g.list = widget.NewList(func() int { return len(g.tools) },
		func() fyne.CanvasObject {
			title := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
			desc := widget.NewLabel("")
			desc.Truncation = fyne.TextTruncateEllipsis
			return container.NewVBox(title, desc)
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			labels := o.(*fyne.Container).Objects
			labels[0].(*widget.Label).SetText(g.tools[i].Title)
			labels[1].(*widget.Label).SetText(g.tools[i].Description)
		})
	g.detail = ui.WrapLabel("Choose an example: it opens in the editor as a new tool, for you to change and save.")
	g.open = widget.NewButton("Open a copy", func() { g.d.Hide(); m.openExample(g.tools[g.chosen]) })
	g.open.Importance = widget.HighImportance
	g.open.Disable()
	g.list.OnSelected = func(i widget.ListItemID) {
		g.chosen = i
		g.detail.SetText(exampleSummary(g.tools[i]))
		g.open.Enable()
	}
	cancel := widget.NewButton("Cancel", func() { g.d.Hide() })
	body := container.NewBorder(nil, container.NewVBox(widget.NewSeparator(), g.detail), nil, nil, g.list)
	g.d = dialog.NewCustomWithoutButtons("New tool from an example", body, m.win)
	g.d.SetButtons([]fyne.CanvasObject{cancel, g.open})
	g.d.Resize(dialogSize(m.win, fyne.NewSize(720, 560)))
	g.d.Show()
	return g
}

// exampleSummary says what an example does and what it runs.
func exampleSummary(t catalog.Tool) string {
	var runs string
	switch a := t.Action; {
	case a.Command != nil:
		runs = "Runs: " + actions.ShowCommandLine(runtime.GOOS, a.Command.On(runtime.GOOS).Argv)
	case a.HTTP != nil:
		runs = fmt.Sprintf("Calls: %s %s", strings.ToUpper(cmp.Or(a.HTTP.Method, "GET")), a.HTTP.URL)
	default:
		runs = "Answers with a fixed text."
	}
	lines := []string{t.Description, runs}
	if len(t.Steps) > 0 {
		lines = append(lines, "Asks: "+words.Count(len(t.Steps), "question", "questions")+" before it runs.")
	}
	return strings.Join(lines, "\n")
}

// openExample opens t in the editor as a new tool, under a name no
// stored tool has.
func (m *Manager) openExample(t catalog.Tool) {
	name, err := m.freeToolName(t.Name)
	if err != nil {
		dialog.ShowError(err, m.win)
		return
	}
	t.Name = name
	m.tools.leave(func() { m.editTool(t, true) })
}
