package app

import (
	"context"
	"log/slog"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/mcpcore"
)

// Manager is the main window: the catalog's tools, resources and prompts,
// the activity log and the settings, in tabs.
type Manager struct {
	app fyne.App
	cfg Config
	win fyne.Window

	tabs *container.AppTabs

	// Tools tab
	tools      []mcpcore.Tool // the catalog's tools
	shown      []mcpcore.Tool // those the search matches
	search     *widget.Entry
	toolList   *widget.List
	editorHost *fyne.Container
	editor     *ToolEditor

	// Resources and Prompts tabs
	entries    []catalogEntry
	entryList  *widget.List
	prompts    []catalogEntry
	promptList *widget.List
	activity   *ActivityTab
	settings   *SettingsTab
}

// catalogEntry is a resource, resource template or prompt in a list.
type catalogEntry struct {
	kind, key, label string
	disabled         bool
}

// NewManager builds the manager window (not shown).
func NewManager(a fyne.App, cfg Config) *Manager {
	m := &Manager{app: a, cfg: cfg}
	m.win = a.NewWindow("mcptray")
	m.tabs = container.NewAppTabs(
		container.NewTabItemWithIcon("Tools", theme.SettingsIcon(), m.toolsTab()),
		container.NewTabItemWithIcon("Resources", theme.FileIcon(), m.resourcesTab()),
		container.NewTabItemWithIcon("Prompts", theme.DocumentIcon(), m.promptsTab()),
		container.NewTabItemWithIcon("Activity", theme.HistoryIcon(), m.activityContent()),
		container.NewTabItemWithIcon("Settings", theme.SettingsIcon(), m.settingsTab()),
	)
	m.tabs.OnSelected = func(t *container.TabItem) {
		switch t.Text {
		case "Resources", "Prompts":
			m.reloadEntries()
		case "Activity":
			m.activity.Reload()
		}
	}
	m.win.SetContent(m.tabs)
	m.win.Resize(fyne.NewSize(980, 680))
	m.win.CenterOnScreen()
	m.reloadTools("")
	return m
}

// Window is the manager's window.
func (m *Manager) Window() fyne.Window { return m.win }

func (m *Manager) ctx() context.Context { return context.Background() }

// ------------------------------------------------------------------ Tools

func (m *Manager) toolsTab() fyne.CanvasObject {
	m.search = widget.NewEntry()
	m.search.SetPlaceHolder("Search tools")
	m.search.OnChanged = func(string) { m.filterTools() }
	m.toolList = widget.NewList(
		func() int { return len(m.shown) },
		func() fyne.CanvasObject {
			return container.NewBorder(nil, nil, widget.NewCheck("", nil), nil, widget.NewLabel("tool name"))
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			t := m.shown[id]
			c := o.(*fyne.Container)
			label := c.Objects[0].(*widget.Label)
			check := c.Objects[1].(*widget.Check)
			text := t.Name
			if t.Title != "" {
				text += " — " + t.Title
			}
			label.SetText(text)
			check.OnChanged = nil
			check.SetChecked(!t.Disabled)
			name := t.Name
			check.OnChanged = func(on bool) { m.setToolEnabled(name, on) }
		},
	)
	m.toolList.OnSelected = func(id widget.ListItemID) {
		if id < len(m.shown) {
			m.editTool(m.shown[id], false)
		}
	}
	newBtn := widget.NewButtonWithIcon("New tool", theme.ContentAddIcon(), m.NewTool)
	left := container.NewBorder(container.NewVBox(m.search), newBtn, nil, nil, m.toolList)
	m.editorHost = container.NewStack(container.NewCenter(widget.NewLabel("Select a tool, or create one with New tool.")))
	split := container.NewHSplit(left, m.editorHost)
	split.Offset = 0.3
	return split
}

// NewTool opens the editor on a new tool.
func (m *Manager) NewTool() {
	m.toolList.UnselectAll()
	m.editTool(mcpcore.Tool{}, true)
}

func (m *Manager) editTool(t mcpcore.Tool, isNew bool) {
	m.editor = NewToolEditor(m.cfg.Store, t, isNew, func(name string) {
		m.reloadTools(name)
		if name == "" { // deleted
			m.editor = nil
			m.editorHost.Objects = []fyne.CanvasObject{container.NewCenter(widget.NewLabel("Select a tool, or create one with New tool."))}
			m.editorHost.Refresh()
		}
	})
	m.editor.confirm = func(q string, yes func()) {
		dialog.ShowConfirm("Delete tool", q, func(ok bool) {
			if ok {
				yes()
			}
		}, m.win)
	}
	m.editorHost.Objects = []fyne.CanvasObject{m.editor.Content()}
	m.editorHost.Refresh()
}

// Editor is the tool editor open now, or nil.
func (m *Manager) Editor() *ToolEditor { return m.editor }

func (m *Manager) setToolEnabled(name string, on bool) {
	if err := m.cfg.Store.SetToolDisabled(m.ctx(), name, !on); err != nil {
		dialog.ShowError(err, m.win)
	}
	m.reloadTools("")
}

// reloadTools reads the tools again; select names one to select.
func (m *Manager) reloadTools(selectName string) {
	cat, err := m.cfg.Store.Catalog(m.ctx())
	if err != nil {
		slog.Error("reading the catalog", "err", err)
		return
	}
	m.tools = cat.Tools
	m.filterTools()
	if selectName != "" {
		for i, t := range m.shown {
			if t.Name == selectName {
				m.toolList.Select(i)
				m.toolList.ScrollTo(i)
			}
		}
	}
}

func (m *Manager) filterTools() {
	q := strings.ToLower(strings.TrimSpace(m.search.Text))
	m.shown = m.shown[:0]
	for _, t := range m.tools {
		if q == "" || strings.Contains(strings.ToLower(t.Name+" "+t.Title+" "+t.Description), q) {
			m.shown = append(m.shown, t)
		}
	}
	m.toolList.Refresh()
}

// ------------------------------------------------------ Resources, Prompts

func (m *Manager) entryListWidget(items *[]catalogEntry) *widget.List {
	return widget.NewList(
		func() int { return len(*items) },
		func() fyne.CanvasObject {
			return container.NewBorder(nil, nil, widget.NewCheck("", nil), nil, widget.NewLabel("entry"))
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			e := (*items)[id]
			c := o.(*fyne.Container)
			c.Objects[0].(*widget.Label).SetText(e.label)
			check := c.Objects[1].(*widget.Check)
			check.OnChanged = nil
			check.SetChecked(!e.disabled)
			check.OnChanged = func(on bool) { m.setEntryEnabled(e, on) }
		},
	)
}

func (m *Manager) resourcesTab() fyne.CanvasObject {
	m.entryList = m.entryListWidget(&m.entries)
	hint := widget.NewLabel("Resources and resource templates clients can read. Untick to stop serving one; edit them with `mcptray export` / `import`.")
	hint.Wrapping = fyne.TextWrapWord
	return container.NewBorder(hint, nil, nil, nil, m.entryList)
}

func (m *Manager) promptsTab() fyne.CanvasObject {
	m.promptList = m.entryListWidget(&m.prompts)
	hint := widget.NewLabel("Prompts clients offer. Untick to stop serving one; edit them with `mcptray export` / `import`.")
	hint.Wrapping = fyne.TextWrapWord
	return container.NewBorder(hint, nil, nil, nil, m.promptList)
}

func (m *Manager) setEntryEnabled(e catalogEntry, on bool) {
	var err error
	switch e.kind {
	case "resource":
		err = m.cfg.Store.SetResourceDisabled(m.ctx(), e.key, !on)
	case "template":
		err = m.cfg.Store.SetResourceTemplateDisabled(m.ctx(), e.key, !on)
	case "prompt":
		err = m.cfg.Store.SetPromptDisabled(m.ctx(), e.key, !on)
	}
	if err != nil {
		dialog.ShowError(err, m.win)
	}
	m.reloadEntries()
}

func (m *Manager) reloadEntries() {
	cat, err := m.cfg.Store.Catalog(m.ctx())
	if err != nil {
		slog.Error("reading the catalog", "err", err)
		return
	}
	m.entries = m.entries[:0]
	for _, r := range cat.Resources {
		m.entries = append(m.entries, catalogEntry{"resource", r.URI, r.Name + "  ·  " + r.URI, r.Disabled})
	}
	for _, t := range cat.ResourceTemplates {
		m.entries = append(m.entries, catalogEntry{"template", t.URITemplate, t.Name + "  ·  " + t.URITemplate, t.Disabled})
	}
	m.prompts = m.prompts[:0]
	for _, p := range cat.Prompts {
		label := p.Name
		if p.Title != "" {
			label += " — " + p.Title
		}
		m.prompts = append(m.prompts, catalogEntry{"prompt", p.Name, label, p.Disabled})
	}
	m.entryList.Refresh()
	m.promptList.Refresh()
}

// ------------------------------------------------------------------ Activity

func (m *Manager) activityContent() fyne.CanvasObject {
	m.activity = newActivityTab(m.cfg)
	return m.activity.Content()
}

// ------------------------------------------------------------------ Settings

func (m *Manager) settingsTab() fyne.CanvasObject {
	m.settings = newSettingsTab(m.win, m.cfg)
	return m.settings.Content()
}

// ------------------------------------------------------------------ Welcome

func (m *Manager) showWelcome() {
	text := widget.NewLabel("mcptray serves tools you define to your AI assistants, on this computer.\n\n" +
		"1. Define — a few example tools are already in the Tools tab; edit them or add your own.\n" +
		"2. Connect — in the tray menu, Connect a client ▸ shows the exact entry for your assistant.\n" +
		"3. Use — ask your assistant; mcptray asks you here before anything destructive runs.")
	text.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustom("Welcome to mcptray", "Start", text, m.win)
	d.Resize(fyne.NewSize(560, 260))
	d.Show()
}
