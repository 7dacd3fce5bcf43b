package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/editor"
	"github.com/mcptray/mcptray/app/link"
	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/app/words"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/storage"
)

// cacheScopeChoices say who may reuse a cached list.
var cacheScopeChoices = ui.Choices{
	{Label: "any AI app (public)", Value: "public"},
	{Label: "only the AI app that asked (private)", Value: "private"},
}

// inspectorOrigins are the origins the MCP Inspector runs its page on.
var inspectorOrigins = []string{"http://localhost:6274", "http://127.0.0.1:6274"}

// prefOpenTaskWindowBefore is where mcptray kept the choice to open the
// task window when a task starts before it was stored in the database
// (link.StateOpenTaskWindow), which the serving process reads: a choice
// made then is carried over once.
const prefOpenTaskWindowBefore = "openTaskWindowOnStart"

// askChoices are the ask policies as the Settings tab offers them.
var askChoices = ui.Choices{
	{Label: "Decline them (deny)", Value: catalog.AskDeny},
	{Label: "Ask the AI app instead, if it can (client-only)", Value: catalog.AskClientOnly},
}

// numField is a number setting: its JSON field name and its entry, and
// how the tab words it: its label, its unit and what it does.
type numField struct {
	key         string
	label, unit string
	help        string
	// per is how many of the stored unit (milliseconds, bytes) one shown
	// unit (a second, a KB) is; 0 shows the number as stored. min and max
	// bound what may be typed, in the shown unit, for such a field: the
	// store's own message would say its bound in milliseconds or bytes.
	per      int64
	min, max float64
	entry    *widget.Entry
}

// shown is stored value v in the field's unit: 1500 ms is "1.5" seconds.
func (n *numField) shown(v int64) string {
	if n.per == 0 {
		return strconv.FormatInt(v, 10)
	}
	return strconv.FormatFloat(float64(v)/float64(n.per), 'f', -1, 64)
}

// stored reads the field as the stored value, or says what to type.
func (n *numField) stored() (int64, string) {
	text := strings.TrimSpace(n.entry.Text)
	if n.per == 0 {
		v, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return 0, "must be a whole number"
		}
		return v, ""
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(f) || f < n.min || f > n.max {
		return 0, fmt.Sprintf("must be a number of %s from %s to %s", n.unit, strconv.FormatFloat(n.min, 'f', -1, 64), strconv.FormatFloat(n.max, 'f', -1, 64))
	}
	return int64(math.Round(f * float64(n.per))), ""
}

// SettingsTab is the Settings tab: the server's settings (saved together
// through storage, so the running server applies them at once; problems
// show next to their fields), client tokens (tokens.go) and secrets
// (secrets.go), both changed at once, and start at login (autostart.go).
type SettingsTab struct {
	app fyne.App
	win fyne.Window
	cfg Config
	st  *storage.Store
	sec *storage.Secrets // nil when the secret store could not be opened
	// loadedPort is the port the field was filled with: only a port the
	// person types moves the server.
	loadedPort int
	// loaded is what the form said when Reload filled it or Save stored
	// it (formState): a form saying something else has unsaved changes.
	loaded string

	name, title, instructions *widget.Entry
	port                      *widget.Entry
	endpoint                  *widget.Label
	ask                       *widget.Select
	askNote                   *widget.Label
	scope                     *widget.Select
	nums                      []*numField
	origins                   []*widget.Entry
	originBox                 *fyne.Container
	// errs holds the error line of each field, by its JSON field name.
	errs   map[string]*widget.Label
	status *widget.Label
	// cols lines up the labels of the server settings' fields.
	cols   ui.LabelColumn
	scroll *container.Scroll

	tokens  *ui.PickList[storage.TokenInfo]
	secrets *ui.PickList[storage.SecretInfo]
	// listing serializes the lists' updates: the test driver runs the
	// change feed's fyne.Do on the feed's goroutine, beside a test's own.
	listing sync.Mutex
	// secretsSeq numbers the secrets list's reads (changeSecrets), and
	// secretsShown is the one the list shows (under listing).
	secretsSeq   atomic.Uint64
	secretsShown uint64
	secretNote   *widget.Label
	// missingBox has a field for each secret tools read that has no
	// value; missingShown is what it shows.
	missingBox   *fyne.Container
	missingShown []missingSecret
	// Background counts the secret store calls under way (see
	// secretsSection).
	background ui.Background

	content fyne.CanvasObject
}

func (s *SettingsTab) ctx() context.Context { return context.Background() }

// newSettingsTabFor builds the Settings tab for win, following what it
// lists until ctx ends; a keeps the GUI preferences. What applies at once comes first (this computer, client
// tokens, remembered approvals, secrets); then the server's settings,
// which apply when saved together with the Save settings button at their
// end — so no switch sits above a Save button it does not need.
func newSettingsTabFor(ctx context.Context, a fyne.App, win fyne.Window, cfg Config) *SettingsTab {
	s := &SettingsTab{app: a, win: win, cfg: cfg, st: cfg.Store, sec: cfg.Secrets, errs: map[string]*widget.Label{}}
	s.status = ui.WrapLabel("")
	s.scroll = ui.NewPage(container.NewPadded(container.NewVBox(
		s.computerSection(), widget.NewSeparator(),
		s.tokensSection(), widget.NewSeparator(),
		newApprovalsSection(ctx, cfg.Approvals, cfg.Store, win).Content(), widget.NewSeparator(),
		s.secretsSection(), widget.NewSeparator(),
		s.serverSettings(),
	)))
	s.content = s.scroll
	s.Reload()
	s.follow(ctx)
	return s
}

// Content is the tab's content.
func (s *SettingsTab) Content() fyne.CanvasObject { return s.content }

// heading is a section's title.
func heading(t string) *widget.Label {
	return widget.NewLabelWithStyle(t, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
}

// computerSection holds what this computer does, which applies at once.
func (s *SettingsTab) computerSection() fyne.CanvasObject {
	box := container.NewVBox(heading("This computer"), ui.Hint("These apply at once."))
	if al := startAtLogin(); al != nil {
		box.Add(al)
	}
	taskWin := widget.NewCheck("Open the task window when a long call starts", nil)
	taskWin.SetChecked(s.opensTaskWindow())
	taskWin.OnChanged = func(on bool) {
		if err := s.st.SetState(s.ctx(), link.StateOpenTaskWindow, on); err != nil {
			slog.Warn("keeping whether to open the task window", "err", err)
		}
	}
	box.Add(taskWin)
	return box
}

// opensTaskWindow says whether the task window opens when a task starts.
func (s *SettingsTab) opensTaskWindow() bool {
	if s.st == nil {
		return false
	}
	var on bool
	ok, err := s.st.State(s.ctx(), link.StateOpenTaskWindow, &on)
	if err != nil {
		slog.Warn("reading whether to open the task window", "err", err)
		return false
	}
	if !ok && s.app.Preferences().Bool(prefOpenTaskWindowBefore) {
		on = true
		if err := s.st.SetState(s.ctx(), link.StateOpenTaskWindow, on); err != nil {
			slog.Warn("keeping whether to open the task window", "err", err)
		}
	}
	return on
}

// serverSettings are the settings saved together, with their Save row.
func (s *SettingsTab) serverSettings() fyne.CanvasObject {
	return container.NewVBox(
		heading("Server settings"),
		ui.Hint("Saved together with Save settings, at the end of this page; the running server applies them at once."),
		s.serverSection(), widget.NewSeparator(),
		s.originsSection(), widget.NewSeparator(),
		s.limitsSection(), widget.NewSeparator(),
		s.headlessSection(), widget.NewSeparator(),
		s.saveRow())
}

// field is a row of the server settings: the label, then the input with
// its error line under it (the line of the setting key, "" for none) and
// what it does.
func (s *SettingsTab) field(label, key string, obj fyne.CanvasObject, help string) fyne.CanvasObject {
	box := container.NewVBox(ui.Input(obj))
	if key != "" {
		box.Add(s.errLine(key))
	}
	if help != "" {
		box.Add(ui.Hint(help))
	}
	return s.cols.Row(label, box)
}

// numberField is a row of the server settings for a number.
func (s *SettingsTab) numberField(n *numField) fyne.CanvasObject {
	n.entry = widget.NewEntry()
	return s.field(n.label, n.key, container.NewHBox(ui.FixedWidth(ui.NumberWidth, n.entry), widget.NewLabel(n.unit)), n.help)
}

// errLine is a new error line for the setting key.
func (s *SettingsTab) errLine(key string) *widget.Label {
	l := ui.FieldError()
	s.errs[key] = l
	return l
}

func (s *SettingsTab) serverSection() fyne.CanvasObject {
	s.name = widget.NewEntry()
	s.title = widget.NewEntry()
	s.instructions = widget.NewMultiLineEntry()
	s.instructions.Wrapping = fyne.TextWrapWord
	s.instructions.SetMinRowsVisible(3)
	s.port = widget.NewEntry()
	s.port.SetPlaceHolder(strconv.Itoa(catalog.DefaultPort))
	s.endpoint = widget.NewLabel("")
	s.endpoint.Selectable = true
	s.endpoint.Wrapping = fyne.TextWrapBreak
	s.showEndpoint()
	db := widget.NewLabel(s.cfg.DB)
	db.Wrapping = fyne.TextWrapBreak // a path has no spaces to wrap at
	db.Selectable = true
	return container.NewVBox(heading("Server"),
		s.field("Name", "serverName", s.name, "The name AI apps know this server by (serverName)."),
		s.field("Title", "serverTitle", s.title, "A friendlier name some AI apps show (serverTitle)."),
		s.field("Instructions", "instructions", s.instructions,
			"Told to the AI app when it connects: when and how to use these tools (instructions)."),
		s.field("Port", "port", ui.FixedWidth(ui.NumberWidth, s.port),
			"mcptray listens on 127.0.0.1 at this port (mcptray --addr overrides it for one run). Saving a new port moves the running server at once: the stdio shim follows by itself; AI apps set up over HTTP name the address and must be set up again."),
		s.field("Address", "", s.endpoint, ""),
		s.field("Database", "", db, ""),
	)
}

// showEndpoint shows where the server listens now.
func (s *SettingsTab) showEndpoint() {
	if s.cfg.Server == nil {
		s.endpoint.SetText("not serving")
		return
	}
	s.endpoint.SetText(s.cfg.Server.URL())
}

// originsSection holds the allowed browser origins.
func (s *SettingsTab) originsSection() fyne.CanvasObject {
	s.originBox = container.NewVBox()
	add := widget.NewButtonWithIcon("Add origin", theme.ContentAddIcon(), func() { s.addOrigin("") })
	inspector := widget.NewButton("Allow MCP Inspector", s.AllowInspector)
	return container.NewVBox(heading("Web pages"),
		s.field("Allowed origins", "allowedOrigins", container.NewVBox(s.originBox, container.NewHBox(add, inspector)),
			"Web pages that may call mcptray from a browser, besides mcptray's own address (allowedOrigins). The MCP Inspector needs its two."),
	)
}

// activityMB is the activity log's size limit in megabytes, shown beside
// its row limit: it is not a setting, and must not be a surprise.
const activityMB = storage.DefaultActivityMaxBytes / 1_000_000

func (s *SettingsTab) limitsSection() fyne.CanvasObject {
	s.scope = widget.NewSelect(cacheScopeChoices.Labels(), nil)
	s.nums = []*numField{
		{key: "cacheTtlMs", label: "Lists stay fresh for", unit: "seconds", per: 1000, max: 86_400,
			help: "How long AI apps may reuse a list of tools, resources or prompts before asking again (cacheTtlMs)."},
		{key: "pageSize", label: "Items per list", unit: "items",
			help: "How many tools, resources or prompts one answer to a list request holds (pageSize)."},
		{key: "requestStateTtlSeconds", label: "Time to answer a step", unit: "seconds",
			help: "How long an AI app may take to answer the questions a tool's steps ask it (requestStateTtlSeconds)."},
		{key: "maxBodyBytes", label: "Largest request", unit: "KB", per: 1024, min: 1, max: 1 << 30,
			help: "Larger requests are refused, with HTTP status 413; 1024 KB is 1 MB (maxBodyBytes)."},
		{key: "taskTtlMs", label: "Keep background calls", unit: "seconds", per: 1000, min: 1, max: 30 * 86_400,
			help: "How long a call that runs in the background, and its result, is kept after it started; an hour is 3600 seconds, a day 86400 (taskTtlMs)."},
		{key: "taskPollIntervalMs", label: "Progress checks every", unit: "seconds", per: 1000, min: 0.1, max: 3600,
			help: "How often AI apps are told to ask how a background call is going (taskPollIntervalMs)."},
		{key: "activityMaxRows", label: "Activity: keep the latest", unit: fmt.Sprintf("requests, up to %d MB", activityMB),
			help: fmt.Sprintf("Beyond either, the oldest requests leave the activity log. %d MB of disk space holds over 100,000 ordinary requests; an AI app that sends very long names or messages fills it sooner, and those are kept cut short, saying where (activityMaxRows).", activityMB)},
		{key: "activityMaxAgeDays", label: "Activity: keep for", unit: "days",
			help: "Older requests leave the activity log (activityMaxAgeDays)."},
		{key: "maxCallsPerToken", label: "Calls at once, per token", unit: "calls",
			help: "How many tool calls, reads and prompts one client token may have running at once; more are refused until one ends (maxCallsPerToken)."},
		{key: "maxTasksPerToken", label: "Background calls, per token", unit: "calls",
			help: "How many background calls one client token may have running or waiting at once (maxTasksPerToken)."},
		{key: "maxWaitingTasksPerToken", label: "Waiting background calls, per token", unit: "calls",
			help: "How many background calls of one client token may wait for an answer from the AI app at once (maxWaitingTasksPerToken)."},
		{key: "maxSessionsPerToken", label: "Open connections, per token", unit: "connections",
			help: "How many connections AI apps that speak the older protocol may keep open with one client token; a new one closes the one used least recently (sessions, maxSessionsPerToken)."},
		{key: "maxResultBytes", label: "Largest answer", unit: "KB", per: 1024, min: 64, max: 1 << 20,
			help: "A tool result, resource or prompt larger than this once encoded is refused with an error saying so; 1024 KB is 1 MB (maxResultBytes)."},
	}
	box := container.NewVBox(heading("Caching & limits"))
	for i, n := range s.nums {
		box.Add(s.numberField(n))
		if i == 0 {
			box.Add(s.field("Who may reuse a list", "cacheScope", s.scope,
				"Whether caches between AI apps and mcptray may share the lists they keep (cacheScope)."))
		}
	}
	return box
}

func (s *SettingsTab) headlessSection() fyne.CanvasObject {
	s.ask = widget.NewSelect(askChoices.Labels(), nil)
	s.askNote = ui.Hint("")
	timeout := &numField{key: "askTimeoutSeconds", label: "Answer within", unit: "seconds",
		help: "An approval or a form mcptray shows on this computer waits this long; then it is declined, and the AI app is told nobody answered. Its window shows the time left (askTimeoutSeconds)."}
	s.nums = append(s.nums, timeout)
	return container.NewVBox(heading("Questions"),
		s.numberField(timeout),
		s.cols.Row("Without the app", container.NewVBox(
			ui.WrapLabel("When mcptray serves without its desktop app (mcptray serve), questions meant for this computer are:"),
			s.ask, s.errLine("askPolicy"), s.askNote)),
	)
}

// askPolicy is the policy the ask select shows.
func (s *SettingsTab) askPolicy() string { return askChoices.ValueOf(s.ask.Selected) }

// showAskNote explains the ask policies; client-only forms live as long as
// the time to answer a step.
func (s *SettingsTab) showAskNote(set catalog.Settings) {
	s.askNote.SetText(fmt.Sprintf("Nobody is at this computer then, so approvals are always declined, saying why. Forms are declined too, or sent to the AI app when it can answer them; it then has the time to answer a step (%d seconds, under Caching & limits). Read when mcptray serve starts; mcptray serve --ask overrides it (askPolicy).", set.RequestStateTTLSeconds))
}

func (s *SettingsTab) saveRow() fyne.CanvasObject {
	save := widget.NewButtonWithIcon("Save settings", theme.DocumentSaveIcon(), func() { s.Save() })
	save.Importance = widget.HighImportance
	revert := widget.NewButton("Revert", s.Reload)
	return container.NewVBox(container.NewHBox(save, revert), s.status)
}

// ------------------------------------------------------------ origins

func (s *SettingsTab) addOrigin(o string) {
	e := widget.NewEntry()
	e.SetPlaceHolder("http://localhost:6274")
	e.SetText(o)
	var row *fyne.Container
	rm := widget.NewButtonWithIcon("", theme.ContentRemoveIcon(), func() {
		s.origins = slices.DeleteFunc(s.origins, func(x *widget.Entry) bool { return x == e })
		s.originBox.Remove(row)
	})
	row = container.NewBorder(nil, nil, nil, rm, ui.Input(e))
	s.origins = append(s.origins, e)
	s.originBox.Add(row)
}

// Origins are the origins the list holds (blank rows left out).
func (s *SettingsTab) Origins() []string {
	var out []string
	for _, e := range s.origins {
		if t := strings.TrimSpace(e.Text); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// AllowInspector adds the MCP Inspector's origins and saves.
func (s *SettingsTab) AllowInspector() {
	have := s.Origins()
	for _, o := range inspectorOrigins {
		if !slices.Contains(have, o) {
			s.addOrigin(o)
		}
	}
	s.Save()
}

// ------------------------------------------------------------ settings

// Reload fills the form from storage and clears problems.
func (s *SettingsTab) Reload() {
	set, err := s.st.Settings(s.ctx())
	if err != nil {
		s.status.SetText("Could not read the settings: " + err.Error())
		return
	}
	s.name.SetText(set.ServerName)
	s.title.SetText(set.ServerTitle)
	s.instructions.SetText(set.Instructions)
	s.port.SetText(strconv.Itoa(set.ListenPort()))
	s.loadedPort = set.ListenPort()
	s.showEndpoint()
	s.ask.SetSelected("")
	if set.AskPolicy != "" {
		s.ask.SetSelected(askChoices.LabelOf(set.AskPolicy))
	}
	s.showAskNote(set)
	s.scope.SetSelected(cacheScopeChoices.LabelOf(set.CacheScope))
	vals := map[string]int64{
		"cacheTtlMs": int64(set.CacheTTLMs), "pageSize": int64(set.PageSize),
		"requestStateTtlSeconds": int64(set.RequestStateTTLSeconds), "maxBodyBytes": set.MaxBodyBytes,
		"taskTtlMs": set.TaskTTLMs, "taskPollIntervalMs": set.TaskPollIntervalMs,
		"activityMaxRows": int64(set.ActivityMaxRows), "activityMaxAgeDays": int64(set.ActivityMaxAgeDays),
		"askTimeoutSeconds": int64(set.AskTimeoutSeconds),
		"maxCallsPerToken":  int64(set.MaxCallsPerToken), "maxTasksPerToken": int64(set.MaxTasksPerToken),
		"maxWaitingTasksPerToken": int64(set.MaxWaitingTasksPerToken), "maxSessionsPerToken": int64(set.MaxSessionsPerToken),
		"maxResultBytes": set.MaxResultBytes,
	}
	for _, n := range s.nums {
		n.entry.SetText(n.shown(vals[n.key]))
	}
	s.origins = nil
	s.originBox.RemoveAll()
	for _, o := range set.AllowedOrigins {
		s.addOrigin(o)
	}
	s.showProblems(nil)
	s.loaded = s.formState()
	s.reloadTokens()
	s.reloadSecrets()
}

// Unsaved says whether the server settings in the form differ from what
// was loaded or last saved, a field that is not a number included.
func (s *SettingsTab) Unsaved() bool { return s.formState() != s.loaded }

// formState is what the form says, as the settings it describes and the
// fields that describe none.
func (s *SettingsTab) formState() string {
	set, ps := s.Settings()
	b, err := json.Marshal(struct {
		Set      catalog.Settings
		Problems []catalog.Problem
	}{set, ps})
	if err != nil { // cannot happen: plain fields
		return err.Error()
	}
	return string(b)
}

// Settings are the settings the form describes, with the problems of
// fields that are not numbers.
func (s *SettingsTab) Settings() (catalog.Settings, []catalog.Problem) {
	set, err := s.st.Settings(s.ctx())
	if err != nil {
		set = catalog.DefaultSettings()
	}
	set.ServerName = strings.TrimSpace(s.name.Text)
	set.ServerTitle = strings.TrimSpace(s.title.Text)
	set.Instructions = s.instructions.Text
	set.CacheScope = cacheScopeChoices.ValueOf(s.scope.Selected)
	set.AllowedOrigins = s.Origins()
	set.AskPolicy = s.askPolicy()
	var ps []catalog.Problem
	if t := strings.TrimSpace(s.port.Text); t == "" {
		set.Port = 0
	} else if p, err := strconv.Atoi(t); err != nil {
		ps = append(ps, catalog.Problem{Field: "port", Message: "must be a whole number between 1 and 65535"})
	} else {
		set.Port = p
	}
	for _, n := range s.nums {
		v, bad := n.stored()
		if bad != "" {
			ps = append(ps, catalog.Problem{Field: n.key, Message: bad})
			continue
		}
		switch n.key {
		case "cacheTtlMs":
			set.CacheTTLMs = int(v)
		case "pageSize":
			set.PageSize = int(v)
		case "requestStateTtlSeconds":
			set.RequestStateTTLSeconds = int(v)
		case "maxBodyBytes":
			set.MaxBodyBytes = v
		case "taskTtlMs":
			set.TaskTTLMs = v
		case "taskPollIntervalMs":
			set.TaskPollIntervalMs = v
		case "activityMaxRows":
			set.ActivityMaxRows = int(v)
		case "activityMaxAgeDays":
			set.ActivityMaxAgeDays = int(v)
		case "askTimeoutSeconds":
			set.AskTimeoutSeconds = int(v)
		case "maxCallsPerToken":
			set.MaxCallsPerToken = int(v)
		case "maxTasksPerToken":
			set.MaxTasksPerToken = int(v)
		case "maxWaitingTasksPerToken":
			set.MaxWaitingTasksPerToken = int(v)
		case "maxSessionsPerToken":
			set.MaxSessionsPerToken = int(v)
		case "maxResultBytes":
			set.MaxResultBytes = v
		}
	}
	return set, ps
}

// showProblems puts every problem next to its field (in the status line
// when no field shows it) and clears the others.
func (s *SettingsTab) showProblems(ps []catalog.Problem) []string {
	by := map[string][]string{}
	var other []string
	for _, p := range ps {
		if _, ok := s.errs[p.Field]; ok {
			by[p.Field] = append(by[p.Field], p.Message)
		} else {
			other = append(other, strings.TrimPrefix(p.Field+": ", ": ")+p.Message)
		}
	}
	for k, l := range s.errs {
		ui.SetFieldError(l, by[k])
	}
	return other
}

// Save validates the settings and stores them; the running server applies
// them at once. A port the person typed moves the server there first
// (Server.SaveSettings; a taken port stores nothing). It reports whether
// it saved.
func (s *SettingsTab) Save() bool {
	set, ps := s.Settings()
	ps = append(ps, set.Problems()...)
	// Only a port the person typed moves the server, from the port it
	// serves on now (--addr, or a change made with the command line, may
	// differ from the stored one).
	portChanged, moved, oldPort := set.ListenPort() != s.loadedPort, false, s.loadedPort
	if served, ok := s.servedPort(); ok {
		oldPort = served
	}
	if len(ps) == 0 {
		var err error
		if s.cfg.Server != nil {
			moved, err = s.cfg.Server.SaveSettings(s.ctx(), set, portChanged)
		} else {
			err = s.st.PutSettings(s.ctx(), set)
		}
		var ve *catalog.ValidationError
		switch {
		case err == nil:
		case errors.As(err, &ve):
			ps = ve.Problems
		default:
			ps = []catalog.Problem{{Message: err.Error()}}
		}
	}
	s.showEndpoint()
	if len(ps) > 0 {
		ps = editor.UniqueProblems(ps)
		other := s.showProblems(ps)
		msg := fmt.Sprintf("Not saved: %s, shown in red next to the fields.", words.Count(len(ps), "problem", "problems"))
		if len(other) == len(ps) {
			msg = fmt.Sprintf("Not saved: %s.", words.Count(len(ps), "problem", "problems"))
		}
		if len(other) > 0 {
			msg += "\n" + strings.Join(other, "\n")
		}
		s.status.SetText(msg)
		if len(other) < len(ps) {
			ui.RevealFirstProblem(s.scroll)
		}
		return false
	}
	s.showProblems(nil)
	s.showAskNote(set)
	msg := "Saved; the server applies them now."
	switch {
	case moved:
		msg = fmt.Sprintf("Saved; mcptray now serves on %s. The stdio shim follows by itself; client configs in the HTTP form still name port %d: install them again (tray menu › Connect a client).", s.cfg.Server.URL(), oldPort)
	case portChanged && oldPort != set.ListenPort():
		msg = fmt.Sprintf("Saved; mcptray listens on port %d from its next start.", set.ListenPort())
	}
	s.loadedPort = set.ListenPort()
	s.loaded = s.formState()
	s.status.SetText(msg)
	return true
}

// servedPort is the port the running server listens on, if it runs.
func (s *SettingsTab) servedPort() (int, bool) {
	if s.cfg.Server == nil {
		return 0, false
	}
	u, err := url.Parse(s.cfg.Server.URL())
	if err != nil {
		return 0, false
	}
	p, err := strconv.Atoi(u.Port())
	return p, err == nil
}
