package app

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/app/link"
	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/clientconfig"
	"github.com/mcptray/mcptray/internal/testcatalog"
	"github.com/mcptray/mcptray/internal/testserver"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/storage"
)

const testShim = "/opt/mcptray/mcptray-stdio"

// newConnectFixture is the Connect window of client id on a real store,
// with the client's config files under a temp home.
func newConnectFixture(t *testing.T, id string) (*connectView, *storage.Store, string) {
	t.Helper()
	a := uitest.NewTestApp(t)
	home := t.TempDir()
	d := testserver.Start(t, testserver.Options{Auth: true}).Daemon
	st := d.Store()
	// The server listens on its port setting, as the app's does: an entry
	// naming a port of this run only would be refused.
	set, _ := st.Settings(context.Background())
	u, _ := url.Parse(d.URL())
	set.Port, _ = strconv.Atoi(u.Port())
	if err := st.PutSettings(context.Background(), set); err != nil {
		t.Fatal(err)
	}
	c, ok := clientconfig.Lookup(id)
	if !ok {
		t.Fatalf("no client %q", id)
	}
	env := clientconfig.Env{GOOS: runtime.GOOS, Home: home, Vars: map[string]string{"XDG_CONFIG_HOME": filepath.Join(home, ".config")}, ProjectDir: home}
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	v := newConnectView(a, w, c, Config{Store: st, ShimPath: testShim, Server: d}, env)
	w.SetContent(v.content)
	w.Resize(fyne.NewSize(700, 700))
	return v, st, v.path.Selected
}

// tapButton taps the button labelled text in the view.
func tapButton(t *testing.T, v *connectView, text string) {
	t.Helper()
	var b *widget.Button
	uitest.Walk(v.content, func(o fyne.CanvasObject) {
		if x, ok := o.(*widget.Button); ok && x.Text == text && x.Visible() {
			b = x
		}
	})
	if b == nil {
		t.Fatalf("no %q button", text)
	}
	test.Tap(b)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestConnectInstallStdioKeepsOtherServers(t *testing.T) {
	v, st, path := newConnectFixture(t, "cursor")
	const orig = `{"mcpServers": {"other": {"command": "/bin/other"}}, "theme": "dark"}`
	writeFile(t, path, orig)
	if !strings.Contains(v.snippet.Text, testShim) {
		t.Fatalf("snippet:\n%s", v.snippet.Text)
	}
	tapButton(t, v, "Install…")
	if !v.preview.Visible() || !strings.Contains(v.diff.Text(), "+ ") || v.path.Selected != path || !strings.Contains(v.previewHead.Text, "mcp.json.bak") {
		t.Fatalf("preview: %q\n%s (error %q)", v.previewHead.Text, v.diff.Text(), v.errLine.Text)
	}
	if b, _ := os.ReadFile(path); string(b) != orig {
		t.Fatal("the preview wrote the file")
	}
	tapButton(t, v, "Write it")
	waitTested(t, v) // the Test Install starts, before the window is read
	b, _ := os.ReadFile(path)
	c, _ := clientconfig.Lookup("cursor")
	if ok, _ := clientconfig.Configured(c, b, ""); !ok || !strings.Contains(string(b), `"other"`) || !strings.Contains(string(b), `"theme"`) {
		t.Fatalf("installed:\n%s", b)
	}
	if bak, _ := os.ReadFile(path + ".bak"); string(bak) != orig {
		t.Errorf("backup: %q", bak)
	}
	if !v.result.Visible() || !strings.Contains(v.result.Text, "Wrote "+path) {
		t.Fatalf("result: %q", v.result.Text)
	}
	if !slices.Contains(uitest.Texts(v.win), "Then: "+c.Restart) {
		t.Fatal("no restart hint")
	}
	// Tested by itself: the shim the entry names is not installed here,
	// and the window says so, in words, under what Install did.
	if !v.errLine.Visible() || !strings.HasPrefix(v.errLine.Text, "Cursor's entry does not work: the command "+testShim+" does not exist") ||
		!strings.Contains(v.result.Text, "Wrote "+path) {
		t.Fatalf("after the Test: error %q, result %q", v.errLine.Text, v.result.Text)
	}
	if ts, _ := st.ListTokens(context.Background()); len(ts) != 0 {
		t.Fatalf("the stdio form made tokens: %+v", ts)
	}
	// Installed already: nothing to confirm.
	if v.Preview() || !strings.Contains(v.result.Text, "already configured") {
		t.Fatalf("second install: %q", v.result.Text)
	}
}

func TestConnectInstallHTTPCreatesClientToken(t *testing.T) {
	v, st, path := newConnectFixture(t, "cursor")
	ctx := context.Background()
	v.SetForm(clientconfig.HTTP)
	if !strings.Contains(v.snippet.Text, v.cfg.Server.URL()) || !strings.Contains(v.snippet.Text, clientconfig.TokenPlaceholder) {
		t.Fatalf("HTTP snippet:\n%s", v.snippet.Text)
	}
	if !strings.Contains(v.formNote.Text, "plain text") {
		t.Fatalf("no warning that the token goes into the file: %q", v.formNote.Text)
	}
	tapButton(t, v, "Install…")
	if ts, _ := st.ListTokens(ctx); len(ts) != 0 {
		t.Fatal("the preview created a token")
	}
	tapButton(t, v, "Write it")
	waitTested(t, v) // the Test Install starts, before the window is read
	b, _ := os.ReadFile(path)
	_, rest, ok := strings.Cut(string(b), `"Authorization": "Bearer `)
	secret, _, _ := strings.Cut(rest, `"`)
	if !ok || secret == "" {
		t.Fatalf("no token in the file:\n%s", b)
	}
	if p, err := st.VerifyToken(ctx, secret); err != nil || p.Token != "cursor" {
		t.Fatalf("the token in the file: %+v, %v", p, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("a config holding a token must be private: %v", st.Mode())
	}
	// Installing again replaces the client's token: the old one is refused.
	v.SetForm(clientconfig.HTTP)
	if !v.Preview() || !v.Confirm() {
		t.Fatalf("second install: %q", v.errLine.Text)
	}
	waitTested(t, v) // the Test Install starts, before the window is read
	if _, err := st.VerifyToken(ctx, secret); err == nil {
		t.Fatal("the replaced token still verifies")
	}
	if ts, _ := st.ListTokens(ctx); len(ts) != 1 || ts[0].Name != "cursor" {
		t.Fatalf("tokens: %+v", ts)
	}
}

func TestConnectHTTPTokenShownOnceForEnvClients(t *testing.T) {
	v, st, _ := newConnectFixture(t, "codex")
	v.SetForm(clientconfig.HTTP)
	if !v.Preview() || !v.Confirm() {
		t.Fatalf("install: %q", v.errLine.Text)
	}
	waitTested(t, v) // the Test Install starts, before the window is read
	_, rest, ok := strings.Cut(v.result.Text, "export "+clientconfig.TokenEnvVar+"=")
	secret, _, _ := strings.Cut(rest, "\n")
	if !ok {
		t.Fatalf("result does not show the token to export: %q", v.result.Text)
	}
	if p, err := st.VerifyToken(context.Background(), secret); err != nil || p.Token != "codex" {
		t.Fatalf("shown token: %+v, %v", p, err)
	}
	v.forget()
	if strings.Contains(v.result.Text, secret) || strings.Contains(v.snippet.Text, secret) {
		t.Fatal("the token is still shown after the window closed")
	}
}

func TestConnectStdioOnlyClient(t *testing.T) {
	v, _, _ := newConnectFixture(t, "claude-desktop")
	if !v.form.Disabled() {
		t.Fatal("Claude Desktop offers the HTTP form")
	}
	if !strings.Contains(v.formNote.Text, "only stdio") {
		t.Fatalf("note: %q", v.formNote.Text)
	}
}

// TestConnectSharedFileNamesTheShim: a project's file gets mcptray-stdio
// by name, and the window says what that asks of teammates, and that it
// is not on PATH here.
func TestConnectSharedFileNamesTheShim(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	v, _, _ := newConnectFixture(t, "claude-code-project")
	if !strings.Contains(v.snippet.Text, `"command": "mcptray-stdio"`) || strings.Contains(v.snippet.Text, testShim) {
		t.Fatalf("snippet:\n%s", v.snippet.Text)
	}
	for _, want := range []string{"meant to be shared", "not on your PATH", "needs mcptray installed"} {
		if !strings.Contains(v.formNote.Text, want) {
			t.Errorf("the note does not say %q: %s", want, v.formNote.Text)
		}
	}
}

func TestConnectMalformedFileUntouched(t *testing.T) {
	v, _, path := newConnectFixture(t, "gemini")
	const bad = "{\"mcpServers\": {\n  \"a\": nope\n}}"
	writeFile(t, path, bad)
	tapButton(t, v, "Install…")
	if v.preview.Visible() || !v.errLine.Visible() || !strings.Contains(v.errLine.Text, "untouched") || !strings.Contains(v.errLine.Text, path) {
		t.Fatalf("error line %q (visible %v), preview visible %v", v.errLine.Text, v.errLine.Visible(), v.preview.Visible())
	}
	if b, _ := os.ReadFile(path); string(b) != bad {
		t.Fatalf("the file changed: %q", b)
	}
	if _, err := os.Stat(path + ".bak"); err == nil {
		t.Fatal("a backup was written")
	}
}

func TestConnectFileChangedSincePreview(t *testing.T) {
	v, st, path := newConnectFixture(t, "cursor")
	writeFile(t, path, `{"mcpServers": {}}`)
	v.SetForm(clientconfig.HTTP)
	if !v.Preview() {
		t.Fatalf("preview: %q", v.errLine.Text)
	}
	const edited = `{"mcpServers": {"mine": {"command": "/bin/mine"}}}`
	writeFile(t, path, edited)
	if v.Confirm() {
		t.Fatal("wrote a file that changed since the preview")
	}
	if !strings.Contains(v.errLine.Text, "changed since the preview") {
		t.Fatalf("error line: %q", v.errLine.Text)
	}
	if b, _ := os.ReadFile(path); string(b) != edited {
		t.Fatalf("the file was overwritten: %q", b)
	}
	if ts, _ := st.ListTokens(context.Background()); len(ts) != 0 {
		t.Fatalf("a token was made for nothing: %+v", ts)
	}
}

func TestRenderConnectWindow(t *testing.T) {
	v, _, path := newConnectFixture(t, "claude-code")
	test.ApplyTheme(t, theme.DefaultTheme())
	writeFile(t, path, "{\n  \"numStartups\": 12,\n  \"mcpServers\": {\n    \"other\": {\"command\": \"/bin/other\"}\n  }\n}\n")
	v.SetForm(clientconfig.HTTP)
	if !v.Preview() {
		t.Fatalf("preview: %q", v.errLine.Text)
	}
	v.win.Resize(fyne.NewSize(680, 760))
	uitest.Capture(t, v.win, "connect-preview.png")
	// The port and the paths change from run to run: the lines that hold
	// them are matched, quoted.
	url, q := v.cfg.Server.URL(), regexp.QuoteMeta
	form := []string{
		"text: Connect by", "radio: ( ) " + formStdio, "radio: (•) " + formHTTP,
		`re:label: mcptray creates a token named "claude-code" for this entry alone .* stores the token in plain text in the config file \(made readable only by you\)\.`,
		"text: Config file", "select: " + path,
	}
	// The form, the entry with the placeholder for the token, Install
	// greyed out while the preview below it (the change as a diff, Write it)
	// waits; no result and no error yet.
	got := uitest.SeenIn(v.win.Canvas())
	uitest.Sees(t, "the preview", got, slices.Concat(form, []string{
		`re:(?s)entry: \{.*"url": "` + q(url) + `".*"Authorization": "Bearer ` + q(clientconfig.TokenPlaceholder) + `".*`,
		"button: Copy", "button: Create token", "button: Install… {high, disabled}", "button: Remove… {disabled}", "button: Test",
		"label: mcptray will change the config file above (the current one is kept as .claude.json.bak):\nThe placeholder becomes a new token when you press Write it, and the file is made readable only by you.",
		`re:(?s)textgrid: .*\n-     "other": \{"command": "/bin/other"\}\n\+     "other": \{"command": "/bin/other"\},\n\+     "mcptray": \{\n.*"url": "` + q(url) + `".*`,
		"button: Write it {high}", "button: Cancel",
		"label: Then: " + v.c.Restart, "button: Close",
	})...)
	uitest.SeesNone(t, "the preview", got, "Wrote ", "{danger}")
	// Scrolled to the bottom, as Preview leaves it: Write it shows.
	uitest.InView(t, v.win, "Write it")
	// Removed lines red, added ones green, the others plain.
	for i := range v.diff.Rows {
		line, style := v.diff.RowText(i), v.diff.Rows[i].Style
		var want fyne.ThemeColorName
		switch {
		case strings.HasPrefix(line, "- "):
			want = theme.ColorNameError
		case strings.HasPrefix(line, "+ "):
			want = theme.ColorNameSuccess
		}
		switch {
		case want == "" && style != nil:
			t.Errorf("diff line %q is coloured", line)
		case want != "" && (style == nil || style.TextColor() != theme.Color(want)):
			t.Errorf("diff line %q is not in the %s colour", line, want)
		}
	}

	if !v.Confirm() {
		t.Fatalf("install: %q", v.errLine.Text)
	}
	waitTested(t, v) // the Test Install starts, before the window is read
	uitest.Capture(t, v.win, "connect-installed.png")
	// Written: the entry holds the real token, Install is back, the result
	// names the file and its backup (and may add that Claude Code runs on
	// its old config, when it runs here).
	got = uitest.SeenIn(v.win.Canvas())
	uitest.Sees(t, "the installed window", got, slices.Concat(form, []string{
		`re:(?s)entry: \{.*"url": "` + q(url) + `".*"Authorization": "Bearer mcpt_[A-Za-z0-9_-]+".*`,
		"button: Copy", "button: Create token", "button: Install… {high}", "button: Remove…", "button: Test",
		`re:(?s)label: Wrote ` + q(path) + ` \(the previous version is in ` + q(path) + `\.bak\)\.\nMade it readable only by you \(it was 0644\): it holds a token now\.\nCreated the token "claude-code" for this entry\..*`,
		"label: Then: " + v.c.Restart, "button: Close",
	})...)
	uitest.SeesNone(t, "the installed window", got, clientconfig.TokenPlaceholder, "Write it", "{danger}")
}

func TestConnectMenuCopiesTheEntry(t *testing.T) {
	a := uitest.NewTestApp(t)
	c, ok := clientconfig.Lookup("cursor")
	if !ok {
		t.Fatal("no cursor client")
	}
	u := newUI(a, Config{ShimPath: testShim})
	menu := u.connectMenu(c)
	var labels []string
	for _, it := range menu.Items {
		labels = append(labels, it.Label)
	}
	if !slices.Equal(labels, []string{"Copy the entry", "Install…", "Show the entry…"}) {
		t.Fatalf("submenu %q", labels)
	}
	menu.Items[0].Action()
	got := a.Clipboard().Content()
	if !strings.Contains(got, testShim) || !strings.Contains(got, `"mcpServers"`) {
		t.Fatalf("clipboard: %q", got)
	}
}

// TestTheConnectWindowChoosesItsClient: the tray's Connect a client… opens
// the window on the client shown last; its choice shows another client's
// entry, and is the next window's.
func TestTheConnectWindowChoosesItsClient(t *testing.T) {
	a := uitest.NewTestApp(t)
	u := newUI(a, Config{ShimPath: testShim, Tray: true, Serving: newQuitWatch()})
	u.open(link.Window{What: link.OpenConnect})
	first := clientconfig.Clients()[0]
	win := func() fyne.Window {
		ws := a.Driver().AllWindows()
		return ws[len(ws)-1]
	}
	w := win()
	if w.Title() != "Connect "+first.Name || u.connects != 1 {
		t.Fatalf("the first Connect window is %q (%d open), want the first client's", w.Title(), u.connects)
	}
	var pick *widget.Select
	uitest.Walk(w.Content(), func(o fyne.CanvasObject) {
		if s, ok := o.(*widget.Select); ok && slices.Contains(s.Options, "Cursor") {
			pick = s
		}
	})
	if pick == nil {
		t.Fatal("no choice of client")
	}
	pick.SetSelected("Cursor")
	if w.Title() != "Connect Cursor" || !uitest.HasText(w.Content(), "Cursor") {
		t.Fatalf("chose Cursor, and the window is %q", w.Title())
	}
	w.Close()
	if u.connects != 0 {
		t.Fatalf("%d Connect windows counted after closing the last", u.connects)
	}
	u.open(link.Window{What: link.OpenConnect})
	if w := win(); w.Title() != "Connect Cursor" {
		t.Fatalf("the next Connect window is %q, want the client chosen last", w.Title())
	}
	win().Close()
}

// runTest taps Test and waits until it shows its outcome.
func runTest(t *testing.T, v *connectView) {
	t.Helper()
	tapButton(t, v, "Test")
	waitTested(t, v)
}

// waitTested waits until the Test started last shows its outcome.
func waitTested(t *testing.T, v *connectView) {
	t.Helper()
	if v.tested == nil {
		t.Fatal("no Test started")
	}
	select {
	case <-v.tested:
	case <-time.After(testutil.Patience):
		t.Fatal("Test did not finish")
	}
}

// TestConnectRemoveTakesTheEntryOut: Remove… previews the entry going,
// Remove it writes the file as it was before Install and revokes the
// entry's token; the other servers stay.
func TestConnectRemoveTakesTheEntryOut(t *testing.T) {
	v, st, path := newConnectFixture(t, "cursor")
	ctx := context.Background()
	const orig = "{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"/bin/other\"}\n  }\n}\n"
	writeFile(t, path, orig)
	v.SetForm(clientconfig.HTTP)
	if !v.Preview() || !v.Confirm() {
		t.Fatalf("install: %q", v.errLine.Text)
	}
	waitTested(t, v) // the Test Install starts, before the window is read
	if ts, _ := st.ListTokens(ctx); len(ts) != 1 {
		t.Fatalf("tokens after install: %+v", ts)
	}
	tapButton(t, v, "Remove…")
	if !v.preview.Visible() || !strings.Contains(v.diff.Text(), "-     \"mcptray\": {") || !strings.Contains(v.previewHead.Text, "revoke the entry's token") {
		t.Fatalf("remove preview: %q\n%s", v.previewHead.Text, v.diff.Text())
	}
	if b, _ := os.ReadFile(path); string(b) == orig {
		t.Fatal("the preview wrote the file")
	}
	tapButton(t, v, "Remove it")
	if b, _ := os.ReadFile(path); string(b) != orig {
		t.Fatalf("after remove:\n%s", b)
	}
	if ts, _ := st.ListTokens(ctx); len(ts) != 0 {
		t.Fatalf("the entry's token was not revoked: %+v", ts)
	}
	if !v.result.Visible() || !strings.Contains(v.result.Text, "Wrote "+path) || !strings.Contains(v.result.Text, "no longer starts mcptray") {
		t.Fatalf("result: %q", v.result.Text)
	}
	// Nothing left to remove.
	if v.PreviewRemove() || !strings.Contains(v.result.Text, "no mcptray entry") {
		t.Fatalf("second remove: %q", v.result.Text)
	}
}

// TestInstallTestsTheEntryByItself: once Install has written the entry,
// it is run as the AI app will run it, untouched, and the window says in
// words whether it works, under what Install did.
func TestInstallTestsTheEntryByItself(t *testing.T) {
	v, st, _ := newConnectFixture(t, "cursor")
	if err := st.PutTool(context.Background(), testcatalog.RespondTool("hello", "hi")); err != nil {
		t.Fatal(err)
	}
	v.SetForm(clientconfig.HTTP)
	if !v.Preview() || !v.Confirm() {
		t.Fatalf("install: %q", v.errLine.Text)
	}
	waitTested(t, v) // untouched: Install started it
	uitest.Sees(t, "the window after Install", uitest.SeenIn(v.win.Canvas()),
		`re:(?s)label: Wrote .*\nCursor's entry works: (1 tool|no tools)\. \(It ran http://127\.0\.0\.1:\d+/mcp, as Cursor will\.\)`)
}

// TestConnectTestRunsTheEntry: Test runs the installed entry against the
// real server and says it works, with the tool count; once the token is
// revoked it says what fails and how to fix it, in red.
func TestConnectTestRunsTheEntry(t *testing.T) {
	v, st, _ := newConnectFixture(t, "cursor")
	test.ApplyTheme(t, theme.DefaultTheme())
	if err := st.PutTool(context.Background(), testcatalog.RespondTool("hello", "hi")); err != nil {
		t.Fatal(err)
	}
	v.SetForm(clientconfig.HTTP)
	if !v.Preview() || !v.Confirm() {
		t.Fatalf("install: %q", v.errLine.Text)
	}
	waitTested(t, v) // the Test Install starts, before the window is read
	testutil.Eventually(t, "the server to serve the new tool", func() bool {
		runTest(t, v)
		return strings.Contains(v.result.Text, "1 tool")
	})
	want := `re:(?s)label: (.*\n)?Cursor's entry works: 1 tool\. \(It ran ` + regexp.QuoteMeta(v.cfg.Server.URL()) + `, as Cursor will\.\)`
	uitest.Sees(t, "a working entry", uitest.SeenIn(v.win.Canvas()), "button: Test", want, "label: Then: "+v.c.Restart)

	if err := st.RevokeToken(context.Background(), "cursor"); err != nil {
		t.Fatal(err)
	}
	runTest(t, v)
	uitest.Capture(t, v.win, "connect-test-failed.png")
	got := uitest.SeenIn(v.win.Canvas())
	uitest.Sees(t, "a broken entry", got, "button: Test",
		`re:label: Cursor's entry does not work: mcptray at .* refused the entry's token \(401, .*\)\.\nInstall the entry again to give it a new token: mcptray config cursor --http --install\. \{danger\}`)
	uitest.SeesNone(t, "a broken entry", got, "It works")
}

// Continue has two files in two syntaxes: the entry shown follows the file
// chosen, and config.yaml, which mcptray never creates, is left alone with
// the reason when it does not exist.
func TestConnectContinueEntryFollowsTheFile(t *testing.T) {
	v, _, own := newConnectFixture(t, "continue")
	if len(v.path.Options) != 2 || !strings.HasSuffix(own, "mcptray.json") || !strings.HasSuffix(v.path.Options[1], "config.yaml") {
		t.Fatalf("files: %q (first chosen: %s)", v.path.Options, own)
	}
	if !strings.Contains(v.snippet.Text, `"mcpServers": {`) {
		t.Errorf("the entry for %s is not JSON:\n%s", own, v.snippet.Text)
	}
	yml := v.path.Options[1]
	v.path.SetSelected(yml)
	if want := "mcpServers:\n  - name: mcptray\n    command: \"" + testShim + "\"\n    args: []\n"; v.snippet.Text != want {
		t.Errorf("the entry for %s:\n%s\nwant:\n%s", yml, v.snippet.Text, want)
	}
	for _, th := range []struct {
		name    string
		variant fyne.ThemeVariant
	}{{"light", theme.VariantLight}, {"dark", theme.VariantDark}} {
		test.ApplyTheme(t, ui.ThemeVariant(th.variant))
		if v.Preview() {
			t.Fatalf("a preview to create %s", yml)
		}
		v.win.Resize(fyne.NewSize(680, 760))
		uitest.Capture(t, v.win, "connect-continue-yaml-"+th.name+".png")
	}
	uitest.Sees(t, "the window", uitest.SeenIn(v.win.Canvas()),
		"label: "+yml+" was left alone: it does not exist, and mcptray adds to it but never creates it: with a config.yaml, Continue's CLI (cn) would stop using your Continue account's configuration, models included, and the IDE extension would stop reading a config.json. cn writes the file when you give it a model at its first start: install again then (the IDE extension reads mcptray's own file in mcpServers meanwhile).")
	if _, err := os.Stat(yml); !os.IsNotExist(err) {
		t.Errorf("%s: %v", yml, err)
	}
}
