package app

import (
	"context"
	"slices"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/app/tryit"
	"github.com/mcptray/mcptray/assets"
	"github.com/mcptray/mcptray/internal/daemon"
	"github.com/mcptray/mcptray/internal/testserver"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// loggedServer is a real store and engine behind a real HTTP server, the
// engine writing its activity log through a real ActivityWriter.
type loggedServer struct {
	d   *daemon.Daemon
	st  *storage.Store
	w   *storage.ActivityWriter
	url string
}

func newLoggedServer(t *testing.T) *loggedServer {
	t.Helper()
	s := testserver.Start(t, testserver.Options{})
	return &loggedServer{d: s.Daemon, st: s.Store, w: s.Activity, url: s.URL}
}

// listToolsAs lists the tools with the official go-sdk client, introducing
// itself as client.
func (s *loggedServer) listToolsAs(t *testing.T, client string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testutil.Patience)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: client, Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("%s connecting: %v", client, err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("%s tools/list: %v", client, err)
	}
}

func (s *loggedServer) flush(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testutil.Patience)
	defer cancel()
	if err := s.w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestTrayListsRecentClients(t *testing.T) {
	a := test.NewTempApp(t)
	s := newLoggedServer(t)
	u := New(a, Config{Store: s.st, Server: s.d})
	m := u.menu
	if m.menu.Items[1] != m.clients || !m.clients.Disabled {
		t.Fatal("the clients line is not the menu's second, disabled line")
	}
	if m.clients.Label != "Clients: looking…" {
		t.Errorf("before the first look: %q", m.clients.Label)
	}
	w := m.newWatcher()
	w.round(t.Context())
	if m.clients.Label != "No client in the last 10 minutes" {
		t.Errorf("no request yet: %q", m.clients.Label)
	}

	s.listToolsAs(t, "Claude Code")
	s.listToolsAs(t, tryit.ClientName)
	// A request of the Try it token that names no client (turned away
	// before its clientInfo was read).
	s.w.Record(mcpcore.Activity{Token: tryit.TokenName, Method: "HTTP POST", Outcome: mcpcore.OutcomeError})
	// A client seen long ago.
	s.w.Record(mcpcore.Activity{Time: time.Now().Add(-time.Hour), Client: "Cursor", Method: "tools/list", Outcome: mcpcore.OutcomeOK})
	s.flush(t)

	w.looked = time.Time{} // the next round looks again, without waiting recentClientCheck
	w.round(t.Context())
	if want := "Clients: Claude Code (last 10 min)"; m.clients.Label != want {
		t.Errorf("clients line %q, want %q", m.clients.Label, want)
	}
}

func TestClientsLine(t *testing.T) {
	for _, c := range []struct {
		recent []string
		want   string
	}{
		{nil, "Clients: looking…"},
		{[]string{}, "No client in the last 10 minutes"},
		{[]string{"Claude Code", "Cursor"}, "Clients: Claude Code, Cursor (last 10 min)"},
		{[]string{"a", "b", "c", "d", "e"}, "Clients: a, b, c and 2 more (last 10 min)"},
	} {
		if got := clientsLine(c.recent); got != c.want {
			t.Errorf("clientsLine(%q) = %q, want %q", c.recent, got, c.want)
		}
	}
}

func TestTrayOpensTheTaskWindowWhenATaskStarts(t *testing.T) {
	app := newRecordingApp(t)
	env := newTaskEnv(t)
	u := New(app, Config{Engine: env.eng})
	w := u.menu.newWatcher()
	t.Cleanup(func() {
		for _, rt := range env.eng.RunningTasks() {
			_ = env.eng.CancelTask(rt.ID)
		}
		if u.tasks != nil {
			u.tasks.closeAndWait()
		}
	})

	// The preference off (its default): a task starting opens nothing, but
	// the Tasks submenu lists it, with its progress.
	env.startTask(t, "sync.run", nil)
	w.round(t.Context())
	if u.tasks != nil {
		t.Fatal("the task window opened with the preference off")
	}
	testutil.Eventually(t, "the task in the Tasks submenu", func() bool {
		var items []string
		fyne.DoAndWait(func() { u.menu.update(); items = menuLabels(u.menu.tasks.ChildMenu) })
		return len(items) == 3 && items[0] == "sync.run — 30%" && items[2] == "Open the task window"
	})

	app.Preferences().SetBool(PrefOpenTaskWindow, true)
	w.round(t.Context())
	if u.tasks != nil {
		t.Fatal("the task window opened for a task that was running already")
	}
	id := env.startTask(t, "sync.run", nil)
	w.round(t.Context())
	if u.tasks == nil || u.tasks.win == nil || !slices.Contains(app.Driver().AllWindows(), u.tasks.win) {
		t.Fatal("a task started with the preference on, and no task window opened")
	}
	testutil.Eventually(t, "the new task in the window", func() bool {
		return onUI(u.tasks, func() bool { return u.tasks.row(id) != nil })
	})

	// Closed, the window opens again, afresh, with the next task.
	tw := u.tasks
	onUI(tw, func() bool { tw.Close(); return true })
	next := env.startTask(t, "sync.run", nil)
	w.round(t.Context())
	if u.tasks != tw || tw.win == nil {
		t.Fatal("the task window did not open again")
	}
	testutil.Eventually(t, "the next task in the reopened window", func() bool {
		return onUI(tw, func() bool { return tw.row(next) != nil })
	})
}

// variantSettings are the test app's settings with a theme variant a test
// sets, calling the listeners as a desktop theme change would.
type variantSettings struct {
	fyne.Settings
	variant   fyne.ThemeVariant
	listeners []func(fyne.Settings)
}

func (s *variantSettings) ThemeVariant() fyne.ThemeVariant   { return s.variant }
func (s *variantSettings) AddListener(l func(fyne.Settings)) { s.listeners = append(s.listeners, l) }
func (s *variantSettings) setVariant(v fyne.ThemeVariant)    { s.variant = v; s.apply() }
func (s *variantSettings) apply() {
	for _, l := range s.listeners {
		l(s)
	}
}

type variantApp struct {
	fyne.App
	settings *variantSettings
}

func (a *variantApp) Settings() fyne.Settings { return a.settings }

func TestTrayIconFollowsTheDesktopTheme(t *testing.T) {
	base := test.NewTempApp(t)
	a := &variantApp{App: base, settings: &variantSettings{Settings: base.Settings(), variant: theme.VariantLight}}
	u := New(a, Config{Server: newServed(t).d})
	m := u.menu
	if m.icon() != assets.Tray(assets.TrayServing, false) {
		t.Errorf("light desktop: icon %s", m.icon().Name())
	}
	a.settings.setVariant(theme.VariantDark)
	if m.icon() != assets.Tray(assets.TrayServing, true) {
		t.Errorf("dark desktop: icon %s", m.icon().Name())
	}
	m.pause.Action()
	if m.icon() != assets.Tray(assets.TrayPaused, true) {
		t.Errorf("paused on a dark desktop: icon %s", m.icon().Name())
	}
}
