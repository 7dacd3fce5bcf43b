package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/app/words"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/clientconfig"
)

// Form choices of the Connect window.
const (
	formStdio = "Through mcptray-stdio (recommended)"
	formHTTP  = "HTTP with a token"
)

// showConnect opens the Connect window on client c: the exact entry in
// either form, with Copy, and Install, which previews the change to the
// client's config file and writes it once confirmed. The choice at its top
// shows another client's (and is kept for the next window). closed runs
// once the window has closed.
func showConnect(a fyne.App, c clientconfig.Client, cfg Config, closed func()) *connectView {
	w := a.NewWindow("")
	env := clientconfig.LocalEnv(runtime.GOOS)
	body := container.NewStack()
	var v *connectView
	show := func(c clientconfig.Client) {
		if v != nil {
			v.forget() // a token shown once must not outlive its entry
		}
		v = newConnectView(a, w, c, cfg, env)
		body.Objects = []fyne.CanvasObject{v.content}
		body.Refresh()
		w.SetTitle("Connect " + c.Name)
		a.Preferences().SetString(prefConnectClient, c.ID)
	}
	clients := clientconfig.Clients()
	names := make([]string, len(clients))
	for i, cl := range clients {
		names[i] = cl.Name
	}
	pick := widget.NewSelect(names, nil)
	pick.SetSelected(c.Name)
	pick.OnChanged = func(name string) {
		if i := slices.Index(names, name); i >= 0 && clients[i].ID != v.c.ID {
			show(clients[i])
		}
	}
	show(c)
	top := widget.NewForm(widget.NewFormItem("AI app", pick))
	w.SetContent(container.NewBorder(container.NewPadded(top), nil, nil, nil, body))
	w.SetOnClosed(func() {
		v.forget()
		closed()
	})
	w.Resize(fyne.NewSize(680, 680))
	w.CenterOnScreen()
	w.Show()
	return v
}

// prefConnectClient is the client the Connect window showed last.
const prefConnectClient = "connectClient"

// lastConnectClient is the client the Connect window showed last, or the
// first one.
func lastConnectClient(a fyne.App) clientconfig.Client {
	if c, ok := clientconfig.Lookup(a.Preferences().String(prefConnectClient)); ok {
		return c
	}
	return clientconfig.Clients()[0]
}

// copyEntry puts client c's stdio entry on the clipboard, straight from the
// menu, and says where it goes; when there is no entry to copy it opens the
// Connect window, which says why.
func (u *UI) copyEntry(c clientconfig.Client) {
	if u.cfg.ShimPath == "" {
		u.showConnect(c)
		return
	}
	b, err := clientconfig.Snippet(c, clientconfig.Stdio, clientconfig.Params{Name: "mcptray", ShimPath: u.cfg.ShimPath})
	if err != nil {
		u.showConnect(c)
		return
	}
	u.app.Clipboard().SetContent(string(b))
	var files []string // the files this entry's syntax is for (Continue's config.yaml has its own)
	for _, f := range clientconfig.Paths(c, clientconfig.LocalEnv(runtime.GOOS)) {
		if clientconfig.ForFile(c, f).Format == c.Format {
			files = append(files, f)
		}
	}
	where := strings.Join(files, " or ")
	u.app.SendNotification(fyne.NewNotification("Entry for "+c.Name+" copied", "Add it to "+where+", then: "+c.Restart))
}

// connectItems are the items of the window's Server ▸ Connect a client ▸,
// a submenu per client, as the tray's.
func (u *UI) connectItems() []*fyne.MenuItem {
	var items []*fyne.MenuItem
	for _, c := range clientconfig.Clients() {
		item := fyne.NewMenuItem(c.Name, nil)
		item.ChildMenu = u.connectMenu(c)
		items = append(items, item)
	}
	return items
}

// connectMenu is the submenu of Connect a client ▸ for client c.
func (u *UI) connectMenu(c clientconfig.Client) *fyne.Menu {
	return fyne.NewMenu(c.Name,
		fyne.NewMenuItem("Copy the entry", func() { u.copyEntry(c) }),
		fyne.NewMenuItem("Install…", func() { u.showConnect(c).Preview() }),
		fyne.NewMenuItem("Show the entry…", func() { u.showConnect(c) }),
	)
}

// connectView is the Connect window's content and logic, apart from the
// window so that tests drive it on Fyne's test driver.
type connectView struct {
	app fyne.App
	win fyne.Window
	c   clientconfig.Client
	cfg Config

	env clientconfig.Env

	form      *widget.RadioGroup
	formNote  *widget.Label
	path      *widget.Select
	snippet   *widget.Entry
	copied    *widget.Label
	makeToken *widget.Button
	install   *widget.Button
	remove    *widget.Button
	test      *widget.Button
	// token is the HTTP form's token created for Copy ("" until then).
	token string

	preview     *fyne.Container // the diff and its Write it / Cancel, hidden until Install or Remove
	previewHead *widget.Label
	diff        *widget.TextGrid
	write       *widget.Button
	plan        clientconfig.Plan
	// removing says the preview shows Remove's change, not Install's.
	removing bool
	// testing is the running Test's cancel, nil when none runs; tested is
	// closed once that Test has shown its outcome.
	testing context.CancelFunc
	tested  chan struct{}
	// installed, while the Test that follows an Install runs, is what the
	// Install did: the Test's outcome is told under it.
	installed string

	errLine *widget.Label // problems, in red
	result  *widget.Label // what Install did and what to do next

	box     *fyne.Container
	content *container.Scroll
}

func newConnectView(a fyne.App, w fyne.Window, c clientconfig.Client, cfg Config, env clientconfig.Env) *connectView {
	v := &connectView{app: a, win: w, c: c, cfg: cfg, env: env}
	v.errLine = ui.FieldError()
	v.result = widget.NewLabel("")
	// Paths do not break at spaces.
	v.result.Wrapping = fyne.TextWrapBreak
	v.result.Selectable = true // it may hold the token to copy
	v.result.Hide()
	v.formNote = ui.Hint("")

	v.form = widget.NewRadioGroup([]string{formStdio, formHTTP}, func(string) { v.formChanged() })
	v.form.Required = true
	v.form.SetSelected(formStdio)
	if !c.HTTP {
		v.form.Disable()
	}

	// Continue's two files differ in syntax: the entry shown follows the file.
	v.path = widget.NewSelect(clientconfig.Paths(c, env), func(string) {
		v.hidePreview()
		if v.snippet != nil { // built after the first selection
			v.showSnippet()
		}
	})
	if len(v.path.Options) > 0 {
		v.path.SetSelectedIndex(0)
	}
	where := fyne.CanvasObject(v.path)
	if c.ID == "claude-code-project" {
		// The project is wherever the person works, not mcptray's own
		// working directory.
		where = container.NewBorder(nil, nil, nil, widget.NewButtonWithIcon("Project folder…", theme.FolderOpenIcon(), v.chooseProject), v.path)
	}

	v.snippet = widget.NewMultiLineEntry()
	v.snippet.TextStyle = fyne.TextStyle{Monospace: true}
	v.snippet.SetMinRowsVisible(9)
	v.copied = widget.NewLabel("")
	copyBtn := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), v.Copy)
	v.makeToken = widget.NewButtonWithIcon("Create token", theme.ContentAddIcon(), v.CreateToken)
	v.install = widget.NewButtonWithIcon("Install…", theme.DocumentSaveIcon(), func() { v.Preview() })
	v.install.Importance = widget.HighImportance
	v.remove = widget.NewButtonWithIcon("Remove…", theme.DeleteIcon(), func() { v.PreviewRemove() })
	v.test = widget.NewButtonWithIcon("Test", theme.MediaPlayIcon(), v.Test)

	v.previewHead = widget.NewLabel("")
	v.previewHead.Wrapping = fyne.TextWrapWord
	v.diff = widget.NewTextGrid()
	diffScroll := container.NewScroll(v.diff)
	diffScroll.SetMinSize(fyne.NewSize(0, 240))
	v.write = widget.NewButtonWithIcon("Write it", theme.ConfirmIcon(), func() { v.Confirm() })
	v.write.Importance = widget.HighImportance
	v.preview = container.NewVBox(widget.NewSeparator(), v.previewHead, ui.ChainWheel(diffScroll),
		container.NewHBox(v.write, widget.NewButton("Cancel", v.hidePreview)))
	v.preview.Hide()

	restart := ui.Hint("Then: " + c.Restart)
	v.box = container.NewVBox(
		widget.NewForm(
			widget.NewFormItem("Connect by", v.form),
			widget.NewFormItem("", v.formNote),
			widget.NewFormItem("Config file", where),
		),
		v.snippet,
		container.NewHBox(copyBtn, v.makeToken, v.install, v.remove, v.test),
		v.copied,
		v.errLine, v.preview, v.result, restart,
		container.NewHBox(widget.NewButton("Close", w.Close)),
	)
	v.content = ui.NewPage(container.NewPadded(v.box))
	v.formChanged()
	return v
}

// relayout fits the window's content again after parts were shown or
// hidden.
func (v *connectView) relayout() {
	if v.box == nil { // still being built
		return
	}
	v.box.Refresh()
	v.content.Refresh()
}

// setError shows problems in the red line; none hides it.
func (v *connectView) setError(msgs ...string) {
	ui.SetFieldError(v.errLine, msgs)
	v.relayout()
}

func (v *connectView) ctx() context.Context { return context.Background() }

// Form is the chosen form.
func (v *connectView) Form() clientconfig.Form {
	if v.form.Selected == formHTTP {
		return clientconfig.HTTP
	}
	return clientconfig.Stdio
}

// SetForm chooses the form, as clicking its radio button does.
func (v *connectView) SetForm(f clientconfig.Form) {
	if f == clientconfig.HTTP {
		v.form.SetSelected(formHTTP)
	} else {
		v.form.SetSelected(formStdio)
	}
}

// Params are the entry's values for the chosen form: the shim's path, or
// the URL and the token (the placeholder until one is created).
func (v *connectView) params() (clientconfig.Params, error) {
	p := clientconfig.Params{Name: clientconfig.DefaultName, Shared: clientconfig.InProject(v.c, v.env, v.path.Selected)}
	if v.Form() == clientconfig.Stdio {
		if v.cfg.ShimPath == "" {
			return p, fmt.Errorf("mcptray-stdio was not found next to mcptray, so the stdio form cannot name it; reinstall mcptray (or build it with `make build`)%s", map[bool]string{true: ", or use the HTTP form"}[v.c.HTTP])
		}
		p.ShimPath = v.cfg.ShimPath
		return p, nil
	}
	var err error
	if p.URL, err = v.url(); err != nil {
		return p, err
	}
	p.Token = cmp.Or(v.token, clientconfig.TokenPlaceholder)
	return p, nil
}

// tokens is where the entry's token is kept: none without a database (a
// nil *storage.Store is not a nil interface).
func (v *connectView) tokens() clientconfig.Tokens {
	if v.cfg.Store == nil {
		return nil
	}
	return v.cfg.Store
}

// url is the running server's endpoint, else the one the port setting
// gives; a port of this run only (--addr) is refused, since an entry
// naming it would break at the next start.
func (v *connectView) url() (string, error) {
	set := catalog.DefaultSettings()
	if v.cfg.Store != nil {
		if s, err := v.cfg.Store.Settings(v.ctx()); err == nil {
			set = s
		}
	}
	if v.cfg.Server == nil {
		return set.ListenURL(), nil
	}
	url := v.cfg.Server.URL()
	return url, clientconfig.StableURL(url, set.ListenPort())
}

// tokenName is the token of the entry in the chosen file.
func (v *connectView) tokenName() string {
	return clientconfig.TokenName(v.c, v.env, v.path.Selected, clientconfig.DefaultName)
}

// formChanged shows the entry of the chosen form and what it implies.
func (v *connectView) formChanged() {
	if v.snippet == nil { // still being built
		return
	}
	v.hidePreview()
	v.result.Hide()
	v.copied.SetText("")
	if v.Form() == clientconfig.HTTP {
		v.makeToken.Show()
		p, _ := v.params()
		v.formNote.SetText(httpNote(v.c, p, v.tokenName()))
	} else {
		v.makeToken.Hide()
		note := "The client starts mcptray-stdio, which finds mcptray by itself (even after a port change) and keeps its own token: no secret goes into the file."
		if !v.c.HTTP {
			note += " " + v.c.Name + " reads only stdio servers from its config file."
		}
		if p, err := v.params(); err == nil && clientconfig.Shared(v.c, p) {
			shared, _ := clientconfig.SharedShimNote(v.cfg.ShimPath)
			note += " " + shared
		} else if checkout, ok := clientconfig.BuildFolder(v.cfg.ShimPath); ok && v.cfg.ShimPath != "" {
			// A shared file names no folder, so only the person's own
			// file would point into the checkout.
			note += " " + clientconfig.BuildFolderWarning(checkout)
		}
		v.formNote.SetText(ui.Quoted(note))
	}
	v.showSnippet()
}

// httpNote says which token the HTTP entry of client c with p gets and
// where it ends up.
func httpNote(c clientconfig.Client, p clientconfig.Params, token string) string {
	note := fmt.Sprintf("mcptray creates a token named %q for this entry alone (revocable under Settings › Client tokens, or by Remove), with a new secret each time you install it (the older one stops working; its tool limit, if you set one, stays); the entry names this URL, so a port change means installing it again.", token)
	switch {
	case c.ID == "vscode":
		return note + " VS Code asks for the token once and keeps it in its secret storage; it is shown once, to paste there."
	case clientconfig.TokenInEnv(c, p):
		why := ""
		if clientconfig.Shared(c, p) {
			why = " This file is meant to be shared, so it holds no token:"
		}
		return note + why + fmt.Sprintf(" The file names the environment variable %s; the token is shown once, to set there.", clientconfig.TokenEnvName(p.Name))
	}
	return note + " Installing stores the token in plain text in the config file (made readable only by you)."
}

// showSnippet fills the entry box; a problem goes to the red line.
func (v *connectView) showSnippet() {
	v.setError()
	p, err := v.params()
	var b []byte
	if err == nil {
		b, err = clientconfig.Snippet(clientconfig.ForFile(v.c, v.path.Selected), v.Form(), p)
	}
	if err != nil {
		v.snippet.SetText("")
		v.setError(err.Error())
		return
	}
	v.snippet.SetText(string(b))
}

// Copy puts the entry on the clipboard.
func (v *connectView) Copy() {
	if v.snippet.Text == "" {
		return
	}
	v.app.Clipboard().SetContent(v.snippet.Text)
	v.copied.SetText("Copied.")
	if v.Form() == clientconfig.HTTP && v.token == "" {
		v.copied.SetText("Copied, with a placeholder: press Create token to put a real one in.")
	}
}

// CreateToken makes the client's token for the HTTP form and shows it in
// the entry, this once.
func (v *connectView) CreateToken() {
	secret, err := clientconfig.RotateToken(v.ctx(), v.tokens(), v.tokenName())
	if err != nil {
		v.setError(err.Error())
		return
	}
	v.token = secret
	v.showSnippet()
	v.copied.SetText(fmt.Sprintf("Token %q created: copy the entry now, the token is not shown again.", v.tokenName()))
}

// forget drops the token shown once and stops a Test still running.
func (v *connectView) forget() {
	if v.testing != nil {
		v.testing()
	}
	v.token = ""
	v.snippet.SetText("")
	v.result.SetText("")
}

// chooseProject picks the project whose .mcp.json Claude Code reads.
func (v *connectView) chooseProject() {
	d := dialog.NewFolderOpen(func(dir fyne.ListableURI, err error) {
		if err != nil || dir == nil {
			return
		}
		v.SetPath(filepath.Join(dir.Path(), ".mcp.json"))
	}, v.win)
	d.Show()
}

// SetPath chooses the config file to install into.
func (v *connectView) SetPath(path string) {
	if !slices.Contains(v.path.Options, path) {
		v.path.SetOptions(append([]string{path}, v.path.Options...))
	}
	v.path.SetSelected(path)
}

// Preview computes the change Install makes to the chosen file and shows
// it, with Write it; a file it cannot merge (malformed) shows the reason
// and is never touched. It reports whether there is a change to confirm.
func (v *connectView) Preview() bool {
	v.result.Hide()
	v.setError()
	v.hidePreview()
	p, err := v.params()
	if err != nil {
		v.setError(err.Error())
		return false
	}
	// The token is made only when the person confirms.
	p.Token = clientconfig.TokenPlaceholder
	if v.path.Selected == "" {
		v.setError("Choose the config file to install into.")
		return false
	}
	pl, err := clientconfig.PlanInstall(v.c, v.path.Selected, v.Form(), p)
	if err != nil {
		v.setError("Not installed: " + err.Error())
		return false
	}
	if !pl.Changed {
		if pl.Note != "" {
			v.showResult(fmt.Sprintf("%s was left alone: %s", pl.Path, pl.Note))
			return false
		}
		v.showResult(fmt.Sprintf("mcptray is already configured in %s; nothing to change.", pl.Path))
		return false
	}
	head := "mcptray will create the config file above:"
	if pl.Old != nil {
		head = fmt.Sprintf("mcptray will change the config file above (the current one is kept as %s.bak):", filepath.Base(pl.Path))
	}
	if v.Form() == clientconfig.HTTP && clientconfig.TokenInFile(v.c, p) {
		head += "\nThe placeholder becomes a new token when you press Write it, and the file is made readable only by you."
	} else if v.Form() == clientconfig.HTTP && v.c.ID != "vscode" {
		head += "\nThe token is made when you press Write it, and shown once, to set in the environment."
	}
	v.showPlan(pl, head, false)
	return true
}

// PreviewRemove computes the change Remove makes to the chosen file —
// mcptray's entry taken out — and shows it, with Remove it. It reports
// whether there is a change to confirm.
func (v *connectView) PreviewRemove() bool {
	v.result.Hide()
	v.setError()
	v.hidePreview()
	if v.path.Selected == "" {
		v.setError("Choose the config file to remove mcptray from.")
		return false
	}
	pl, err := clientconfig.PlanRemove(v.c, v.path.Selected, clientconfig.DefaultName)
	if err != nil {
		v.setError("Not removed: " + err.Error())
		return false
	}
	if !pl.Changed {
		v.showResult(fmt.Sprintf("%s has no mcptray entry; nothing to remove.", pl.Path))
		return false
	}
	head := fmt.Sprintf("mcptray will take its entry out of the config file above (the current one is kept as %s.bak), and revoke the entry's token if it has one:", filepath.Base(pl.Path))
	if pl.New == nil {
		head = fmt.Sprintf("mcptray will delete the config file above, which holds its entry only (it is kept as %s.bak):", filepath.Base(pl.Path))
	}
	v.showPlan(pl, head, true)
	return true
}

// showPlan shows a change to confirm: its heading, its diff and the button
// that writes it.
func (v *connectView) showPlan(pl clientconfig.Plan, head string, removing bool) {
	v.plan, v.removing = pl, removing
	v.write.SetText(map[bool]string{false: "Write it", true: "Remove it"}[removing])
	v.previewHead.SetText(head)
	v.showDiff(clientconfig.Diff(pl.Old, pl.New))
	v.preview.Show()
	v.install.Disable()
	v.remove.Disable()
	v.relayout()
	v.content.ScrollToBottom() // the change and its button in view
}

// showDiff shows a Diff with its removed lines red and its added lines
// green.
func (v *connectView) showDiff(d string) {
	v.diff.SetText(d)
	removed := &widget.CustomTextGridStyle{FGColor: theme.Color(theme.ColorNameError)}
	added := &widget.CustomTextGridStyle{FGColor: theme.Color(theme.ColorNameSuccess)}
	for i, line := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(line, "- "):
			v.diff.SetRowStyle(i, removed)
		case strings.HasPrefix(line, "+ "):
			v.diff.SetRowStyle(i, added)
		}
	}
}

func (v *connectView) hidePreview() {
	if v.preview == nil {
		return
	}
	v.plan = clientconfig.Plan{}
	v.preview.Hide()
	v.install.Enable()
	v.remove.Enable()
	v.relayout()
}

// Confirm writes the previewed change (a backup first; nothing when the
// file changed since the preview) and says what happened and what to do
// next. It reports whether the file was written.
func (v *connectView) Confirm() bool {
	if v.plan.Path == "" {
		return false
	}
	pl := v.plan
	if v.removing {
		done, err := clientconfig.Uninstall(v.ctx(), v.tokens(), []clientconfig.Plan{pl}, v.tokenName())
		v.hidePreview()
		if err != nil {
			v.setError("Not removed: " + err.Error())
			return false
		}
		v.showResult(v.removedText(done))
		return true
	}
	p, err := v.params()
	if err == nil {
		var done clientconfig.Installed
		if done, err = clientconfig.Install(v.ctx(), v.tokens(), v.c, v.Form(), p, []clientconfig.Plan{pl}, v.tokenName()); err == nil {
			v.hidePreview()
			if done.Token != "" {
				// The entry shown is the one written.
				v.token = done.Token
				v.showSnippet()
			}
			// Tested at once, as the AI app will run it: the person
			// learns now, not at the AI app's next start, whether it works.
			v.installed = v.installedText(done, p)
			v.showResult(v.installed)
			v.Test()
			return true
		}
	}
	v.hidePreview()
	v.setError("Not installed: " + err.Error())
	return false
}

// installedText reports an install: the file, the backup, the token where
// the person must put it, and whether the client still runs on its old
// config.
func (v *connectView) installedText(done clientconfig.Installed, p clientconfig.Params) string {
	var b strings.Builder
	writtenText(&b, done.Files)
	if done.Token != "" {
		fmt.Fprintf(&b, "Created the token %q for this entry.\n", done.TokenName)
		if how := clientconfig.TokenInstructions(v.c, p, done.Token); how != "" {
			b.WriteString(how + "\n")
		}
	}
	if running, known := clientconfig.Running(v.c, clientconfig.RunningProcesses()); known && running {
		fmt.Fprintf(&b, "%s is running with its old config: it reads the file only when it starts.\n", v.c.Name)
	}
	// The restart hint stays under it.
	return strings.TrimSuffix(b.String(), "\n")
}

// removedText reports a Remove.
func (v *connectView) removedText(done []clientconfig.Applied) string {
	var b strings.Builder
	writtenText(&b, done)
	fmt.Fprintf(&b, "%s no longer starts mcptray once it reads its config again; the entry's token, if it had one, is revoked.", v.c.Name)
	return b.String()
}

// writtenText says, a line each, what happened to the files.
func writtenText(b *strings.Builder, files []clientconfig.Applied) {
	for _, f := range files {
		switch {
		case f.Deleted:
			fmt.Fprintf(b, "Deleted %s (the previous version is in %s).\n", f.Path, f.Backup)
		case f.Backup != "":
			fmt.Fprintf(b, "Wrote %s (the previous version is in %s).\n", f.Path, f.Backup)
		default:
			fmt.Fprintf(b, "Wrote %s.\n", f.Path)
		}
		if f.WasMode != 0 {
			fmt.Fprintf(b, "Made it readable only by you (it was %04o): it holds a token now.\n", f.WasMode)
		}
	}
}

// Test runs the entry installed in the chosen file as the client would
// (clientconfig.Check), in the background, and says whether it works —
// with the number of tools — or what fails and how to fix it.
func (v *connectView) Test() {
	if v.testing != nil || v.path.Selected == "" {
		return
	}
	if v.installed == "" {
		v.result.Hide()
	}
	v.setError()
	v.test.Disable()
	v.copied.SetText("Testing the entry in " + v.path.Selected + " as " + v.c.Name + " would run it…")
	ctx, cancel := context.WithCancel(v.ctx())
	v.testing = cancel
	done := make(chan struct{})
	v.tested = done
	path := v.path.Selected
	go func() {
		defer close(done)
		got, err := clientconfig.Check(ctx, v.c, path, clientconfig.DefaultName, os.Environ())
		fyne.DoAndWait(func() { v.showTested(got, err) })
	}()
}

// showTested shows a Test's outcome.
// It says it in words first, "Claude Code's entry works: 3 tools.", what
// was run second.
func (v *connectView) showTested(got clientconfig.Checked, err error) {
	v.testing = nil
	v.test.Enable()
	v.copied.SetText("")
	head := v.installed
	v.installed = ""
	if head != "" {
		head += "\n"
	}
	var ce *clientconfig.CheckError
	switch {
	case err == nil:
		v.showResult(fmt.Sprintf("%s%s's entry works: %s. (It ran %s, as %s will.)",
			head, v.c.Name, words.Count(got.Tools, "tool", "tools"), got.Target, v.c.Name))
	case errors.As(err, &ce):
		if head != "" {
			v.showResult(strings.TrimSuffix(head, "\n"))
		}
		v.setError(fmt.Sprintf("%s's entry does not work: %s.", v.c.Name, ce.Problem), ce.Fix)
	default:
		if head != "" {
			v.showResult(strings.TrimSuffix(head, "\n"))
		}
		v.setError("Not tested: " + err.Error())
	}
}

func (v *connectView) showResult(text string) {
	v.result.SetText(text)
	v.result.Show()
	v.relayout()
}
