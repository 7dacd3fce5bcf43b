package daemon

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/examples"
	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/internal/testcatalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// userConfig points the user's config dir at a temporary one and returns
// a server config on the default database there.
func userConfig(t *testing.T) Config {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	l, err := paths.Default()
	if err != nil {
		t.Fatal(err)
	}
	return Config{Addr: "127.0.0.1:0", EndpointFile: l.EndpointFile(), Version: "test"}
}

// userDB is userConfig with the default database opened, for a test to
// put there what an earlier run left before a server starts; the test
// closes it.
func userDB(t *testing.T) (Config, *storage.Store) {
	t.Helper()
	cfg := userConfig(t)
	db, err := paths.DefaultDB()
	if err != nil {
		t.Fatal(err)
	}
	st, err := storage.Open(db, mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, st
}

func starterTools(t *testing.T) int {
	t.Helper()
	cat, err := mcpcore.ParseCatalog(examples.Starter)
	if err != nil {
		t.Fatal(err)
	}
	return len(cat.Tools)
}

func toolCount(t *testing.T, d *Daemon) int {
	t.Helper()
	c, err := d.Store().Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return len(c.Tools)
}

// TestSeedWhenNeverSeeded: a command run before the first start (here the
// database a `config --install` creates, with a token in it) does not keep
// the starter catalog away; the first server on the default database seeds
// it once, and the welcome is given once, to the first app that asks.
func TestSeedWhenNeverSeeded(t *testing.T) {
	ctx := context.Background()
	cfg, st := userDB(t)
	if _, err := st.CreateToken(ctx, "cursor", nil); err != nil {
		t.Fatal(err)
	}
	st.Close()

	d := start(t, cfg)
	if !d.Seeded() || toolCount(t, d) != starterTools(t) {
		t.Fatalf("first start: seeded %v, %d tools", d.Seeded(), toolCount(t, d))
	}
	c, _ := d.Store().Catalog(ctx)
	if err := d.Store().DeleteTool(ctx, c.Tools[0].Name); err != nil {
		t.Fatal(err)
	}
	d.Stop()

	// A headless start seeded it; the app started later still welcomes, once.
	d = start(t, cfg)
	if d.Seeded() || toolCount(t, d) != starterTools(t)-1 {
		t.Fatalf("second start: seeded %v, %d tools (a deleted example came back?)", d.Seeded(), toolCount(t, d))
	}
	if w, err := d.TakeWelcome(ctx); !w || err != nil {
		t.Fatalf("never welcomed, but TakeWelcome = %v, %v", w, err)
	}
	if w, _ := d.TakeWelcome(ctx); w {
		t.Fatal("welcomed twice")
	}
}

// TestNoSeedForANamedDatabase: a database named with --db is never seeded
// nor welcomed, new or not.
func TestNoSeedForANamedDatabase(t *testing.T) {
	userConfig(t)
	d := start(t, testConfig(t.TempDir()))
	if d.Seeded() || toolCount(t, d) != 0 {
		t.Fatalf("seeded %v, %d tools", d.Seeded(), toolCount(t, d))
	}
	if w, _ := d.TakeWelcome(context.Background()); w {
		t.Fatal("a named database was welcomed")
	}
}

// TestNoSeedOverACatalog: a default database with a catalog of its own
// (the person's, or one an older mcptray seeded without recording it) is
// left as it is, and nobody is welcomed again.
func TestNoSeedOverACatalog(t *testing.T) {
	ctx := context.Background()
	cfg, st := userDB(t)
	if err := st.PutTool(ctx, testcatalog.RespondTool("mine", "hi")); err != nil {
		t.Fatal(err)
	}
	st.Close()
	d := start(t, cfg)
	if d.Seeded() || toolCount(t, d) != 1 {
		t.Fatalf("seeded %v, %d tools", d.Seeded(), toolCount(t, d))
	}
	if w, _ := d.TakeWelcome(ctx); w {
		t.Fatal("an existing user was welcomed again")
	}
}

// TestOldExamplesBroughtUpToDate: a database seeded by an earlier mcptray
// (testdata: the first starter catalog, whose search_notes ran grep and
// failed when nothing matched) gets this version's examples where the
// person left them as they came, disabled ones staying disabled, once;
// one they edited stays as they made it.
func TestOldExamplesBroughtUpToDate(t *testing.T) {
	ctx := context.Background()
	cfg, st := userDB(t)
	old, err := os.ReadFile(filepath.Join("testdata", "starter-2026-11-29.json"))
	if err != nil {
		t.Fatal(err)
	}
	oldCat, err := mcpcore.ParseCatalog(old)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Import(ctx, oldCat, false); err != nil {
		t.Fatal(err)
	}
	if err := st.SetToolDisabled(ctx, "search_notes", true); err != nil {
		t.Fatal(err)
	}
	mine, err := st.Tool(ctx, "run_script")
	if err != nil {
		t.Fatal(err)
	}
	mine.Description = "Runs my scripts."
	if err := st.PutTool(ctx, mine); err != nil {
		t.Fatal(err)
	}
	if err := st.SetState(ctx, stateSeeded, true); err != nil {
		t.Fatal(err)
	}
	st.Close()

	var said testutil.SyncBuffer
	cfg.Stderr = &said
	d := start(t, cfg)
	if !strings.Contains(said.String(), "brought the examples current_time, search_notes, clean_downloads up to date") {
		t.Errorf("the server said:\n%s", said.String())
	}
	now, err := mcpcore.ParseCatalog(examples.Starter)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]catalog.Tool{}
	for _, tool := range examples.On(now, runtime.GOOS).Tools {
		want[tool.Name] = tool
	}
	want["run_script"] = mine
	want["search_notes"] = func(t catalog.Tool) catalog.Tool { t.Disabled = true; return t }(want["search_notes"])
	got, err := d.Store().Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range got.Tools {
		// As stored: JSON, which drops the spaces of an input schema.
		is, _ := json.Marshal(tool)
		should, _ := json.Marshal(want[tool.Name])
		if string(is) != string(should) {
			t.Errorf("%s is now\n%s\nwant\n%s", tool.Name, is, should)
		}
	}
	if len(got.Tools) != len(want) {
		t.Errorf("%d tools, want %d", len(got.Tools), len(want))
	}
	d.Stop()

	var again testutil.SyncBuffer
	cfg.Stderr = &again
	start(t, cfg)
	if strings.Contains(again.String(), "up to date") {
		t.Errorf("the second start updated again:\n%s", again.String())
	}
}
