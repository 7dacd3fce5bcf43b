package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/zalando/go-keyring"

	"github.com/mcptray/mcptray/internal/localefix"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// TestMain puts go-keyring's in-memory mock in place of the OS keyring, so
// no test touches the user's keyring. Importing localefix keeps Fyne from
// logging a locale error under LANG=C.UTF-8, as in the mcptray command.
func TestMain(m *testing.M) {
	localefix.Restore()
	keyring.MockInit()
	os.Exit(m.Run())
}

// newSettingsFixture is a Settings tab on a real store, in a test window.
func newSettingsFixture(t *testing.T) (*SettingsTab, *storage.Store, fyne.Window) {
	return newSettingsFixtureWith(t, nil)
}

// newSettingsFixtureWith is newSettingsFixture with srv as the running
// server (nil: not serving).
func newSettingsFixtureWith(t *testing.T, srv Server) (*SettingsTab, *storage.Store, fyne.Window) {
	t.Helper()
	a := test.NewTempApp(t)
	st, err := storage.Open(filepath.Join(t.TempDir(), "mcptray.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	s := newSettingsTabFor(a, w, Config{Store: st, Server: srv})
	w.SetContent(s.Content())
	w.Resize(fyne.NewSize(1000, 800))
	return s, st, w
}

// texts are the texts every label, entry and rich text in the window
// (content and overlays) holds.
func texts(w fyne.Window) []string {
	var out []string
	fn := func(o fyne.CanvasObject) {
		switch x := o.(type) {
		case *widget.Label:
			out = append(out, x.Text)
		case *widget.Entry:
			out = append(out, x.Text)
		case *widget.RichText:
			out = append(out, x.String())
		case *widget.Button:
			out = append(out, x.Text)
		}
	}
	walk(w.Content(), fn)
	for _, o := range w.Canvas().Overlays().List() {
		walk(o, fn)
	}
	return out
}

// overlayButton is the button labelled text in the top overlay.
func overlayButton(t *testing.T, w fyne.Window, text string) *widget.Button {
	t.Helper()
	var b *widget.Button
	walk(w.Canvas().Overlays().Top(), func(o fyne.CanvasObject) {
		if x, ok := o.(*widget.Button); ok && x.Text == text {
			b = x
		}
	})
	if b == nil {
		t.Fatalf("no %q button in the top overlay", text)
	}
	return b
}

func TestSettingsSavePageSize(t *testing.T) {
	s, st, _ := newSettingsFixture(t)
	for _, n := range s.nums {
		if n.key == "pageSize" {
			n.entry.SetText("42")
		}
	}
	if !s.Save() {
		t.Fatalf("not saved: %s", s.status.Text)
	}
	set, err := st.Settings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if set.PageSize != 42 {
		t.Fatalf("page size in the DB = %d, want 42", set.PageSize)
	}
}

func TestSettingsAskTimeout(t *testing.T) {
	s, st, _ := newSettingsFixture(t)
	set := func(v string) {
		for _, n := range s.nums {
			if n.key == "askTimeoutSeconds" {
				n.entry.SetText(v)
				return
			}
		}
		t.Fatal("no askTimeoutSeconds field")
	}
	set("0")
	if s.Save() {
		t.Fatal("saved a timeout of 0 s")
	}
	if l := s.errs["askTimeoutSeconds"]; !l.Visible() || !strings.Contains(l.Text, "between 1 and 86400") {
		t.Fatalf("error next to the field: %q (visible %v)", l.Text, l.Visible())
	}
	set("45")
	if !s.Save() {
		t.Fatalf("not saved: %s", s.status.Text)
	}
	if got, err := st.Settings(context.Background()); err != nil || got.AskTimeoutSeconds != 45 {
		t.Fatalf("stored timeout = %d, %v", got.AskTimeoutSeconds, err)
	}
}

func TestSettingsInvalidOrigin(t *testing.T) {
	s, st, _ := newSettingsFixture(t)
	for _, n := range s.nums {
		if n.key == "pageSize" {
			n.entry.SetText("42")
		}
	}
	s.addOrigin("ftp://nope")
	if s.Save() {
		t.Fatal("saved settings with an invalid origin")
	}
	l := s.errs["allowedOrigins"]
	if !l.Visible() || !strings.Contains(l.Text, "ftp://nope") {
		t.Fatalf("origins error line = %q (visible %v)", l.Text, l.Visible())
	}
	for k, e := range s.errs {
		if k != "allowedOrigins" && e.Visible() {
			t.Errorf("error shown next to %s: %q", k, e.Text)
		}
	}
	set, _ := st.Settings(context.Background())
	if set.PageSize == 42 || len(set.AllowedOrigins) != 0 {
		t.Fatalf("something was saved: %+v", set)
	}
	// Allowing the Inspector after fixing the list saves both its origins.
	s.originBox.RemoveAll()
	s.origins = nil
	s.AllowInspector()
	set, _ = st.Settings(context.Background())
	if len(set.AllowedOrigins) != 2 || l.Visible() {
		t.Fatalf("origins after Allow MCP Inspector = %v (error %q)", set.AllowedOrigins, l.Text)
	}
}

func TestSettingsTokens(t *testing.T) {
	s, st, w := newSettingsFixture(t)
	ctx := context.Background()
	if !s.CreateToken("ci", nil) {
		t.Fatal("token not created")
	}
	var secret string
	walk(w.Canvas().Overlays().Top(), func(o fyne.CanvasObject) {
		if l, ok := o.(*widget.Label); ok && l.Text != "" {
			if p, err := st.VerifyToken(ctx, l.Text); err == nil && p.Token == "ci" {
				secret = l.Text
			}
		}
	})
	if secret == "" {
		t.Fatal("the dialog shows no secret that verifies")
	}
	test.Tap(overlayButton(t, w, "Done"))
	for _, x := range texts(w) {
		if strings.Contains(x, secret) {
			t.Fatalf("the secret is still shown after the dialog closed: %q", x)
		}
	}
	if len(s.tokens) != 1 || s.tokens[0].Name != "ci" {
		t.Fatalf("token list = %+v", s.tokens)
	}
	s.RevokeToken("ci")
	if ts, _ := st.ListTokens(ctx); len(ts) != 0 || len(s.tokens) != 0 {
		t.Fatalf("tokens after revoke: %+v", ts)
	}
	if _, err := st.VerifyToken(ctx, secret); err == nil {
		t.Fatal("a revoked token still verifies")
	}
}

func TestSettingsSecret(t *testing.T) {
	s, st, w := newSettingsFixture(t)
	ctx := context.Background()
	const value = "s3cr3t-value-xyz"
	s.ShowSetSecret("")
	var name, pass *widget.Entry
	walk(w.Canvas().Overlays().Top(), func(o fyne.CanvasObject) {
		if e, ok := o.(*widget.Entry); ok {
			if e.Password {
				pass = e
			} else if name == nil {
				name = e
			}
		}
	})
	if name == nil || pass == nil {
		t.Fatal("the dialog has no name and password entries")
	}
	test.Type(name, "gh")
	test.Type(pass, value)
	test.Tap(overlayButton(t, w, "Save"))
	sec, err := st.OpenSecrets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := sec.Secret(ctx, "gh"); err != nil || got != value {
		t.Fatalf("stored secret = %q, %v", got, err)
	}
	if len(s.secrets) != 1 || s.secrets[0].Name != "gh" {
		t.Fatalf("secret list = %+v", s.secrets)
	}
	if n := len(w.Canvas().Overlays().List()); n != 0 {
		t.Fatalf("%d overlay(s) still open after Save", n)
	}
	if pass.Text != "" {
		t.Fatal("the password entry still holds the value")
	}
	for _, x := range texts(w) {
		if strings.Contains(x, value) {
			t.Fatalf("the secret value is shown: %q", x)
		}
	}
	s.RenameSecret("gh", "github")
	if got, err := sec.Secret(ctx, "github"); err != nil || got != value {
		t.Fatalf("renamed secret = %q, %v", got, err)
	}
	s.DeleteSecret("github")
	if len(s.secrets) != 0 {
		t.Fatalf("secrets after delete: %+v", s.secrets)
	}
}

// portServer is a Server whose port moves on SetPort, unless the port is in
// taken (then it fails as the real one does).
type portServer struct {
	port  int
	taken map[int]bool
	calls []int
}

func (p *portServer) URL() string    { return fmt.Sprintf("http://127.0.0.1:%d/mcp", p.port) }
func (p *portServer) Paused() bool   { return false }
func (p *portServer) SetPaused(bool) {}
func (p *portServer) SetPort(n int) error {
	p.calls = append(p.calls, n)
	if p.taken[n] {
		return fmt.Errorf("port %d is taken by another program; mcptray keeps serving on port %d", n, p.port)
	}
	p.port = n
	return nil
}

func TestSettingsInvalidPort(t *testing.T) {
	srv := &portServer{port: 8731}
	s, st, w := newSettingsFixtureWith(t, srv)
	s.port.SetText("")
	test.Type(s.port, "70000")
	s.Save()
	l := s.errs["port"]
	if !l.Visible() || !strings.Contains(l.Text, "65535") {
		t.Fatalf("port error line = %q (visible %v)", l.Text, l.Visible())
	}
	set, _ := st.Settings(context.Background())
	if set.Port != mcpcore.DefaultPort || len(srv.calls) != 0 {
		t.Fatalf("stored port %d, SetPort calls %v", set.Port, srv.calls)
	}
	s.port.SetText("")
	test.Type(s.port, "abc")
	if s.Save() || !strings.Contains(l.Text, "whole number") {
		t.Fatalf("port abc: error line %q", l.Text)
	}
	if !slices.Contains(texts(w), "http://127.0.0.1:8731/mcp") {
		t.Fatal("the endpoint is not shown")
	}
}

func TestSettingsPortTakenKeepsStoredPort(t *testing.T) {
	srv := &portServer{port: 8731, taken: map[int]bool{9000: true}}
	s, st, _ := newSettingsFixtureWith(t, srv)
	s.port.SetText("9000")
	if s.Save() {
		t.Fatal("saved with a taken port")
	}
	if l := s.errs["port"]; !l.Visible() || !strings.Contains(l.Text, "9000 is taken") {
		t.Fatalf("port error line = %q", l.Text)
	}
	if set, _ := st.Settings(context.Background()); set.Port != mcpcore.DefaultPort {
		t.Fatalf("stored port %d after a failed move", set.Port)
	}
	// A free port: the server moves, the port is stored, the note says
	// what to reinstall.
	s.port.SetText("9001")
	if !s.Save() {
		t.Fatalf("not saved: %s", s.status.Text)
	}
	if set, _ := st.Settings(context.Background()); set.Port != 9001 || srv.port != 9001 {
		t.Fatalf("stored port %d, serving on %d", set.Port, srv.port)
	}
	if !strings.Contains(s.status.Text, "install them again") || s.endpoint.Text != "http://127.0.0.1:9001/mcp" {
		t.Fatalf("status %q, endpoint %q", s.status.Text, s.endpoint.Text)
	}
	// Saving other settings does not move it again.
	n := len(srv.calls)
	if !s.Save() || len(srv.calls) != n {
		t.Fatalf("SetPort calls %v after an unrelated save", srv.calls)
	}
}

func TestSettingsAskPolicyAndTaskWindowPreference(t *testing.T) {
	s, st, w := newSettingsFixture(t)
	if s.ask.Selected != askChoices[0].label {
		t.Fatalf("ask policy shown: %q", s.ask.Selected)
	}
	s.ask.SetSelected(askChoices[1].label)
	if !s.Save() {
		t.Fatalf("not saved: %s", s.status.Text)
	}
	if set, _ := st.Settings(context.Background()); set.AskPolicy != mcpcore.AskClientOnly {
		t.Fatalf("stored ask policy %q", set.AskPolicy)
	}
	var check *widget.Check
	walk(w.Content(), func(o fyne.CanvasObject) {
		if c, ok := o.(*widget.Check); ok && strings.Contains(c.Text, "task window") {
			check = c
		}
	})
	if check == nil || check.Checked {
		t.Fatalf("task-window checkbox: %v", check)
	}
	test.Tap(check)
	if !s.app.Preferences().Bool(PrefOpenTaskWindow) {
		t.Fatal("the preference is not set after ticking the box")
	}
	test.Tap(check)
	if s.app.Preferences().Bool(PrefOpenTaskWindow) {
		t.Fatal("the preference is still set after unticking the box")
	}
}

// TestSettingsPortComparedWithTheServedOne: started with --addr on another
// port than the stored one, saving other settings leaves the server where
// it is; typing a port moves it from there, and the note names that port.
func TestSettingsPortComparedWithTheServedOne(t *testing.T) {
	srv := &portServer{port: 9999}
	s, st, _ := newSettingsFixtureWith(t, srv)
	if s.port.Text != "8731" {
		t.Fatalf("the port field shows %q, the stored port is 8731", s.port.Text)
	}
	if !s.Save() || len(srv.calls) != 0 {
		t.Fatalf("saving untouched settings: %q, SetPort calls %v", s.status.Text, srv.calls)
	}
	s.port.SetText("9001")
	if !s.Save() {
		t.Fatalf("not saved: %s", s.status.Text)
	}
	if srv.port != 9001 || !strings.Contains(s.status.Text, "still name port 9999") {
		t.Fatalf("serving on %d; status %q", srv.port, s.status.Text)
	}
	if set, _ := st.Settings(context.Background()); set.ListenPort() != 9001 {
		t.Errorf("stored port %d", set.ListenPort())
	}
}
