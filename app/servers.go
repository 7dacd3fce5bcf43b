package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/app/words"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/gateway"
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/upstream"
)

// Upstreams says how the other MCP servers mcptray fronts run: only the
// serving process runs them (its upstream.Manager), so the window asks it,
// over the link.
type Upstreams interface {
	UpstreamStatus(ctx context.Context, name string) (upstream.Status, error)
}

// statusEvery is how often the Servers tab reads again how its servers
// run, while it shows. The serving process says nothing when a server
// starts, fails or writes a line, so the tab asks; it asks only while a
// person can see the answer (the tab selected, the window shown).
const statusEvery = 2 * time.Second

// ServersTab is the manager window's Servers tab: the other MCP servers
// (catalog.Upstream) whose tools mcptray serves, each with how it runs,
// whether it is on, how it is doing, its tools and the changes to them
// waiting for the person's approval; and the form that adds one.
type ServersTab struct {
	cfg  Config
	win  fyne.Window
	life context.Context
	// openURL opens an address in the person's browser (a server's
	// sign-in page).
	openURL func(*url.URL) error

	content fyne.CanvasObject
	intro   *widget.Label
	list    *widget.List
	rows    []serverRow
	// host shows the open server, the Add form, or a word on what to do.
	host *fyne.Container
	// open is the server shown, "" for none.
	open   string
	detail *serverDetail
	form   *serverForm

	// reads runs the status reads; read numbers them as they start, so
	// that an older one answering late is dropped.
	reads ui.Background
	read  int
	// watching ends the status reads of a tab no longer shown.
	watching context.CancelFunc
	// mu serializes what changes the list: on the real driver it runs on
	// the UI goroutine anyway; the test driver runs the change feed's
	// fyne.Do, and a status read's, inline on their goroutines.
	mu sync.Mutex
}

// introWords say what the tab lists; with none listed, how to add one.
const introWords = "Other AI tool servers you use (MCP servers), served to your AI apps through mcptray."

// serverRow is one server as the list shows it.
type serverRow struct {
	u       catalog.Upstream
	served  int // tools served: approved, not held back, on
	waiting int // changes waiting for approval
	status  upstream.Status
	// known: status was read (the serving process answered).
	known bool
}

// newServersTab builds the tab; it reads the servers at once.
func newServersTab(life context.Context, win fyne.Window, cfg Config) *ServersTab {
	s := &ServersTab{cfg: cfg, win: win, life: life, openURL: fyne.CurrentApp().OpenURL}
	s.list = widget.NewList(
		func() int { return len(s.rows) },
		func() fyne.CanvasObject {
			name := widget.NewLabelWithStyle("server", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
			name.Truncation = fyne.TextTruncateEllipsis
			how := widget.NewLabel("how")
			how.Truncation = fyne.TextTruncateEllipsis
			state := widget.NewLabel("state")
			state.Truncation = fyne.TextTruncateEllipsis
			return container.NewBorder(nil, nil, widget.NewCheck("", nil), nil, container.NewVBox(name, how, state))
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id >= len(s.rows) {
				return
			}
			r := s.rows[id]
			c := o.(*fyne.Container)
			lines := c.Objects[0].(*fyne.Container).Objects
			lines[0].(*widget.Label).SetText(r.u.Name + "  ·  " + countsWords(r.served, r.waiting))
			lines[1].(*widget.Label).SetText(howItRuns(r.u))
			said, imp := statusWords(r.u, r.status, r.known)
			state := lines[2].(*widget.Label)
			state.Importance = imp
			state.SetText(firstLine(said))
			check := c.Objects[1].(*widget.Check)
			check.OnChanged = nil
			check.SetChecked(!r.u.Disabled)
			name := r.u.Name
			check.OnChanged = func(on bool) { s.setEnabled(name, on) }
		},
	)
	s.list.OnSelected = func(id widget.ListItemID) {
		if id < len(s.rows) && s.rows[id].u.Name != s.open {
			s.Show(s.rows[id].u.Name)
		}
	}
	add := widget.NewButtonWithIcon("Add a server…", theme.ContentAddIcon(), s.ShowAdd)
	s.intro = ui.Hint(introWords)
	s.host = container.NewStack()
	left := container.NewBorder(s.intro, add, nil, nil, s.list)
	split := container.NewHSplit(left, s.host)
	split.Offset = 0.34
	s.content = split
	s.showIdle()
	s.Reload()
	return s
}

// Content is the tab's content.
func (s *ServersTab) Content() fyne.CanvasObject { return s.content }

// countsWords says how many tools a server has served and how many
// changes wait.
func countsWords(served, waiting int) string {
	out := words.Count(served, "tool served", "tools served")
	if waiting > 0 {
		out += ", " + words.Count(waiting, "change waits for you", "changes wait for you")
	}
	return out
}

// howItRuns is the command line that starts a server, or its web address.
func howItRuns(u catalog.Upstream) string {
	switch {
	case u.Command != nil:
		return "Runs " + strings.Join(u.Command.Argv, " ")
	case u.Remote != nil:
		how := "At " + u.Remote.URL
		if u.Remote.Transport == catalog.UpstreamSSE {
			how += " (older SSE transport)"
		}
		return how
	}
	return "Neither a command line nor a web address"
}

// statusWords says how a server is doing, and in which colour.
func statusWords(u catalog.Upstream, st upstream.Status, known bool) (string, widget.Importance) {
	at := func(t time.Time) string { return t.Local().Format("15:04:05") }
	switch {
	case u.Disabled:
		return "Off: not started, and its tools are not served", widget.LowImportance
	case !known:
		return "Asking mcptray how it runs…", widget.LowImportance
	}
	switch st.State {
	case upstream.Running:
		return "Running since " + at(st.Since), widget.SuccessImportance
	case upstream.Starting:
		return "Starting…", widget.MediumImportance
	case upstream.Failed:
		return "Failed: " + st.LastError, widget.DangerImportance
	case upstream.BackingOff:
		return fmt.Sprintf("Failed: %s\nmcptray tries again at %s", st.LastError, at(st.RetryAt)), widget.DangerImportance
	}
	if u.Start == catalog.UpstreamAtStart {
		return "Stopped: mcptray starts it again", widget.MediumImportance
	}
	return "Not running: it starts when an AI app first uses one of its tools", widget.MediumImportance
}

// firstLine is s up to its first line end.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// Reload reads the servers, their tools and their waiting changes from the
// store, then how they run from the serving process.
func (s *ServersTab) Reload() {
	s.reload()
	if s.watching != nil {
		// Only while shown: the change feed reloads after every write,
		// the activity log's included.
		s.readStatuses()
	}
}

// reload is Reload's reading of the store.
func (s *ServersTab) reload() {
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx := s.life
	c, err := s.cfg.Store.Catalog(ctx)
	if err != nil {
		slog.Error("reading the servers", "err", err)
		return
	}
	changes, err := s.cfg.Store.UpstreamChanges(ctx, "")
	if err != nil {
		slog.Error("reading the servers' changes", "err", err)
		return
	}
	before := map[string]serverRow{}
	for _, r := range s.rows {
		before[r.u.Name] = r
	}
	rows := make([]serverRow, 0, len(c.Upstreams))
	for _, u := range c.Upstreams {
		r := serverRow{u: u, status: before[u.Name].status, known: before[u.Name].known}
		for _, t := range c.Tools {
			if up := t.Action.Upstream; up != nil && up.Server == u.Name && !up.Held && !t.Disabled {
				r.served++
			}
		}
		for _, ch := range changes {
			if ch.Server == u.Name {
				r.waiting++
			}
		}
		rows = append(rows, r)
	}
	// The feed reloads after every write: the same rows again change
	// nothing, and the list does not move under the pointer.
	if !reflect.DeepEqual(rows, s.rows) {
		if len(rows) == 0 {
			s.intro.SetText(introWords + "\n\nNone yet: add one with Add a server.")
		} else {
			s.intro.SetText(introWords)
		}
		s.rows = rows
		s.list.Refresh()
		s.selectOpen()
	}
	if s.open != "" {
		if _, ok := s.row(s.open); !ok {
			s.idle() // removed meanwhile
		} else if s.detail != nil {
			s.detail.reload()
		}
	}
}

// row is the listed server named name.
func (s *ServersTab) row(name string) (serverRow, bool) {
	for _, r := range s.rows {
		if r.u.Name == name {
			return r, true
		}
	}
	return serverRow{}, false
}

// selectOpen highlights the server shown, and no other.
func (s *ServersTab) selectOpen() {
	for i, r := range s.rows {
		if r.u.Name == s.open {
			s.list.Select(i)
			return
		}
	}
	s.list.UnselectAll()
}

// readStatuses asks the serving process how each server runs, in the
// background; the answers show when they come.
func (s *ServersTab) readStatuses() {
	if s.cfg.Upstreams == nil {
		return
	}
	s.mu.Lock()
	s.read++
	n := s.read
	names := make([]string, len(s.rows))
	for i, r := range s.rows {
		names[i] = r.u.Name
	}
	s.mu.Unlock()
	got := map[string]upstream.Status{}
	s.reads.Run(func() {
		ctx, cancel := context.WithTimeout(s.life, startTimeout)
		defer cancel()
		for _, name := range names {
			st, err := s.cfg.Upstreams.UpstreamStatus(ctx, name)
			if err != nil {
				if s.life.Err() == nil {
					slog.Warn("asking how a server runs", "server", name, "err", err)
				}
				return
			}
			got[name] = st
		}
	}, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if n != s.read {
			return // a newer read started after this one
		}
		changed := false
		for i := range s.rows {
			if st, ok := got[s.rows[i].u.Name]; ok && (!s.rows[i].known || !reflect.DeepEqual(st, s.rows[i].status)) {
				s.rows[i].status, s.rows[i].known, changed = st, true, true
			}
		}
		if changed {
			s.list.Refresh()
		}
		if s.detail != nil {
			if r, ok := s.row(s.open); ok {
				s.detail.showStatus(r)
			}
		}
	})
}

// watch reads the statuses again every statusEvery while on: the tab is
// shown in a window shown.
func (s *ServersTab) watch(on bool) {
	if s.watching != nil {
		s.watching()
		s.watching = nil
	}
	if !on {
		return
	}
	ctx, cancel := context.WithCancel(s.life)
	s.watching = cancel
	s.readStatuses()
	go func() {
		tick := time.NewTicker(statusEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				fyne.Do(func() {
					if ctx.Err() == nil {
						s.readStatuses()
					}
				})
			}
		}
	}()
}

// setEnabled turns a server on or off.
func (s *ServersTab) setEnabled(name string, on bool) {
	if err := s.cfg.Store.SetUpstreamDisabled(s.life, name, !on); err != nil {
		dialog.ShowError(fmt.Errorf("turning the server %s %s: %w", name, onOff(on), err), s.win)
	}
	s.Reload()
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// showIdle says what the tab is for when nothing is open.
func (s *ServersTab) showIdle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.idle()
}

// idle is showIdle, s.mu held.
func (s *ServersTab) idle() {
	s.open, s.detail, s.form = "", nil, nil
	s.list.UnselectAll()
	idle := ui.WrapLabel("Select a server to see its tools and what waits for your approval, or add one with Add a server.")
	idle.Alignment = fyne.TextAlignCenter
	s.setHost(container.NewVBox(layout.NewSpacer(), idle, layout.NewSpacer()))
}

func (s *ServersTab) setHost(o fyne.CanvasObject) {
	s.host.Objects = []fyne.CanvasObject{o}
	s.host.Refresh()
}

// Show opens the server named name.
func (s *ServersTab) Show(name string) {
	s.mu.Lock() // a status read started before may be answering
	s.open, s.form = name, nil
	s.detail = newServerDetail(s, name)
	s.detail.reload()
	if r, ok := s.row(name); ok {
		s.detail.showStatus(r)
	}
	s.setHost(s.detail.content)
	s.selectOpen()
	s.mu.Unlock()
	s.readStatuses()
}

// ShowAdd opens the form that adds a server.
func (s *ServersTab) ShowAdd() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open, s.detail = "", nil
	s.list.UnselectAll()
	s.form = newServerForm(s)
	s.setHost(s.form.content)
}

// ShowEdit opens the form on the stored server u, to change how it runs.
func (s *ServersTab) ShowEdit(u catalog.Upstream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open, s.detail = "", nil
	s.list.UnselectAll()
	s.form = newServerForm(s)
	s.form.edit(u)
	s.setHost(s.form.content)
}

// serverDetail is the open server: how it runs, its changes waiting, its
// tools, what it wrote on standard error, and Remove.
type serverDetail struct {
	tab  *ServersTab
	name string

	content fyne.CanvasObject
	page    *container.Scroll
	// body is the page's column, laid out again when a section changes
	// its size.
	body    *fyne.Container
	how     *widget.Label
	state   *widget.Label
	changes *fyne.Container
	tools   *fyne.Container
	stderr  *widget.TextGrid
	// stderrScroll shows the last lines first: the newest say most.
	stderrScroll *container.Scroll
	// shown is what the sections show, so that a reload that reads the
	// same leaves them (and the person's scrolling) as they are.
	shown *serverData
	// signInBtn signs in to a server on the web again (signInAgain), and
	// signIn says where and how it went; work runs it.
	signInBtn *widget.Button
	signIn    signInNote
	work      ui.Background
}

// serverData is what the store holds of one server.
type serverData struct {
	u       catalog.Upstream
	tools   []catalog.Tool
	changes []record.UpstreamChange
}

func newServerDetail(tab *ServersTab, name string) *serverDetail {
	d := &serverDetail{tab: tab, name: name}
	title := widget.NewLabelWithStyle(name, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.Truncation = fyne.TextTruncateEllipsis
	d.how = ui.WrapLabel("")
	d.how.Selectable = true
	d.state = ui.WrapLabel("")
	refresh := widget.NewButtonWithIcon("Refresh", theme.ViewRefreshIcon(), tab.readStatuses)
	edit := widget.NewButtonWithIcon("Edit…", theme.DocumentCreateIcon(), func() {
		if d.shown != nil {
			tab.ShowEdit(d.shown.u)
		}
	})
	d.signInBtn = widget.NewButtonWithIcon("Sign in again…", theme.LoginIcon(), d.signInAgain)
	d.signInBtn.Hide()
	d.signIn = signInNote{says: ui.WrapLabel(""), link: widget.NewHyperlink("Open the sign-in page", nil)}
	d.signIn.says.Hide()
	d.signIn.link.Hide()
	remove := widget.NewButtonWithIcon("Remove…", theme.DeleteIcon(), d.confirmRemove)
	remove.Importance = widget.DangerImportance
	d.changes = container.NewVBox()
	d.tools = container.NewVBox()
	d.stderr = widget.NewTextGrid()
	d.stderrScroll = container.NewScroll(container.NewPadded(d.stderr))
	stderrBox := ui.MinHeight(220, ui.ChainWheel(d.stderrScroll))
	d.body = container.NewVBox(
		container.NewBorder(nil, nil, nil, container.NewHBox(edit, d.signInBtn, refresh), title),
		d.how, d.state, d.signIn.says, d.signIn.link,
		d.changes,
		heading("Its tools"),
		ui.Hint("On: served to your AI apps. Ask me first: mcptray asks you, on this computer, before each call."),
		d.tools,
		heading("What it wrote (standard error, the last 200 lines)"),
		stderrBox,
	)
	d.page = ui.NewPage(d.body)
	d.content = container.NewBorder(nil, container.NewHBox(remove, layout.NewSpacer()), nil, nil, d.page)
	return d
}

// reload reads the server again and shows what changed.
func (d *serverDetail) reload() {
	ctx, st := d.tab.life, d.tab.cfg.Store
	u, err := st.Upstream(ctx, d.name)
	if err != nil {
		slog.Warn("reading a server", "server", d.name, "err", err)
		return
	}
	tools, err := st.UpstreamTools(ctx, d.name)
	if err != nil {
		slog.Warn("reading a server's tools", "server", d.name, "err", err)
		return
	}
	changes, err := st.UpstreamChanges(ctx, d.name)
	if err != nil {
		slog.Warn("reading a server's changes", "server", d.name, "err", err)
		return
	}
	data := &serverData{u: u, tools: tools, changes: changes}
	if reflect.DeepEqual(d.shown, data) {
		return
	}
	d.shown = data
	start := "It starts when an AI app first uses one of its tools."
	if u.Start == catalog.UpstreamAtStart {
		start = "It starts with mcptray."
	}
	d.how.SetText(howItRuns(u) + "\n" + start + " Its tools are served as " + u.ToolPrefix() + "NAME.")
	if u.Remote != nil && d.tab.cfg.Secrets != nil {
		d.signInBtn.Show()
	} else {
		d.signInBtn.Hide()
	}
	d.showChanges(data)
	d.showTools(data)
	d.body.Refresh()
}

// showStatus shows how the server runs, and what it wrote.
func (d *serverDetail) showStatus(r serverRow) {
	said, imp := statusWords(r.u, r.status, r.known)
	if r.status.Protocol != "" && r.status.State == upstream.Running {
		said += " (MCP " + r.status.Protocol + ")"
	}
	d.state.Importance = imp
	d.state.SetText(said)
	text := strings.Join(r.status.Stderr, "\n")
	if len(r.status.Stderr) == 0 {
		text = "(nothing yet)"
	}
	if d.stderr.Text() != text {
		d.stderr.SetText(text)
		d.stderrScroll.Refresh()
		d.stderrScroll.ScrollToBottom()
	}
}

// showChanges lists the changes waiting, each said as what changed, with
// Approve buttons.
func (d *serverDetail) showChanges(data *serverData) {
	d.changes.RemoveAll()
	if len(data.changes) == 0 {
		d.changes.Add(ui.Hint("Nothing waits for your approval: its tools are served as you approved them."))
		return
	}
	all := widget.NewButton("Approve all", func() { d.approve(nil) })
	all.Importance = widget.HighImportance
	d.changes.Add(container.NewBorder(nil, nil, nil, all,
		heading(words.Count(len(data.changes), "change waits for your approval", "changes wait for your approval"))))
	d.changes.Add(ui.Hint("The server offers tools other than those you approved: until you approve, what changed is not served."))
	for _, c := range data.changes {
		lines := widget.NewLabel(readable(gateway.Explain(data.u, c, data.tools)))
		lines.Wrapping = fyne.TextWrapBreak
		lines.TextStyle = fyne.TextStyle{Monospace: true}
		tool := c.Tool
		one := widget.NewButton("Approve", func() { d.approve([]string{tool}) })
		d.changes.Add(container.NewBorder(nil, nil, nil, container.NewVBox(one), lines))
	}
}

// quotedValue is a value gateway.Explain writes quoted, Go's way, and
// what follows it (how much was cut).
var quotedValue = regexp.MustCompile(`^(.*?: )("(?:[^"\\]|\\.)*")(.*)$`)

// readable is a change's lines for people: the values Explain quotes
// (a description, a schema) as they read, not escaped — a schema's every
// quotation mark came out as \" — with what no one can see written out
// (words.Hidden), which the quoting was there to show.
func readable(lines []string) string {
	for i, l := range lines {
		m := quotedValue.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		v, err := strconv.Unquote(m[2])
		if err != nil {
			continue
		}
		v, _ = words.Hidden(v)
		lines[i] = m[1] + v + m[3]
	}
	return strings.Join(lines, "\n")
}

// approve approves the changes of the tools named (all when none).
func (d *serverDetail) approve(tools []string) {
	if _, err := gateway.Approve(d.tab.life, d.tab.cfg.Store, d.name, tools); err != nil {
		dialog.ShowError(fmt.Errorf("approving: %w", err), d.tab.win)
	}
	d.tab.Reload()
}

// showTools lists the server's tools, each with its switches.
func (d *serverDetail) showTools(data *serverData) {
	d.tools.RemoveAll()
	if len(data.tools) == 0 {
		d.tools.Add(ui.Hint("None approved yet."))
		return
	}
	for _, t := range data.tools {
		d.tools.Add(d.toolRow(t))
	}
}

// toolRow is one tool: on or off, its served name and its own, whether it
// asks first, and whether it is held back.
func (d *serverDetail) toolRow(t catalog.Tool) fyne.CanvasObject {
	name := t.Name
	on := widget.NewCheck("", func(on bool) {
		if err := d.tab.cfg.Store.SetToolDisabled(d.tab.life, name, !on); err != nil {
			dialog.ShowError(err, d.tab.win)
		}
		d.tab.Reload()
	})
	on.Checked = !t.Disabled
	ask := widget.NewCheck("Ask me first", func(yes bool) {
		if err := setAskFirst(d.tab.life, d.tab.cfg.Store, name, yes); err != nil {
			dialog.ShowError(err, d.tab.win)
		}
		d.tab.Reload()
	})
	ask.Checked = t.Approval == catalog.ApprovalAlways
	label := widget.NewLabel(t.Name + "   (its name: " + t.Action.Upstream.Tool + ")")
	label.Truncation = fyne.TextTruncateEllipsis
	if t.Disabled {
		label.Importance = widget.LowImportance
	}
	row := container.NewBorder(nil, nil, on, ask, label)
	if !t.Action.Upstream.Held {
		return row
	}
	held := widget.NewLabel("Held back: the server changed it; approve the change above to serve it again")
	held.Importance = widget.WarningImportance
	held.Wrapping = fyne.TextWrapWord
	return container.NewVBox(row, held)
}

// confirmRemove asks, then removes the server with its tools.
func (d *serverDetail) confirmRemove() {
	n := 0
	if d.shown != nil {
		n = len(d.shown.tools)
	}
	q := fmt.Sprintf("Remove the server %s? Its %s are no longer served to your AI apps, and what you set on them is lost.",
		d.name, words.Count(n, "tool", "tools"))
	confirmThen(d.tab.win, "Remove server", q, func() {
		if err := d.tab.cfg.Store.DeleteUpstream(d.tab.life, d.name); err != nil {
			dialog.ShowError(fmt.Errorf("removing the server %s: %w", d.name, err), d.tab.win)
		}
		d.tab.showIdle()
		d.tab.Reload()
	})
}
