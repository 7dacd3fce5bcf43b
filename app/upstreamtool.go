package app

import (
	"context"
	"encoding/json"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/storage"
)

// setAskFirst makes the stored tool named name ask the person before each
// call (catalog.ApprovalAlways), or not; the rest of the tool is stored
// as it is, its enabled flag and its tokens' access included.
func setAskFirst(ctx context.Context, st *storage.Store, name string, ask bool) error {
	t, err := st.Tool(ctx, name)
	if err != nil {
		return err
	}
	t.Approval = ""
	if ask {
		t.Approval = catalog.ApprovalAlways
	}
	_, err = st.SaveTool(ctx, name, t, nil)
	return err
}

// showUpstreamTool shows, in the Tools tab, a tool of another server
// (catalog.UpstreamTool): its definition is the server's, as the person
// approved it, so it is read, not edited — the tool editor knows only
// mcptray's own actions, and its Save would store this one as a tool that
// only responds. What the person may set on it, on or off and "Ask me
// first", is here; the rest is in the Servers tab.
func (m *Manager) showUpstreamTool(t catalog.Tool) {
	m.dropToolEditor()
	name, up := t.Name, t.Action.Upstream
	ctx := m.ctx()
	on := widget.NewCheck("On: served to your AI apps", func(on bool) {
		if err := m.cfg.Store.SetToolDisabled(ctx, name, !on); err != nil {
			dialog.ShowError(err, m.win)
		}
		m.reloadEntries()
	})
	on.Checked = !t.Disabled
	ask := widget.NewCheck("Ask me first: mcptray asks you, on this computer, before each call", func(yes bool) {
		if err := setAskFirst(ctx, m.cfg.Store, name, yes); err != nil {
			dialog.ShowError(err, m.win)
		}
		m.reloadEntries()
	})
	ask.Checked = t.Approval == catalog.ApprovalAlways
	server := widget.NewHyperlink("", nil)
	server.SetText("Open the server " + up.Server + " in the Servers tab")
	server.OnTapped = func() { m.ShowServer(up.Server) }
	title := widget.NewLabelWithStyle(titled(t.Name, t.Title), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.Wrapping = fyne.TextWrapWord
	var col ui.LabelColumn
	rows := []fyne.CanvasObject{
		title,
		ui.Hint(fmt.Sprintf("A tool of the server %s, another AI tool server you use: what it does is the server's, as you approved it, so it cannot be edited here.", up.Server)),
		server,
		col.Row("Server", widget.NewLabel(up.Server)),
		col.Row("Its name there", widget.NewLabel(up.Tool)),
		col.Row("What it does", ui.WrapLabel(t.Description)),
	}
	if up.Held {
		held := ui.WrapLabel("Held back: the server changed this tool since you approved it. Review the change in the Servers tab.")
		held.Importance = widget.WarningImportance
		rows = append(rows, held)
	}
	rows = append(rows, on, ask,
		col.Row("What it takes (input schema)", schemaText(t.InputSchema)),
		col.Row("What it gives (output schema)", schemaText(t.OutputSchema)))
	m.tools.show(ui.NewPage(container.NewVBox(rows...)), catalogEntry{kind: entryTool, key: t.Name})
}

// schemaText is a schema, indented, to read and copy.
func schemaText(raw json.RawMessage) fyne.CanvasObject {
	text := "(none)"
	if len(raw) > 0 {
		text = string(raw)
		var v any
		if json.Unmarshal(raw, &v) == nil {
			if b, err := json.MarshalIndent(v, "", "  "); err == nil {
				text = string(b)
			}
		}
	}
	l := widget.NewLabel(text)
	l.TextStyle = fyne.TextStyle{Monospace: true}
	l.Wrapping = fyne.TextWrapBreak
	l.Selectable = true
	return l
}
