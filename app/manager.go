package app

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/editor"
	"github.com/mcptray/mcptray/app/link"
	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/catalog"
)

// Manager is the main window: the catalog's tools, resources and prompts,
// the activity log and the settings, in tabs.
type Manager struct {
	app fyne.App
	cfg Config
	win fyne.Window

	tabs *container.AppTabs
	// keeper keeps the window's size from one start to the next.
	keeper *sizeKeeper

	// The catalog tabs, and their open editors (at most one of resEditor
	// and tmplEditor).
	tools        *entryPane
	editor       *editor.ToolEditor
	resources    *entryPane
	prompts      *entryPane
	resEditor    *editor.ResourceEditor
	tmplEditor   *editor.TemplateEditor
	promptEditor *editor.PromptEditor

	servers  *ServersTab
	activity *ActivityTab
	settings *SettingsTab

	// ask asks the person whether to discard unsaved changes (askDiscard),
	// which tests replace.
	ask func(title, question string, answer func(bool))

	// onClose is what closing the window does (see SetCloseIntercept).
	onClose func()
	// Background runs the file imports and exports.
	background ui.Background

	// life ends with the window (destroy): what the manager follows
	// while it lives (the remembered approvals, the store's change feed)
	// stops following then.
	life context.Context
	end  context.CancelFunc
	// reloading serializes reloadEntries: on the real driver it runs on
	// the UI goroutine anyway; the test driver runs the change feed's
	// fyne.Do inline, on the feed's goroutine, beside a test's own reload.
	reloading sync.Mutex
	// needs are, by tool, the secrets it reads that have no value.
	needs map[string][]string
}

// NewManager builds the manager window (not shown).
func NewManager(a fyne.App, cfg Config) *Manager {
	m := &Manager{app: a, cfg: cfg}
	m.life, m.end = context.WithCancel(context.Background())
	m.win = a.NewWindow("mcptray")
	m.ask = m.askDiscard
	m.tabs = container.NewAppTabs(
		container.NewTabItemWithIcon("Tools", theme.MediaPlayIcon(), m.toolsTab()),
		container.NewTabItemWithIcon("Resources", theme.FileIcon(), m.resourcesTab()),
		container.NewTabItemWithIcon("Prompts", theme.DocumentIcon(), m.promptsTab()),
		container.NewTabItemWithIcon("Servers", theme.ComputerIcon(), m.serversTab()),
		container.NewTabItemWithIcon("Activity", theme.HistoryIcon(), m.activityContent()),
		container.NewTabItemWithIcon("Settings", theme.SettingsIcon(), m.settingsTab()),
	)
	m.tabs.OnSelected = func(t *container.TabItem) {
		m.servers.watch(t.Text == "Servers")
		switch t.Text {
		case "Tools", "Resources", "Prompts":
			m.reloadEntries()
		case "Activity":
			m.activity.Reload()
		}
	}
	ask := func(title, question string, answer func(bool)) { m.ask(title, question, answer) }
	m.tools.ask, m.resources.ask, m.prompts.ask = ask, ask, ask
	m.tools.unsaved = func() bool { return m.editor != nil && m.editor.Unsaved() }
	m.resources.unsaved = func() bool {
		return m.resEditor != nil && m.resEditor.Unsaved() || m.tmplEditor != nil && m.tmplEditor.Unsaved()
	}
	m.prompts.unsaved = func() bool { return m.promptEditor != nil && m.promptEditor.Unsaved() }
	// Read before the content is set: setting it lays it out at its
	// minimum size, which is no size the person chose.
	size := m.keptSize()
	keeper := &sizeKeeper{m: m}
	m.keeper = keeper
	m.win.SetContent(container.New(keeper, m.tabs))
	// The menu bar and the keyboard shortcuts are the UI's (menu.go).
	// Closing hides: mcptray lives on in the tray and keeps serving.
	m.SetCloseIntercept(m.win.Hide)
	m.win.Resize(size)
	keeper.keeping = true
	m.win.CenterOnScreen()
	m.reloadEntries()
	m.followStore()
	return m
}

// saveOpenEditor saves the editor of the tab shown, if one is open.
func (m *Manager) saveOpenEditor() {
	if save := m.shownSave(); save != nil {
		save()
	}
}

// shownSave is the Save of the editor on the tab shown; nil when none is
// open there (File ▸ Save is then disabled).
func (m *Manager) shownSave() func() bool {
	switch tab := m.tabs.Selected(); {
	case tab == nil:
	case tab.Text == "Tools" && m.editor != nil:
		return m.editor.Save
	case tab.Text == "Resources" && m.resEditor != nil:
		return m.resEditor.Save
	case tab.Text == "Resources" && m.tmplEditor != nil:
		return m.tmplEditor.Save
	case tab.Text == "Prompts" && m.promptEditor != nil:
		return m.promptEditor.Save
	case tab.Text == "Settings":
		return m.settings.Save
	}
	return nil
}

// Preferences that keep the window's size (in Fyne's units, so that it
// holds at any scale) from one start to the next.
const (
	prefWindowWidth  = "managerWidth"
	prefWindowHeight = "managerHeight"
)

// defaultWindowSize is the window's size on a first start; largestWindow
// bounds a kept size that no screen could show (a stale or edited
// preference).
var (
	defaultWindowSize = fyne.NewSize(980, 680)
	largestWindow     = fyne.NewSize(7680, 4320)
)

// keptSize is the size the person left the window at, within what the
// window needs and largestWindow; the default size if none is kept. Fyne
// cannot place a window (v2.7 has no API for it), so only the size is
// kept: the window opens centred.
func (m *Manager) keptSize() fyne.Size {
	prefs := m.app.Preferences()
	w, h := float32(prefs.Float(prefWindowWidth)), float32(prefs.Float(prefWindowHeight))
	if !(w > 0 && h > 0) { // none kept, or not a size
		return defaultWindowSize
	}
	return fyne.NewSize(w, h).Max(m.tabs.MinSize()).Min(largestWindow)
}

// sizeKeeper lays the window's content out at the window's size, and
// keeps that size in the preferences each time it changes, however it
// changed: dragged, tiled, maximised.
type sizeKeeper struct {
	m *Manager
	// keeping is set once the window has its first size.
	keeping bool
	kept    fyne.Size
	// forced is the size the window was shrunk to to fit the screen at
	// its scale (fitOnScreen): not a size the person chose, and kept it
	// would open the window that small on a larger screen or at a smaller
	// scale (879×480 at scale 1.0 after a run at 1.5 on a 1366×768 screen).
	forced fyne.Size
}

func (l *sizeKeeper) MinSize(objs []fyne.CanvasObject) fyne.Size { return objs[0].MinSize() }

func (l *sizeKeeper) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.Position{})
	objs[0].Resize(size)
	// The canvas, not the content: Window.Resize sizes the canvas, menu
	// bar included.
	win := l.m.win.Canvas().Size()
	if !l.keeping || win.Width <= 0 || win.Height <= 0 || win == l.kept || win == l.forced {
		return
	}
	l.kept = win
	prefs := l.m.app.Preferences()
	prefs.SetFloat(prefWindowWidth, float64(win.Width))
	prefs.SetFloat(prefWindowHeight, float64(win.Height))
}

// askDiscard asks whether to discard the unsaved changes of an editor:
// Keep editing is the default (Return or Escape), Discard, the danger,
// answers yes; keeping answers no, or nothing when a key closed the
// question.
func (m *Manager) askDiscard(title, question string, answer func(discard bool)) {
	var d *dialog.CustomDialog
	reply := func(discard bool) func() {
		return func() {
			d.Hide()
			answer(discard)
		}
	}
	keep := widget.NewButton("Keep editing", reply(false))
	keep.Importance = widget.HighImportance
	discard := widget.NewButton("Discard", reply(true))
	discard.Importance = widget.DangerImportance
	d = dialog.NewCustomWithoutButtons(title, ui.WrapLabel(question), m.win)
	d.SetButtons([]fyne.CanvasObject{discard, keep})
	d.Resize(fyne.NewSize(460, 190))
	// Keys reach the window only while no field has the focus.
	m.win.Canvas().Unfocus()
	hideOnKeys(m.win, d)
	d.Show()
}

// unsavedEditor says whether an open editor has changes not saved.
func (m *Manager) unsavedEditor() bool {
	return m.tools.unsaved() || m.resources.unsaved() || m.prompts.unsaved()
}

// Window is the manager's window.
func (m *Manager) Window() fyne.Window { return m.win }

// SetCloseIntercept sets what closing the window does, from its close
// button and from File ▸ Close window alike.
func (m *Manager) SetCloseIntercept(f func()) {
	m.onClose = func() {
		// A hidden window keeps no text field focused: keys still down
		// (the W of Ctrl+W) must not type into it.
		m.win.Canvas().Unfocus()
		f()
	}
	m.win.SetCloseIntercept(m.onClose)
}

// closeWindow closes the window the way its close button does.
func (m *Manager) closeWindow() { m.onClose() }

func (m *Manager) ctx() context.Context { return m.life }

// work names the work the window holds that destroying it would lose, or
// is "": unsaved changes in an editor or the settings, a dialog (a choice
// half made, an import's report), a file import or export, or a Try it
// call under way. (A secret store call under way is not: it ends the
// same, and a new window lists the secrets again.)
func (m *Manager) work() string {
	switch {
	case m.unsavedEditor():
		return "an editor has unsaved changes"
	case m.settings.Unsaved():
		return "the settings have unsaved changes"
	case m.win.Canvas().Overlays().Top() != nil:
		return "a dialog is open"
	case m.background.Busy():
		return "an import or an export is under way"
	case m.editor != nil && m.editor.Try.Calls.Busy():
		return "a Try it call is running"
	case m.servers.form != nil && m.servers.form.work.Busy():
		return "a server is being tested or added"
	}
	return ""
}

// close closes the window and stops all the manager follows. Call it on
// the UI goroutine.
func (m *Manager) close() {
	m.end()
	m.servers.watch(false)
	m.activity.Stop()
	m.dropToolEditor()
	m.win.Close()
}

// managerView is where the person left the manager window: the tab shown
// and, on each catalog tab, the search and the entry open. A window closed
// to the tray opens again where it was left.
type managerView struct {
	tab   string
	panes []paneView // tools, resources, prompts
}

// paneView is where an entry pane was left.
type paneView struct {
	search string
	open   catalogEntry
}

// view is where the window is now.
func (m *Manager) view() managerView {
	v := managerView{}
	if t := m.tabs.Selected(); t != nil {
		v.tab = t.Text
	}
	for _, p := range m.panes() {
		v.panes = append(v.panes, paneView{search: p.search.Text, open: p.open})
	}
	return v
}

// toLink is v on the link.
func (v managerView) toLink() link.View {
	l := link.View{Tab: v.tab}
	for _, p := range v.panes {
		l.Panes = append(l.Panes, link.Pane{Search: p.search, Kind: p.open.kind, Key: p.open.key, Label: p.open.label})
	}
	return l
}

// viewOf is the managerView l carries.
func viewOf(l link.View) managerView {
	v := managerView{tab: l.Tab}
	for _, p := range l.Panes {
		v.panes = append(v.panes, paneView{search: p.Search, open: catalogEntry{kind: p.Kind, key: p.Key, label: p.Label}})
	}
	return v
}

// panes are the catalog tabs' entry panes.
func (m *Manager) panes() []*entryPane { return []*entryPane{m.tools, m.resources, m.prompts} }

// restore brings a new window back to v: its searches, the entries open
// (those still stored; an entry deleted meanwhile is not opened), and its
// tab.
func (m *Manager) restore(v managerView) {
	for i, p := range m.panes() {
		if i >= len(v.panes) {
			break
		}
		pv := v.panes[i]
		if pv.open.key != "" {
			_ = m.loadEntry(pv.open) // gone meanwhile: nothing to open
		}
		p.search.SetText(pv.search) // filters, selecting the entry open
	}
	for _, t := range m.tabs.Items {
		if t.Text == v.tab {
			m.tabs.Select(t)
		}
	}
}

// ------------------------------------------------------------------ Tools

func (m *Manager) toolsTab() fyne.CanvasObject {
	newBtn := widget.NewButtonWithIcon("New tool", theme.ContentAddIcon(), m.NewTool)
	fromExample := widget.NewButton("From an example…", func() { m.showGallery() })
	var content fyne.CanvasObject
	m.tools, content = newEntryPane("Search tools", "Select a tool, or create one with New tool.",
		m.openEntry, m.setEntryEnabled, newBtn, fromExample)
	return content
}

// NewTool opens the editor on a new tool.
func (m *Manager) NewTool() { m.tools.leave(func() { m.editTool(catalog.Tool{}, true) }) }

// openEntry opens the editor of a stored entry, or says why it cannot.
func (m *Manager) openEntry(e catalogEntry) {
	if err := m.loadEntry(e); err != nil {
		dialog.ShowError(fmt.Errorf("opening %s %q: %w", e.kind, e.key, err), m.win)
		m.reloadEntries()
	}
}

// loadEntry reads a stored entry and opens its editor.
func (m *Manager) loadEntry(e catalogEntry) error {
	ctx := m.ctx()
	switch e.kind {
	case entryTool:
		t, err := m.cfg.Store.Tool(ctx, e.key)
		if err != nil {
			return err
		}
		m.editTool(t, false)
	case entryResource:
		r, err := m.cfg.Store.Resource(ctx, e.key)
		if err != nil {
			return err
		}
		m.editResource(r, false)
	case entryTemplate:
		t, err := m.cfg.Store.ResourceTemplate(ctx, e.key)
		if err != nil {
			return err
		}
		m.editTemplate(t, false)
	case entryPrompt:
		p, err := m.cfg.Store.Prompt(ctx, e.key)
		if err != nil {
			return err
		}
		m.editPrompt(p, false)
	default:
		return fmt.Errorf("no editor for a %s", e.kind)
	}
	return nil
}

func (m *Manager) editTool(t catalog.Tool, isNew bool) {
	if t.Action.Upstream != nil {
		m.showUpstreamTool(t)
		return
	}
	m.dropToolEditor()
	m.editor = editor.NewToolEditor(m.cfg.Store, t, isNew, m.savedIn(m.tools, entryTool))
	m.editor.SetTrier(m.cfg.TryIt)
	m.editor.Tmpl.ReadSecrets(m.cfg.Secrets)
	m.editor.Confirm = m.confirmDelete("Delete tool")
	m.editor.SetMissingSecrets(m.needs[t.Name])
	m.tools.show(m.editor.Content(), catalogEntry{kind: entryTool, key: keyUnlessNew(t.Name, isNew)})
}

// Editor is the tool editor open now, or nil.
func (m *Manager) Editor() *editor.ToolEditor { return m.editor }

// ------------------------------------------------------ Resources, Prompts

// Kinds of catalogEntry.
const (
	entryTool     = "tool"
	entryResource = "resource"
	entryTemplate = "template"
	entryPrompt   = "prompt"
)

// catalogEntry is a tool, resource, resource template or prompt in a list.
type catalogEntry struct {
	kind, key, label string
	disabled         bool
	// note says what the entry lacks to work (a secret with no value),
	// beside its line.
	note string
	// about is more text the search looks in (a tool's description).
	about string
}

// entryPane is a searchable list of catalog entries, each with an enable
// toggle, beside the editor of the selected one.
type entryPane struct {
	all, shown []catalogEntry
	search     *widget.Entry
	list       *widget.List
	host       *fyne.Container
	// idle is what the editor area shows when no editor is open.
	idle string
	// open is the entry whose editor is shown (zero: none or a new one).
	// Selecting it again, as the reload after a save does, keeps that
	// editor and its status line.
	open   catalogEntry
	onOpen func(catalogEntry)
	// unsaved says whether the open editor has changes not saved; nil when
	// no editor is open.
	unsaved func() bool
	// ask asks a yes/no question (a dialog; tests answer it themselves).
	ask      func(title, question string, answer func(bool))
	onToggle func(catalogEntry, bool)
	// selected is the row highlighted in the list, -1 for none.
	selected widget.ListItemID
}

// newEntryPane builds the pane; buttons go below the list.
func newEntryPane(placeholder, idle string, onOpen func(catalogEntry), onToggle func(catalogEntry, bool), buttons ...fyne.CanvasObject) (*entryPane, fyne.CanvasObject) {
	p := &entryPane{idle: idle, onOpen: onOpen, onToggle: onToggle, selected: -1}
	p.search = widget.NewEntry()
	p.search.SetPlaceHolder(placeholder)
	p.search.OnChanged = func(string) { p.filter() }
	p.list = widget.NewList(
		func() int { return len(p.shown) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("entry")
			// Cut short, a line shows whole in the editor it opens: the
			// name, title and URI fields.
			l.Truncation = fyne.TextTruncateEllipsis
			note := widget.NewLabel("")
			note.Importance = widget.WarningImportance
			note.Hide()
			return container.NewBorder(nil, nil, widget.NewCheck("", nil), note, l)
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			e := p.shown[id]
			c := o.(*fyne.Container)
			l := c.Objects[0].(*widget.Label)
			// A disabled entry, not served, is dimmed.
			l.Importance, l.TextStyle = widget.MediumImportance, fyne.TextStyle{}
			if e.disabled {
				l.Importance, l.TextStyle = widget.LowImportance, fyne.TextStyle{Italic: true}
			}
			l.SetText(e.label)
			if note := c.Objects[2].(*widget.Label); e.note != note.Text || e.note != "" != note.Visible() {
				note.SetText(e.note)
				note.Hidden = e.note == ""
				c.Refresh() // laid out again: the note takes room from the line
			}
			check := c.Objects[1].(*widget.Check)
			check.OnChanged = nil
			check.SetChecked(!e.disabled)
			check.OnChanged = func(on bool) { p.onToggle(e, on) }
		},
	)
	p.list.OnSelected = func(id widget.ListItemID) {
		p.selected = id
		if id >= len(p.shown) {
			return
		}
		e := p.shown[id]
		if e.kind == p.open.kind && e.key == p.open.key {
			return
		}
		p.leave(func() { p.onOpen(e) })
	}
	p.list.OnUnselected = func(widget.ListItemID) { p.selected = -1 }
	p.host = container.NewStack()
	p.close()
	left := container.NewBorder(p.search, container.NewVBox(buttons...), nil, nil, p.list)
	split := container.NewHSplit(left, p.host)
	split.Offset = 0.3
	return p, split
}

// show puts an editor in the editor area; e is the stored entry it edits,
// zero for a new one.
func (p *entryPane) show(editor fyne.CanvasObject, e catalogEntry) {
	p.open = catalogEntry{kind: e.kind, key: e.key}
	// The highlight moves with the editor: to the entry now open (a tool
	// made from curl, opened as it is stored), or off the list for a new
	// one.
	p.selectOpen()
	p.host.Objects = []fyne.CanvasObject{editor}
	p.host.Refresh()
}

// selectedEntry is the entry highlighted in the list, if any.
func (p *entryPane) selectedEntry() (catalogEntry, bool) {
	if p.selected < 0 || p.selected >= len(p.shown) {
		return catalogEntry{}, false
	}
	return p.shown[p.selected], true
}

// leave runs proceed, which replaces the open editor, once the person has
// agreed to lose its unsaved changes, if it has any; else the list goes
// back to the open entry.
func (p *entryPane) leave(proceed func()) {
	if p.unsaved == nil || !p.unsaved() {
		proceed()
		return
	}
	// Until the person discards, the list shows the entry still edited.
	p.filter()
	p.ask("Discard changes?", "The entry you are editing has changes that are not saved. Discard them?", func(discard bool) {
		if discard {
			proceed()
			p.filter() // selects the entry now open
		}
	})
}

// close empties the editor area.
func (p *entryPane) close() {
	p.open = catalogEntry{}
	p.list.UnselectAll()
	idle := ui.WrapLabel(p.idle)
	idle.Alignment = fyne.TextAlignCenter
	// Not a Center container: that gives a wrapping label one letter's
	// width.
	p.host.Objects = []fyne.CanvasObject{container.NewVBox(layout.NewSpacer(), idle, layout.NewSpacer())}
	p.host.Refresh()
}

// setEntries replaces the entries and selects the open one, if listed.
// The same entries again change nothing: the change feed reloads the
// lists after any write to the database, and the list must not jump
// under the pointer.
func (p *entryPane) setEntries(es []catalogEntry) {
	if slices.Equal(p.all, es) && p.all != nil {
		return
	}
	p.all = es
	p.filter()
}

func (p *entryPane) filter() {
	q := strings.ToLower(strings.TrimSpace(p.search.Text))
	p.shown = p.shown[:0]
	for _, e := range p.all {
		if q == "" || strings.Contains(strings.ToLower(e.label+" "+e.key+" "+e.about), q) {
			p.shown = append(p.shown, e)
		}
	}
	p.list.Refresh()
	if i := p.selectOpen(); i >= 0 {
		p.list.ScrollTo(i)
	}
}

// selectOpen highlights the open entry, if the list shows it, and no other
// one; it returns the entry's row, -1 when it is not shown.
func (p *entryPane) selectOpen() int {
	for i, e := range p.shown {
		if p.open.key != "" && e.kind == p.open.kind && e.key == p.open.key {
			p.list.Select(i)
			return i
		}
	}
	p.list.UnselectAll()
	return -1
}

func (m *Manager) resourcesTab() fyne.CanvasObject {
	newRes := widget.NewButtonWithIcon("New resource", theme.ContentAddIcon(), m.NewResource)
	newTmpl := widget.NewButtonWithIcon("New template", theme.ContentAddIcon(), m.NewTemplate)
	var content fyne.CanvasObject
	m.resources, content = newEntryPane("Search resources", "Select a resource, or create one with New resource or New template.",
		m.openEntry, m.setEntryEnabled, newRes, newTmpl)
	return content
}

func (m *Manager) promptsTab() fyne.CanvasObject {
	newBtn := widget.NewButtonWithIcon("New prompt", theme.ContentAddIcon(), m.NewPrompt)
	var content fyne.CanvasObject
	m.prompts, content = newEntryPane("Search prompts", "Select a prompt, or create one with New prompt.",
		m.openEntry, m.setEntryEnabled, newBtn)
	return content
}

// NewResource opens the editor on a new resource.
func (m *Manager) NewResource() {
	m.resources.leave(func() { m.editResource(catalog.Resource{}, true) })
}

// NewTemplate opens the editor on a new resource template.
func (m *Manager) NewTemplate() {
	m.resources.leave(func() { m.editTemplate(catalog.ResourceTemplate{}, true) })
}

// NewPrompt opens the editor on a new prompt.
func (m *Manager) NewPrompt() { m.prompts.leave(func() { m.editPrompt(catalog.Prompt{}, true) }) }

// confirmDelete asks before an editor deletes its entry.
func (m *Manager) confirmDelete(title string) func(string, func()) {
	return func(q string, yes func()) { confirmThen(m.win, title, q, yes) }
}

// confirmThen asks question in win, and runs yes if the answer is yes.
func confirmThen(win fyne.Window, title, question string, yes func()) {
	dialog.ShowConfirm(title, question, func(ok bool) {
		if ok {
			yes()
		}
	}, win)
}

// savedIn is an editor's onSaved: it reloads the lists, and after a delete
// closes the editor.
func (m *Manager) savedIn(p *entryPane, kind string) func(key string) {
	return func(key string) {
		if key == "" {
			p.close()
			m.forgetEditor(kind) // nothing left to save, or to ask about
		} else {
			p.open = catalogEntry{kind: kind, key: key}
		}
		m.reloadEntries()
		p.selectOpen() // a save that changed nothing listed reloads nothing
	}
}

// dropToolEditor forgets the tool editor, cancelling a Try it call it
// still runs: nobody would see its result.
func (m *Manager) dropToolEditor() {
	if m.editor != nil {
		m.editor.Try.Abandon()
		m.editor = nil
	}
}

// forgetEditor drops the editor of a kind of entry after a delete.
func (m *Manager) forgetEditor(kind string) {
	switch kind {
	case entryTool:
		m.dropToolEditor()
	case entryResource, entryTemplate:
		m.resEditor, m.tmplEditor = nil, nil
	case entryPrompt:
		m.promptEditor = nil
	}
}

func (m *Manager) editResource(r catalog.Resource, isNew bool) {
	m.tmplEditor = nil
	m.resEditor = editor.NewResourceEditor(m.cfg.Store, m.win, r, isNew, m.savedIn(m.resources, entryResource))
	m.resEditor.Tmpl.ReadSecrets(m.cfg.Secrets)
	m.resEditor.Confirm = m.confirmDelete("Delete resource")
	m.resources.show(m.resEditor.Content(), catalogEntry{kind: entryResource, key: keyUnlessNew(r.URI, isNew)})
}

func (m *Manager) editTemplate(t catalog.ResourceTemplate, isNew bool) {
	m.resEditor = nil
	m.tmplEditor = editor.NewTemplateEditor(m.cfg.Store, m.win, t, isNew, m.savedIn(m.resources, entryTemplate))
	m.tmplEditor.Tmpl.ReadSecrets(m.cfg.Secrets)
	m.tmplEditor.Confirm = m.confirmDelete("Delete resource template")
	m.resources.show(m.tmplEditor.Content(), catalogEntry{kind: entryTemplate, key: keyUnlessNew(t.URITemplate, isNew)})
}

func (m *Manager) editPrompt(p catalog.Prompt, isNew bool) {
	m.promptEditor = editor.NewPromptEditor(m.cfg.Store, p, isNew, m.savedIn(m.prompts, entryPrompt))
	m.promptEditor.Tmpl.ReadSecrets(m.cfg.Secrets)
	m.promptEditor.Confirm = m.confirmDelete("Delete prompt")
	m.prompts.show(m.promptEditor.Content(), catalogEntry{kind: entryPrompt, key: keyUnlessNew(p.Name, isNew)})
}

// titled is a list label: the name, and the title when there is one.
func titled(name, title string) string {
	if title == "" {
		return name
	}
	return name + " — " + title
}

func keyUnlessNew(key string, isNew bool) string {
	if isNew {
		return ""
	}
	return key
}

func (m *Manager) setEntryEnabled(e catalogEntry, on bool) {
	var err error
	switch e.kind {
	case entryTool:
		err = m.cfg.Store.SetToolDisabled(m.ctx(), e.key, !on)
	case entryResource:
		err = m.cfg.Store.SetResourceDisabled(m.ctx(), e.key, !on)
	case entryTemplate:
		err = m.cfg.Store.SetResourceTemplateDisabled(m.ctx(), e.key, !on)
	case entryPrompt:
		err = m.cfg.Store.SetPromptDisabled(m.ctx(), e.key, !on)
	}
	if err != nil {
		dialog.ShowError(fmt.Errorf("changing %s %q: %w", e.kind, e.key, err), m.win)
	}
	m.reloadEntries()
}

// reloadEntries reads the catalog's entries again.
func (m *Manager) reloadEntries() {
	m.reloading.Lock()
	defer m.reloading.Unlock()
	cat, err := m.cfg.Store.Catalog(m.ctx())
	if err != nil {
		slog.Error("reading the catalog", "err", err)
		return
	}
	m.needs = m.readNeeds(cat)
	var tools, res, prompts []catalogEntry
	for _, t := range cat.Tools {
		tools = append(tools, catalogEntry{kind: entryTool, key: t.Name, label: titled(t.Name, t.Title), disabled: t.Disabled,
			about: t.Description, note: needsNote(m.needs[t.Name])})
	}
	for _, r := range cat.Resources {
		res = append(res, catalogEntry{kind: entryResource, key: r.URI, label: "Resource · " + r.Name + "  —  " + r.URI, disabled: r.Disabled})
	}
	for _, t := range cat.ResourceTemplates {
		res = append(res, catalogEntry{kind: entryTemplate, key: t.URITemplate, label: "Template · " + t.Name + "  —  " + t.URITemplate, disabled: t.Disabled})
	}
	for _, p := range cat.Prompts {
		prompts = append(prompts, catalogEntry{kind: entryPrompt, key: p.Name, label: titled(p.Name, p.Title), disabled: p.Disabled, about: p.Description})
	}
	m.tools.setEntries(tools)
	m.resources.setEntries(res)
	m.prompts.setEntries(prompts)
	if m.editor != nil {
		m.editor.SetMissingSecrets(m.needs[m.editor.Orig.Name])
	}
}

// readNeeds are, by tool, the secrets its templates read that have no
// value (none known without a secret store).
func (m *Manager) readNeeds(cat *catalog.Catalog) map[string][]string {
	if m.cfg.Secrets == nil {
		return nil
	}
	list, err := m.cfg.Secrets.ListSecrets(m.ctx())
	if err != nil {
		slog.Warn("listing the secrets", "err", err)
		return nil
	}
	var names []string
	for _, x := range list {
		names = append(names, x.Name)
	}
	return secretNeeds(cat, names)
}

// ------------------------------------------------------------------ Servers

func (m *Manager) serversTab() fyne.CanvasObject {
	m.servers = newServersTab(m.life, m.win, m.cfg)
	return m.servers.Content()
}

// ShowServer shows the server named name in the Servers tab.
func (m *Manager) ShowServer(name string) {
	for _, t := range m.tabs.Items {
		if t.Text == "Servers" {
			m.tabs.Select(t)
		}
	}
	m.servers.Show(name)
}

// ------------------------------------------------------------------ Activity

func (m *Manager) activityContent() fyne.CanvasObject {
	m.activity = newActivityTab(m.cfg)
	return m.activity.Content()
}

// ------------------------------------------------------------------ Settings

func (m *Manager) settingsTab() fyne.CanvasObject {
	m.settings = newSettingsTabFor(m.life, m.app, m.win, m.cfg)
	return m.settings.Content()
}

// ------------------------------------------------------------------ Welcome

// showWelcome greets a first start; then runs once it is closed.
func (m *Manager) showWelcome(then func()) {
	text := widget.NewLabel("mcptray serves tools you define to your AI assistants, on this computer.\n\n" +
		"1. Define — a few example tools are already in the Tools tab; edit them or add your own.\n" +
		"2. Connect — Server › Connect a client (in this window's menu, or the tray's) shows the exact entry for your assistant.\n" +
		"3. Use — ask your assistant; mcptray asks you here before anything destructive runs.")
	text.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustom("Welcome to mcptray", "Start", text, m.win)
	d.Resize(fyne.NewSize(560, 260))
	hideOnKeys(m.win, d)
	d.SetOnClosed(then)
	d.Show()
}
