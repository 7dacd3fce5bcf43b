package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// inspectorOrigins are the origins the MCP Inspector runs its page on.
var inspectorOrigins = []string{"http://localhost:6274", "http://127.0.0.1:6274"}

// PrefOpenTaskWindow is the preference (a bool, default false) to open the
// task window when a long call starts.
const PrefOpenTaskWindow = "openTaskWindowOnStart"

// askChoices are the ask policies as the Settings tab offers them.
var askChoices = []struct{ policy, label string }{
	{mcpcore.AskDeny, "Decline approvals and desktop forms"},
	{mcpcore.AskClientOnly, "Send desktop forms to the client when it can answer them"},
}

// numField is a number setting: its JSON field name and its entry.
type numField struct {
	key   string
	label string
	entry *widget.Entry
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

	tokens     *pickList[storage.TokenInfo]
	secrets    *pickList[storage.SecretInfo]
	secretNote *widget.Label
	// background counts the secret store calls under way (see
	// secretsSection).
	background background

	content fyne.CanvasObject
}

func (s *SettingsTab) ctx() context.Context { return context.Background() }

// newSettingsTabFor builds the Settings tab for win; a keeps the GUI
// preferences.
func newSettingsTabFor(a fyne.App, win fyne.Window, cfg Config) *SettingsTab {
	s := &SettingsTab{app: a, win: win, cfg: cfg, st: cfg.Store, sec: cfg.Secrets, errs: map[string]*widget.Label{}}
	s.status = widget.NewLabel("")
	s.status.Wrapping = fyne.TextWrapWord
	s.content = container.NewVScroll(container.NewPadded(container.NewVBox(
		s.serverSection(), widget.NewSeparator(),
		s.securitySection(), widget.NewSeparator(),
		s.secretsSection(), widget.NewSeparator(),
		s.limitsSection(), widget.NewSeparator(),
		s.headlessSection(), widget.NewSeparator(),
		s.saveRow(), widget.NewSeparator(),
		s.otherSection(),
	)))
	s.Reload()
	return s
}

// Content is the tab's content.
func (s *SettingsTab) Content() fyne.CanvasObject { return s.content }

// heading is a section's title.
func heading(t string) *widget.Label {
	return widget.NewLabelWithStyle(t, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
}

// hint is a line of small print under a field or section.
func hint(t string) *widget.Label {
	l := widget.NewLabel(t)
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.LowImportance
	return l
}

// withErr is a field with its error line under it.
func (s *SettingsTab) withErr(key string, o fyne.CanvasObject) fyne.CanvasObject {
	l := fieldError()
	s.errs[key] = l
	return container.NewVBox(o, l)
}

func (s *SettingsTab) serverSection() fyne.CanvasObject {
	s.name = widget.NewEntry()
	s.title = widget.NewEntry()
	s.instructions = widget.NewMultiLineEntry()
	s.instructions.Wrapping = fyne.TextWrapWord
	s.instructions.SetMinRowsVisible(3)
	s.port = widget.NewEntry()
	s.port.SetPlaceHolder(strconv.Itoa(mcpcore.DefaultPort))
	s.endpoint = widget.NewLabel("")
	s.endpoint.Selectable = true
	s.showEndpoint()
	return container.NewVBox(heading("Server"),
		widget.NewForm(
			widget.NewFormItem("Name", s.withErr("serverName", s.name)),
			widget.NewFormItem("Title", s.withErr("serverTitle", s.title)),
			widget.NewFormItem("Instructions", s.withErr("instructions", s.instructions)),
			widget.NewFormItem("Port", s.withErr("port", s.port)),
			widget.NewFormItem("Endpoint", s.endpoint),
			widget.NewFormItem("Database", widget.NewLabel(s.cfg.DB)),
		),
		hint("mcptray listens on 127.0.0.1 at this port (mcptray --addr overrides it for one run). Saving a new port moves the running server at once: the stdio shim follows by itself; client configs in the HTTP form name the URL and must be installed again."),
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

// securitySection holds the allowed browser origins (saved with the
// settings) and the client tokens.
func (s *SettingsTab) securitySection() fyne.CanvasObject {
	s.originBox = container.NewVBox()
	add := widget.NewButtonWithIcon("Add origin", theme.ContentAddIcon(), func() { s.addOrigin("") })
	inspector := widget.NewButton("Allow MCP Inspector", s.AllowInspector)
	return container.NewVBox(heading("Security"),
		widget.NewLabel("Allowed browser origins (beyond the server's own):"),
		s.withErr("allowedOrigins", s.originBox),
		container.NewHBox(add, inspector),
		s.tokensSection(),
	)
}

func (s *SettingsTab) limitsSection() fyne.CanvasObject {
	s.scope = widget.NewSelect([]string{"public", "private"}, nil)
	s.nums = []*numField{
		{key: "cacheTtlMs", label: "Cache TTL (ms)"},
		{key: "pageSize", label: "Page size"},
		{key: "requestStateTtlSeconds", label: "Request-state lifetime (s)"},
		{key: "maxBodyBytes", label: "Max request body (bytes)"},
		{key: "taskTtlMs", label: "Task TTL (ms)"},
		{key: "taskPollIntervalMs", label: "Task poll interval (ms)"},
		{key: "activityMaxRows", label: "Activity log: max rows"},
		{key: "activityMaxAgeDays", label: "Activity log: max age (days)"},
	}
	form := widget.NewForm()
	for i, n := range s.nums {
		n.entry = widget.NewEntry()
		form.Append(n.label, s.withErr(n.key, n.entry))
		if i == 0 {
			form.Append("Cache scope", s.withErr("cacheScope", s.scope))
		}
	}
	return container.NewVBox(heading("Caching & limits"), form)
}

func (s *SettingsTab) headlessSection() fyne.CanvasObject {
	var labels []string
	for _, c := range askChoices {
		labels = append(labels, c.label)
	}
	s.ask = widget.NewSelect(labels, nil)
	s.askNote = hint("")
	timeout := &numField{key: "askTimeoutSeconds", label: "Answer within (s)", entry: widget.NewEntry()}
	s.nums = append(s.nums, timeout)
	return container.NewVBox(heading("Questions"),
		widget.NewForm(widget.NewFormItem(timeout.label, s.withErr(timeout.key, timeout.entry))),
		hint("An approval or a form mcptray shows on the desktop waits this long; then it is declined, and the AI client is told nobody answered. The dialog shows the time left."),
		widget.NewLabel("When mcptray runs without its desktop app (mcptray serve):"),
		s.withErr("askPolicy", s.ask),
		s.askNote,
	)
}

// askPolicy is the policy the ask select shows.
func (s *SettingsTab) askPolicy() string {
	for _, c := range askChoices {
		if c.label == s.ask.Selected {
			return c.policy
		}
	}
	return ""
}

// showAskNote explains the ask policies; client-only forms live as long as
// the request-state lifetime.
func (s *SettingsTab) showAskNote(set mcpcore.Settings) {
	s.askNote.SetText(fmt.Sprintf("Nobody is at the desktop then, so approvals are always declined, saying why. Desktop forms are declined too, or sent to the AI client as questions when it can answer them; the client then has the request-state lifetime (%d s, under Caching & limits) to answer. Read when mcptray serve starts; mcptray serve --ask overrides it.", set.RequestStateTTLSeconds))
}

func (s *SettingsTab) saveRow() fyne.CanvasObject {
	save := widget.NewButtonWithIcon("Save settings", theme.DocumentSaveIcon(), func() { s.Save() })
	save.Importance = widget.HighImportance
	revert := widget.NewButton("Revert", s.Reload)
	return container.NewVBox(container.NewHBox(save, revert), s.status)
}

func (s *SettingsTab) otherSection() fyne.CanvasObject {
	box := container.NewVBox(heading("Other"))
	if al := startAtLogin(); al != nil {
		box.Add(al)
	}
	prefs := s.app.Preferences()
	taskWin := widget.NewCheck("Open the task window when a long call starts", func(on bool) {
		prefs.SetBool(PrefOpenTaskWindow, on)
	})
	taskWin.SetChecked(prefs.BoolWithFallback(PrefOpenTaskWindow, false))
	box.Add(taskWin)
	return box
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
	row = container.NewBorder(nil, nil, nil, rm, e)
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
	for _, c := range askChoices {
		if c.policy == set.AskPolicy {
			s.ask.SetSelected(c.label)
		}
	}
	s.showAskNote(set)
	s.scope.SetSelected(set.CacheScope)
	vals := map[string]int64{
		"cacheTtlMs": int64(set.CacheTTLMs), "pageSize": int64(set.PageSize),
		"requestStateTtlSeconds": int64(set.RequestStateTTLSeconds), "maxBodyBytes": set.MaxBodyBytes,
		"taskTtlMs": set.TaskTTLMs, "taskPollIntervalMs": set.TaskPollIntervalMs,
		"activityMaxRows": int64(set.ActivityMaxRows), "activityMaxAgeDays": int64(set.ActivityMaxAgeDays),
		"askTimeoutSeconds": int64(set.AskTimeoutSeconds),
	}
	for _, n := range s.nums {
		n.entry.SetText(strconv.FormatInt(vals[n.key], 10))
	}
	s.origins = nil
	s.originBox.RemoveAll()
	for _, o := range set.AllowedOrigins {
		s.addOrigin(o)
	}
	s.showProblems(nil)
	s.reloadTokens()
	s.reloadSecrets()
}

// Settings are the settings the form describes, with the problems of
// fields that are not numbers.
func (s *SettingsTab) Settings() (mcpcore.Settings, []mcpcore.Problem) {
	set, err := s.st.Settings(s.ctx())
	if err != nil {
		set = mcpcore.DefaultSettings()
	}
	set.ServerName = strings.TrimSpace(s.name.Text)
	set.ServerTitle = strings.TrimSpace(s.title.Text)
	set.Instructions = s.instructions.Text
	set.CacheScope = s.scope.Selected
	set.AllowedOrigins = s.Origins()
	set.AskPolicy = s.askPolicy()
	var ps []mcpcore.Problem
	if t := strings.TrimSpace(s.port.Text); t == "" {
		set.Port = 0
	} else if p, err := strconv.Atoi(t); err != nil {
		ps = append(ps, mcpcore.Problem{Field: "port", Message: "must be a whole number between 1 and 65535"})
	} else {
		set.Port = p
	}
	for _, n := range s.nums {
		v, err := strconv.ParseInt(strings.TrimSpace(n.entry.Text), 10, 64)
		if err != nil {
			ps = append(ps, mcpcore.Problem{Field: n.key, Message: "must be a whole number"})
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
		}
	}
	return set, ps
}

// showProblems puts every problem next to its field (in the status line
// when no field shows it) and clears the others.
func (s *SettingsTab) showProblems(ps []mcpcore.Problem) []string {
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
		setFieldError(l, by[k])
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
		var ve *mcpcore.ValidationError
		switch {
		case err == nil:
		case errors.As(err, &ve):
			ps = ve.Problems
		default:
			ps = []mcpcore.Problem{{Message: err.Error()}}
		}
	}
	s.showEndpoint()
	if len(ps) > 0 {
		other := s.showProblems(ps)
		msg := fmt.Sprintf("Not saved: %d problem(s), shown next to the fields.", len(ps))
		if len(other) > 0 {
			msg += "\n" + strings.Join(other, "\n")
		}
		s.status.SetText(msg)
		return false
	}
	s.showProblems(nil)
	s.showAskNote(set)
	msg := "Saved; the server applies them now."
	switch {
	case moved:
		msg = fmt.Sprintf("Saved; mcptray now serves on %s. The stdio shim follows by itself; client configs in the HTTP form still name port %d: install them again (tray menu ▸ Connect a client).", s.cfg.Server.URL(), oldPort)
	case portChanged && oldPort != set.ListenPort():
		msg = fmt.Sprintf("Saved; mcptray listens on port %d from its next start.", set.ListenPort())
	}
	s.loadedPort = set.ListenPort()
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
