package app

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/editor"
	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/app/link"
	"github.com/mcptray/mcptray/app/tryit"
	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/daemon"
	"github.com/mcptray/mcptray/internal/testserver"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/storage"
)

// newSettingsFixture is a Settings tab on a real running server (its
// store, secret store and listener; started on a free port, not the
// stored one), in a test window, its secrets listed.
func newSettingsFixture(t *testing.T) (*SettingsTab, *storage.Store, fyne.Window) {
	t.Helper()
	a := uitest.NewTestApp(t)
	d := testserver.Start(t, testserver.Options{}).Daemon
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	s := newSettingsTabFor(t.Context(), a, w, Config{Store: d.Store(), Secrets: d.Secrets(), Server: d})
	s.background.Wait()
	w.SetContent(s.Content())
	w.Resize(fyne.NewSize(1000, 800))
	return s, d.Store(), w
}

// servedPort is the port the fixture's server listens on now.
func servedPort(t *testing.T, s *SettingsTab) int {
	t.Helper()
	p, ok := s.servedPort()
	if !ok {
		t.Fatal("not serving")
	}
	return p
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
	uitest.Walk(w.Canvas().Overlays().Top(), func(o fyne.CanvasObject) {
		if l, ok := o.(*widget.Label); ok && l.Text != "" {
			if p, err := st.VerifyToken(ctx, l.Text); err == nil && p.Token == "ci" {
				secret = l.Text
			}
		}
	})
	if secret == "" {
		t.Fatal("the dialog shows no secret that verifies")
	}
	test.Tap(uitest.OverlayButton(t, w, "Done"))
	for _, x := range uitest.Texts(w) {
		if strings.Contains(x, secret) {
			t.Fatalf("the secret is still shown after the dialog closed: %q", x)
		}
	}
	if len(s.tokens.Items) != 1 || s.tokens.Items[0].Name != "ci" {
		t.Fatalf("token list = %+v", s.tokens.Items)
	}
	s.RevokeToken("ci")
	if ts, _ := st.ListTokens(ctx); len(ts) != 0 || len(s.tokens.Items) != 0 {
		t.Fatalf("tokens after revoke: %+v", ts)
	}
	if _, err := st.VerifyToken(ctx, secret); err == nil {
		t.Fatal("a revoked token still verifies")
	}
}

func TestSettingsSecret(t *testing.T) {
	s, _, w := newSettingsFixture(t)
	ctx := context.Background()
	const value = "s3cr3t-value-xyz"
	s.ShowSetSecret("")
	var name, pass *widget.Entry
	uitest.Walk(w.Canvas().Overlays().Top(), func(o fyne.CanvasObject) {
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
	test.Tap(uitest.OverlayButton(t, w, "Save"))
	// The keyring is called off the GUI thread.
	s.background.Wait()
	sec := s.sec
	if got, err := sec.Secret(ctx, "gh"); err != nil || got != value {
		t.Fatalf("stored secret = %q, %v", got, err)
	}
	if len(s.secrets.Items) != 1 || s.secrets.Items[0].Name != "gh" {
		t.Fatalf("secret list = %+v", s.secrets.Items)
	}
	if n := len(w.Canvas().Overlays().List()); n != 0 {
		t.Fatalf("%d overlay(s) still open after Save", n)
	}
	if pass.Text != "" {
		t.Fatal("the password entry still holds the value")
	}
	for _, x := range uitest.Texts(w) {
		if strings.Contains(x, value) {
			t.Fatalf("the secret value is shown: %q", x)
		}
	}
	s.RenameSecret("gh", "github")
	s.background.Wait()
	if got, err := sec.Secret(ctx, "github"); err != nil || got != value {
		t.Fatalf("renamed secret = %q, %v", got, err)
	}
	if len(s.secrets.Items) != 1 || s.secrets.Items[0].Name != "github" {
		t.Fatalf("secret list after the rename = %+v", s.secrets.Items)
	}
	// A change the store refuses is said in a dialog; the list stays.
	s.SetSecret("no spaces allowed", value)
	s.background.Wait()
	if top := w.Canvas().Overlays().Top(); top == nil || !slices.ContainsFunc(uitest.Texts(w), func(x string) bool { return strings.Contains(x, "no spaces allowed") }) {
		t.Fatalf("no error dialog for a refused name; texts %q", uitest.Texts(w))
	}
	if len(s.secrets.Items) != 1 || s.secrets.Items[0].Name != "github" {
		t.Fatalf("secret list after a refused change = %+v", s.secrets.Items)
	}
	w.Canvas().Overlays().Top().Hide()
	s.DeleteSecret("github")
	s.background.Wait()
	if len(s.secrets.Items) != 0 {
		t.Fatalf("secrets after delete: %+v", s.secrets.Items)
	}
}

func TestSettingsInvalidPort(t *testing.T) {
	s, st, w := newSettingsFixture(t)
	served := servedPort(t, s)
	s.port.SetText("")
	test.Type(s.port, "70000")
	s.Save()
	l := s.errs["port"]
	if !l.Visible() || !strings.Contains(l.Text, "65535") {
		t.Fatalf("port error line = %q (visible %v)", l.Text, l.Visible())
	}
	set, _ := st.Settings(context.Background())
	if set.Port != catalog.DefaultPort || servedPort(t, s) != served {
		t.Fatalf("stored port %d, serving on %d (was %d)", set.Port, servedPort(t, s), served)
	}
	s.port.SetText("")
	test.Type(s.port, "abc")
	if s.Save() || !strings.Contains(l.Text, "whole number") {
		t.Fatalf("port abc: error line %q", l.Text)
	}
	if !slices.Contains(uitest.Texts(w), s.cfg.Server.URL()) {
		t.Fatal("the endpoint is not shown")
	}
}

func TestSettingsPortTakenKeepsStoredPort(t *testing.T) {
	s, st, _ := newSettingsFixture(t)
	served := servedPort(t, s)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := taken.Addr().(*net.TCPAddr).Port
	s.port.SetText(strconv.Itoa(port))
	if s.Save() {
		t.Fatal("saved with a taken port")
	}
	if l := s.errs["port"]; !l.Visible() || !strings.Contains(l.Text, strconv.Itoa(port)+" is taken") {
		t.Fatalf("port error line = %q", l.Text)
	}
	if set, _ := st.Settings(context.Background()); set.Port != catalog.DefaultPort || servedPort(t, s) != served {
		t.Fatalf("stored port %d, serving on %d after a failed move", set.Port, servedPort(t, s))
	}
	// A free port: the server moves, the port is stored, the note says
	// what to reinstall.
	free := testutil.FreePort(t)
	s.port.SetText(strconv.Itoa(free))
	if !s.Save() {
		t.Fatalf("not saved: %s", s.status.Text)
	}
	if set, _ := st.Settings(context.Background()); set.Port != free || servedPort(t, s) != free {
		t.Fatalf("stored port %d, serving on %d, want %d", set.Port, servedPort(t, s), free)
	}
	if !strings.Contains(s.status.Text, "install them again") || s.endpoint.Text != s.cfg.Server.URL() {
		t.Fatalf("status %q, endpoint %q", s.status.Text, s.endpoint.Text)
	}
	// Saving other settings does not move it again.
	if !s.Save() || servedPort(t, s) != free {
		t.Fatalf("serving on %d after an unrelated save", servedPort(t, s))
	}
}

func TestSettingsAskPolicyAndTaskWindowPreference(t *testing.T) {
	s, st, w := newSettingsFixture(t)
	if s.ask.Selected != askChoices[0].Label {
		t.Fatalf("ask policy shown: %q", s.ask.Selected)
	}
	s.ask.SetSelected(askChoices[1].Label)
	if !s.Save() {
		t.Fatalf("not saved: %s", s.status.Text)
	}
	if set, _ := st.Settings(context.Background()); set.AskPolicy != catalog.AskClientOnly {
		t.Fatalf("stored ask policy %q", set.AskPolicy)
	}
	var check *widget.Check
	uitest.Walk(w.Content(), func(o fyne.CanvasObject) {
		if c, ok := o.(*widget.Check); ok && strings.Contains(c.Text, "task window") {
			check = c
		}
	})
	if check == nil || check.Checked {
		t.Fatalf("task-window checkbox: %v", check)
	}
	// Stored in the database, where the serving process reads it.
	stored := func() (on, ok bool) {
		ok, err := st.State(context.Background(), link.StateOpenTaskWindow, &on)
		if err != nil {
			t.Fatal(err)
		}
		return on, ok
	}
	test.Tap(check)
	if on, _ := stored(); !on {
		t.Fatal("the preference is not stored after ticking the box")
	}
	test.Tap(check)
	if on, ok := stored(); on || !ok {
		t.Fatal("the preference is still set after unticking the box")
	}
}

// TestTheTaskWindowChoiceMadeBeforeIsCarriedOver: a choice kept in Fyne's
// preferences, where mcptray kept it before, is stored once.
func TestTheTaskWindowChoiceMadeBeforeIsCarriedOver(t *testing.T) {
	s, st, _ := newSettingsFixture(t)
	s.app.Preferences().SetBool(prefOpenTaskWindowBefore, true)
	if !s.opensTaskWindow() {
		t.Fatal("the choice made before was lost")
	}
	var on bool
	if ok, err := st.State(context.Background(), link.StateOpenTaskWindow, &on); err != nil || !ok || !on {
		t.Fatalf("not stored: %v %v %v", on, ok, err)
	}
}

// TestSettingsPortComparedWithTheServedOne: started with --addr on another
// port than the stored one, saving other settings leaves the server where
// it is; typing a port moves it from there, and the note names that port.
func TestSettingsPortComparedWithTheServedOne(t *testing.T) {
	s, st, _ := newSettingsFixture(t)
	served := servedPort(t, s)
	if s.port.Text != "8731" {
		t.Fatalf("the port field shows %q, the stored port is 8731", s.port.Text)
	}
	if !s.Save() || servedPort(t, s) != served {
		t.Fatalf("saving untouched settings: %q, serving on %d (was %d)", s.status.Text, servedPort(t, s), served)
	}
	free := testutil.FreePort(t)
	s.port.SetText(strconv.Itoa(free))
	if !s.Save() {
		t.Fatalf("not saved: %s", s.status.Text)
	}
	if servedPort(t, s) != free || !strings.Contains(s.status.Text, fmt.Sprintf("still name port %d", served)) {
		t.Fatalf("serving on %d; status %q", servedPort(t, s), s.status.Text)
	}
	if set, _ := st.Settings(context.Background()); set.ListenPort() != free {
		t.Errorf("stored port %d", set.ListenPort())
	}
}

// TestSettingsTokenButtonsFollowTheSelection: Tools… and Revoke act on
// the selected token, so they are off until one is; mcptray's own tokens
// are named under the list, not in it, where they could be revoked.
func TestSettingsTokenButtonsFollowTheSelection(t *testing.T) {
	s, st, w := newSettingsFixture(t)
	ctx := context.Background()
	for _, name := range []string{tryit.TokenName, editor.ShimTokenName} {
		if _, err := st.ReplaceToken(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	if !s.CreateToken("cursor", nil) {
		t.Fatal("token not created")
	}
	test.Tap(uitest.OverlayButton(t, w, "Done"))
	// The test driver runs the change feed's reloads on its own goroutine
	// (the app runs them on the window's): selecting and reading the
	// window are done between reloads, as there.
	seen := func() []string {
		s.listing.Lock()
		defer s.listing.Unlock()
		return uitest.Seen(s.Content())
	}
	pick := func(l *widget.List) {
		s.listing.Lock()
		defer s.listing.Unlock()
		l.Select(0)
	}
	if len(s.tokens.Items) != 1 || s.tokens.Items[0].Name != "cursor" {
		t.Fatalf("listed: %+v", s.tokens.Items)
	}
	uitest.Sees(t, "the tokens, none selected", seen(),
		"label: Client tokens", "button: Create token", "button: Tools… {disabled}", "button: Revoke {disabled}",
		"label: Not listed: the tokens mcptray keeps for itself, mcptray-app (Try it) and stdio-shim (shared by every AI app started over stdio).")
	pick(s.tokens.List)
	uitest.Sees(t, "the tokens, one selected", seen(),
		"re:label: cursor  ·  all tools  ·  created .*", "button: Tools…", "button: Revoke")
	s.RevokeToken("cursor")
	uitest.Sees(t, "the tokens after a revoke", seen(), "button: Tools… {disabled}", "button: Revoke {disabled}")

	// Secrets likewise: Rename and Delete once one is selected.
	uitest.Sees(t, "the secrets, none selected", seen(), "label: Secrets", "button: Add / replace", "button: Rename {disabled}", "button: Delete {disabled}")
	s.SetSecret("gh", "value")
	s.background.Wait()
	pick(s.secrets.List)
	uitest.Sees(t, "the secrets, one selected", seen(), "re:label: gh  ·  updated .*", "button: Rename", "button: Delete")
}

// TestShimTokenNameIsTheDaemons: the Settings tab keeps the stdio shim's
// token out of the revocable ones by the name the daemon gives it.
func TestShimTokenNameIsTheDaemons(t *testing.T) {
	if editor.ShimTokenName != daemon.ShimTokenName {
		t.Fatalf("the app names the shim's token %q, the daemon %q", editor.ShimTokenName, daemon.ShimTokenName)
	}
}

// TestSettingsShowsEveryProblemAtOnce: numbers, an origin and the port are
// checked in one go; the count matches the lines shown, and the first
// problem's field gets the focus, scrolled into view.
func TestSettingsShowsEveryProblemAtOnce(t *testing.T) {
	s, _, w := newSettingsFixture(t)
	w.Resize(fyne.NewSize(760, 540))
	for _, n := range s.nums {
		if n.key == "pageSize" || n.key == "askTimeoutSeconds" {
			n.entry.SetText("lots")
		}
	}
	s.addOrigin("ftp://nope")
	if s.Save() {
		t.Fatal("saved")
	}
	shown := ui.ShownProblems(s.scroll)
	if len(shown) != 3 || !strings.HasPrefix(s.status.Text, "Not saved: 3 problems,") {
		t.Fatalf("status %q; shown %q", s.status.Text, shown)
	}
	if got := w.Canvas().Focused(); got != s.origins[0] || s.scroll.Offset.Y == 0 {
		t.Errorf("focused %T at offset %v, want the origin, scrolled to", got, s.scroll.Offset)
	}
}

// TestSettingsSayTheActivityLimits: the activity log is bounded by its
// size as well as its rows, and Settings says both beside the row limit,
// in words: how many of the latest requests, and up to how many MB.
func TestSettingsSayTheActivityLimits(t *testing.T) {
	_, _, w := newSettingsFixture(t)
	texts := strings.Join(uitest.Texts(w), "\n")
	for _, want := range []string{"Activity: keep the latest", "requests, up to 50 MB", "50 MB of disk space holds over 100,000 ordinary requests"} {
		if !strings.Contains(texts, want) {
			t.Errorf("Settings does not say %q", want)
		}
	}
}

// wheelNotch is what the mouse wheel scrolls by in one notch, as Fyne's
// desktop driver reports it on Linux and Windows.
const wheelNotch = 25

// TestSettingsEndIsFewWheelNotchesAway: in a 1366×768 window, 15 notches
// of the wheel, the pointer held still in the middle of Settings, reach
// the end of the page (Save settings), whatever passes under the pointer
// on the way: the tokens' list, the approvals' table, the fields.
func TestSettingsEndIsFewWheelNotchesAway(t *testing.T) {
	a := uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	m := NewManager(a, Config{Store: s.St, Approvals: s.Eng, Server: s.D})
	t.Cleanup(m.win.Close)
	m.win.Resize(fyne.NewSize(1366, 768))
	m.tabs.SelectIndex(5)
	m.settings.background.Wait()
	sc := m.settings.scroll
	end := sc.Content.MinSize().Height - sc.Size().Height
	t.Logf("Settings: %.0f high in a %.0f high view", sc.Content.MinSize().Height, sc.Size().Height)
	middle := fyne.NewPos(m.win.Canvas().Size().Width/2, m.win.Canvas().Size().Height/2)
	notches := 0
	for ; notches < 15 && sc.Offset.Y < end-1; notches++ {
		test.Scroll(m.win.Canvas(), middle, 0, -wheelNotch)
	}
	if sc.Offset.Y < end-1 {
		t.Fatalf("15 notches scrolled Settings to %.0f of %.0f", sc.Offset.Y, end)
	}
	t.Logf("%d notches reach the end", notches)
}
