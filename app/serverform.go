package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/app/words"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/credential"
	"github.com/mcptray/mcptray/internal/gateway"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/mcptray/mcptray/storage"
	"github.com/mcptray/mcptray/upstream"
)

// testTimeout bounds a Test: a first `npx -y` or `uvx` downloads the
// server before it starts.
const testTimeout = upstream.DefaultStartTimeout + 30*time.Second

// The ways a server is reached, as the form words them.
const (
	runsProgram = "A program on this computer (a command line)"
	runsWeb     = "A web address"
)

// startChoices are when a server starts, as people read it.
var startChoices = ui.Choices{
	{Label: "When an AI app first uses one of its tools (on use)", Value: catalog.UpstreamOnUse},
	{Label: "With mcptray (at start)", Value: catalog.UpstreamAtStart},
}

// serverForm adds a server: how it runs, its environment or headers
// (credentials go to the secret store), its prefix, when it starts, a
// Test that lists the tools it offers, and Save, which serves them as
// tested.
type serverForm struct {
	tab *ServersTab

	content fyne.CanvasObject
	page    *container.Scroll
	// body is the page's column, laid out again as the Test's outcome
	// shows.
	body    *fyne.Container
	name    *widget.Entry
	kind    *widget.RadioGroup
	command *widget.Entry
	dir     *widget.Entry
	env     *widget.Entry
	url     *widget.Entry
	sse     *widget.Check
	headers *widget.Entry
	prefix  *widget.Entry
	start   *widget.Select

	program, web *fyne.Container
	problems     *widget.Label
	result       *widget.Label
	// signIn says where the person signs in while the Test waits.
	signIn  signInNote
	offered *widget.Label
	busy    *widget.ProgressBarInfinite
	testBtn *widget.Button
	saveBtn *widget.Button

	// prefixTyped: the person typed a prefix; until then it follows the
	// name (NAME_).
	prefixTyped bool
	// editing is the stored server the form edits, nil for a new one:
	// what the form does not show of it is kept.
	editing *catalog.Upstream
	title   *widget.Label
	// tested is the definition last tested and the tools it offered; Save
	// serves those when the form still says the same.
	tested      *catalog.Upstream
	testedTools []*mcp.Tool
	// work runs Test and Save.
	work ui.Background
}

func newServerForm(tab *ServersTab) *serverForm {
	f := &serverForm{tab: tab}
	f.name = widget.NewEntry()
	f.name.SetPlaceHolder("e.g. github (letters, digits, _ - .)")
	f.prefix = widget.NewEntry()
	f.name.OnChanged = func(n string) {
		if !f.prefixTyped {
			f.prefix.SetText(n + "_")
		}
	}
	f.prefix.OnChanged = func(p string) { f.prefixTyped = p != f.name.Text+"_" }
	f.command = widget.NewEntry()
	f.command.SetPlaceHolder("e.g. npx -y @modelcontextprotocol/server-github")
	f.dir = widget.NewEntry()
	f.dir.SetPlaceHolder("(optional) the folder it runs in")
	f.env = widget.NewMultiLineEntry()
	f.env.SetPlaceHolder("GITHUB_TOKEN=ghp_…   (one NAME=value a line)")
	f.env.SetMinRowsVisible(3)
	f.url = widget.NewEntry()
	f.url.SetPlaceHolder("e.g. https://example.com/mcp")
	f.sse = widget.NewCheck("It speaks the older SSE transport (HTTP+SSE)", nil)
	f.headers = widget.NewMultiLineEntry()
	f.headers.SetPlaceHolder("Authorization: Bearer …   (one Name: value a line)")
	f.headers.SetMinRowsVisible(3)
	f.start = ui.NewChoiceSelect(startChoices, catalog.UpstreamOnUse)

	f.program = container.NewVBox(
		ui.Labelled("Command line (as typed in a terminal: the program, then its arguments)", f.command),
		ui.Labelled("Folder", f.dir),
		ui.Labelled("Environment values", f.env),
	)
	f.web = container.NewVBox(
		ui.Labelled("Web address", f.url),
		f.sse,
		ui.Labelled("Headers sent with each request", f.headers),
	)
	f.kind = widget.NewRadioGroup([]string{runsProgram, runsWeb}, func(k string) {
		f.program.Hidden = k != runsProgram
		f.web.Hidden = k != runsWeb
		f.program.Refresh()
		f.web.Refresh()
	})
	f.kind.Horizontal = true
	f.kind.SetSelected(runsProgram)

	f.problems = ui.FieldError()
	f.result = ui.WrapLabel("")
	f.result.Hide()
	f.signIn = signInNote{says: f.result, link: widget.NewHyperlink("Open the sign-in page", nil)}
	f.signIn.link.Hide()
	f.offered = widget.NewLabel("")
	f.offered.TextStyle = fyne.TextStyle{Monospace: true}
	f.offered.Wrapping = fyne.TextWrapBreak
	f.offered.Hide()
	f.busy = widget.NewProgressBarInfinite()
	f.busy.Stop()
	f.busy.Hide()
	f.testBtn = widget.NewButtonWithIcon("Test", theme.MediaPlayIcon(), f.Test)
	f.saveBtn = widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), f.Save)
	f.saveBtn.Importance = widget.HighImportance
	cancel := widget.NewButton("Cancel", func() {
		if f.editing != nil {
			tab.Show(f.editing.Name)
			return
		}
		tab.showIdle()
	})

	secretHint := "A value whose name looks like a credential (a token, a key, a password) is kept in the secret store, not in mcptray's database."
	f.title = heading("Add a server")
	f.body = container.NewVBox(
		f.title,
		ui.Hint("Another AI tool server (an MCP server) you use: mcptray serves its tools to your AI apps, each as you approved it, and holds back what the server changes until you approve that too."),
		ui.Labelled("Name", f.name),
		widget.NewLabel("How mcptray reaches it"),
		f.kind,
		f.program, f.web,
		ui.Hint(secretHint),
		ui.Labelled("Its tools are served under the names (prefix + their own name)", f.prefix),
		ui.Labelled("It starts", f.start),
		f.problems,
		f.busy, f.result, f.signIn.link, f.offered,
	)
	f.page = ui.NewPage(f.body)
	buttons := container.NewHBox(cancel, layout.NewSpacer(), f.testBtn, f.saveBtn)
	f.content = container.NewBorder(nil, buttons, nil, nil, f.page)
	return f
}

// definition is the server the form describes, its values as typed (a
// credential not in the secret store yet), or the problems that keep it
// from being one.
func (f *serverForm) definition() (catalog.Upstream, []string) {
	var u catalog.Upstream
	if f.editing != nil {
		u = *f.editing
	}
	u.Name, u.Start, u.Prefix = strings.TrimSpace(f.name.Text), startChoices.ValueOf(f.start.Selected), nil
	if p := strings.TrimSpace(f.prefix.Text); p != u.Name+"_" {
		u.Prefix = &p
	}
	var problems []string
	if f.kind.Selected == runsWeb {
		var r catalog.UpstreamRemote
		if u.Remote != nil {
			r = *u.Remote
		}
		r.URL, r.Transport = strings.TrimSpace(f.url.Text), ""
		if f.sse.Checked {
			r.Transport = catalog.UpstreamSSE
		}
		var err error
		if r.Headers, err = valueLines(f.headers.Text, ":"); err != nil {
			problems = append(problems, "headers: "+err.Error())
		}
		u.Remote, u.Command = &r, nil
	} else {
		argv, err := actions.SplitCommandLine(strings.TrimSpace(f.command.Text))
		if err != nil {
			problems = append(problems, "command line: "+err.Error())
		}
		var c catalog.UpstreamCommand
		if u.Command != nil {
			c = *u.Command
		}
		c.Dir, c.Argv = strings.TrimSpace(f.dir.Text), nil
		for _, a := range argv {
			c.Argv = append(c.Argv, string(a))
		}
		if c.Env, err = valueLines(f.env.Text, "="); err != nil {
			problems = append(problems, "environment: "+err.Error())
		}
		u.Command, u.Remote = &c, nil
	}
	for _, p := range mcpcore.ValidateUpstream(u) {
		problems = append(problems, p.Message)
	}
	return u, problems
}

// valueLines reads "NAME<sep>value" lines; empty lines are skipped.
func valueLines(text, sep string) (map[string]catalog.Template, error) {
	out := map[string]catalog.Template{}
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		k, v, ok := strings.Cut(line, sep)
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%q: write it as NAME%svalue", line, sep)
		}
		out[k] = catalog.Template(strings.TrimSpace(v))
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// Test connects to the server as the form describes it, in the
// background, and lists the tools it offers.
func (f *serverForm) Test() {
	u, problems := f.definition()
	if !f.showProblems(problems) {
		return
	}
	f.run(u, func(tools []*mcp.Tool, err error) {
		f.showTested(u, tools, err)
	}, nil)
}

// run tests u off the GUI thread, then calls done on it; save, when set,
// runs after a good test, still off the GUI thread, and its error is
// done's.
func (f *serverForm) run(u catalog.Upstream, done func([]*mcp.Tool, error), save func([]*mcp.Tool) error) {
	f.busyWith("Connecting to " + u.Name + "… (a first npx or uvx may take a minute to download it)")
	cfg := f.tab.runConfig(f.signIn, strings.TrimSpace(f.name.Text), f.reveal)
	var tools []*mcp.Tool
	var err error
	reuse := f.tested != nil && reflect.DeepEqual(*f.tested, u)
	if reuse {
		tools = f.testedTools
	}
	f.work.Run(func() {
		limit := testTimeout
		if u.Remote != nil {
			// It may wait for the person to sign in, in their browser.
			limit = max(limit, upstream.DefaultSignInTimeout+30*time.Second)
		}
		ctx, cancel := context.WithTimeout(f.tab.life, limit)
		defer cancel()
		if !reuse {
			tools, err = upstream.Test(ctx, u, cfg)
		}
		if err == nil && save != nil {
			err = save(tools)
		}
	}, func() {
		f.busyWith("")
		done(tools, err)
	})
}

// busyWith shows what is under way ("" for nothing), with the buttons off
// meanwhile.
func (f *serverForm) busyWith(what string) {
	on := what != ""
	ui.Enable(f.testBtn, !on)
	ui.Enable(f.saveBtn, !on)
	if on {
		f.result.Importance = widget.MediumImportance
		f.result.SetText(what)
		f.result.Show()
		f.offered.Hide()
		f.busy.Show()
		f.busy.Start()
	} else {
		f.busy.Stop()
		f.busy.Hide()
		f.signIn.link.Hide()
	}
	f.reveal()
}

// reveal lays the page out again and scrolls what a Test or Save says
// into view: it is under the form, past the window's end.
func (f *serverForm) reveal() {
	f.body.Refresh()
	if f.problems.Visible() {
		ui.ScrollIntoView(f.page, f.problems)
		return
	}
	ui.ScrollIntoView(f.page, f.result)
	if f.signIn.link.Visible() {
		ui.ScrollIntoView(f.page, f.signIn.link)
	}
	if f.offered.Visible() {
		ui.ScrollIntoView(f.page, f.offered)
	}
}

// showTested shows a test's outcome: the tools offered, or why it failed,
// in red.
func (f *serverForm) showTested(u catalog.Upstream, tools []*mcp.Tool, err error) {
	if err != nil {
		f.tested, f.testedTools = nil, nil
		f.result.Importance = widget.DangerImportance
		// The Manager's words name the server, which the form shows.
		f.result.SetText("It did not work: " + strings.TrimPrefix(err.Error(), fmt.Sprintf("upstream %q: ", u.Name)))
		f.offered.Hide()
		f.reveal()
		return
	}
	f.tested, f.testedTools = &u, tools
	f.result.Importance = widget.SuccessImportance
	f.result.SetText(fmt.Sprintf("It works: %s offers %s. Save serves them to your AI apps, as they are now:", u.Name, words.Count(len(tools), "tool", "tools")))
	var lines []string
	for _, t := range tools {
		line := gateway.ServedName(u.ToolPrefix(), t.Name)
		if d := firstLine(strings.TrimSpace(t.Description)); d != "" {
			line += "  —  " + d
		}
		lines = append(lines, line)
	}
	f.offered.SetText(strings.Join(lines, "\n"))
	f.offered.Show()
	f.reveal()
}

// showProblems shows what keeps the form from being a server, and says
// whether there is nothing.
func (f *serverForm) showProblems(problems []string) bool {
	ui.SetFieldError(f.problems, problems)
	if len(problems) > 0 {
		f.reveal()
	}
	return len(problems) == 0
}

// Save stores the server, its credentials in the secret store, and serves
// its tools as the Test listed them (testing first if the form changed
// since).
func (f *serverForm) Save() {
	u, problems := f.definition()
	if f.editing == nil {
		if _, err := f.tab.cfg.Store.Upstream(f.tab.life, u.Name); err == nil {
			problems = append(problems, fmt.Sprintf("a server named %q exists already: pick another name", u.Name))
		} else if !errors.Is(err, storage.ErrNotFound) {
			problems = append(problems, err.Error())
		}
	}
	if !f.showProblems(problems) {
		return
	}
	st, sec := f.tab.cfg.Store, f.tab.cfg.Secrets
	ctx := f.tab.life
	f.run(u, func(tools []*mcp.Tool, err error) {
		if err != nil {
			f.showTested(u, tools, err)
			return
		}
		f.tab.Reload()
		f.tab.Show(u.Name)
	}, func(tools []*mcp.Tool) error {
		stored, err := storeCredentials(ctx, sec, u)
		if err != nil {
			return err
		}
		was := ""
		if f.editing != nil {
			was = f.editing.Name
		}
		if _, err := st.SaveUpstream(ctx, was, stored); err != nil {
			return err
		}
		if _, err := gateway.Sync(ctx, st, offeredTools(tools), u.Name); err != nil {
			return err
		}
		if f.editing != nil {
			// What the server offers differently now waits for the
			// person's approval, as any change of a server's tools.
			return nil
		}
		if _, err := gateway.Approve(ctx, st, u.Name, nil); err != nil {
			// Stored all the same, with none of its tools served: they
			// clash with tools mcptray has.
			return fmt.Errorf("%w; the server is added with none of its tools served: remove it and add it with another prefix", err)
		}
		return nil
	})
}

// offeredTools lists the tools a Test read (gateway.Lister).
type offeredTools []*mcp.Tool

func (o offeredTools) Tools(context.Context, string) ([]*mcp.Tool, error) { return o, nil }

// notSecretName is what a secret's name cannot hold, in the name a
// server's credential is kept under (SERVER_NAME, lower case).
var notSecretName = regexp.MustCompile(`[^a-z0-9_.-]+`)

// storeCredentials puts each value of u whose name looks like a
// credential, typed as it is, in the secret store, and returns u reading
// it from there ({{secret "NAME"}}); "Bearer x" keeps its scheme.
func storeCredentials(ctx context.Context, sec *storage.Secrets, u catalog.Upstream) (catalog.Upstream, error) {
	keep := func(m map[string]catalog.Template) (map[string]catalog.Template, error) {
		if m == nil {
			return nil, nil
		}
		out := make(map[string]catalog.Template, len(m))
		for k, v := range m {
			out[k] = v
			// An environment variable named Authorization is one too.
			if !credential.Header(k) || v == "" || strings.Contains(string(v), "{{") {
				continue
			}
			if sec == nil {
				return nil, fmt.Errorf("%s looks like a credential, and mcptray has no secret store to keep it in (Settings says why, under Secrets)", k)
			}
			scheme, value, ok := credential.SplitScheme(string(v))
			if !ok {
				scheme, value = "", string(v)
			}
			name := strings.Trim(notSecretName.ReplaceAllString(strings.ToLower(u.Name+"_"+k), "_"), "_")
			if err := sec.SetSecret(ctx, name, value); err != nil {
				return nil, err
			}
			out[k] = catalog.Template(fmt.Sprintf("%s{{secret %q}}", scheme, name))
		}
		return out, nil
	}
	var err error
	if u.Command != nil {
		c := *u.Command
		if c.Env, err = keep(c.Env); err != nil {
			return u, err
		}
		u.Command = &c
	}
	if u.Remote != nil {
		r := *u.Remote
		if r.Headers, err = keep(r.Headers); err != nil {
			return u, err
		}
		u.Remote = &r
	}
	return u, nil
}

// edit has the form edit the stored server u: its fields filled in, its
// name fixed.
func (f *serverForm) edit(u catalog.Upstream) {
	f.editing = &u
	f.title.SetText("Edit " + u.Name)
	f.name.SetText(u.Name)
	f.name.Disable()
	f.prefixTyped = u.Prefix != nil
	f.prefix.SetText(u.ToolPrefix())
	ui.SelectKeeping(f.start, startChoices.LabelOf(u.Start))
	switch {
	case u.Remote != nil:
		f.kind.SetSelected(runsWeb)
		f.url.SetText(u.Remote.URL)
		f.sse.SetChecked(u.Remote.Transport == catalog.UpstreamSSE)
		f.headers.SetText(templateLines(u.Remote.Headers, ": "))
	case u.Command != nil:
		f.kind.SetSelected(runsProgram)
		argv := make([]catalog.Template, len(u.Command.Argv))
		for i, a := range u.Command.Argv {
			argv[i] = catalog.Template(a)
		}
		f.command.SetText(actions.JoinCommandLine(argv))
		f.dir.SetText(u.Command.Dir)
		f.env.SetText(templateLines(u.Command.Env, "="))
	}
}

// templateLines writes values a NAME, sep, value line each, by name: what
// valueLines reads back.
func templateLines(values map[string]catalog.Template, sep string) string {
	var lines []string
	for _, k := range slices.Sorted(maps.Keys(values)) {
		lines = append(lines, k+sep+string(values[k]))
	}
	return strings.Join(lines, "\n")
}
