package clientconfig

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
)

// TestImportClaudeDesktopMoveAndUndo: a Claude Desktop config with two
// servers, one with an API key in its environment. Both are proposed, the
// key goes to the secrets and appears nowhere in the servers; moving them
// out leaves only mcptray's entry (and the file's other settings); undo
// gives the file back byte for byte.
func TestImportClaudeDesktopMoveAndUndo(t *testing.T) {
	const key = "sk-ant-api03-0123456789abcdefghijklmnop"
	orig := []byte(`{
  "mcpServers": {
    "weather": {
      "command": "npx",
      "args": ["-y", "weather-mcp"],
      "env": {"WEATHER_API_KEY": "` + key + `", "UNITS": "metric"}
    },
    "files": {"command": "/usr/local/bin/files-mcp", "args": ["--root", "/home/ann"]}
  },
  "globalShortcut": "Ctrl+Space"
}
`)
	path := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	imp := readImport(t, "claude-desktop", path, ImportOptions{ShimPath: shim})
	if len(imp.Servers) != 2 || imp.Servers[0].Upstream.Name != "weather" || imp.Servers[1].Upstream.Name != "files" {
		t.Fatalf("servers = %+v, want weather and files", imp.Servers)
	}
	secrets := imp.SecretValues()
	if len(secrets) != 1 || secrets["weather_WEATHER_API_KEY"] != key {
		t.Errorf("secrets = %v, want the key as weather_WEATHER_API_KEY", secrets)
	}
	w := imp.Servers[0].Upstream
	if got := w.Command.Env["WEATHER_API_KEY"]; got != `{{secret "weather_WEATHER_API_KEY"}}` {
		t.Errorf("the key's variable is %q, want the secret's template", got)
	}
	if w.Command.Env["UNITS"] != "metric" || !slices.Equal(w.Command.Argv, []string{"npx", "-y", "weather-mcp"}) {
		t.Errorf("weather = %+v", w.Command)
	}
	var ups []catalog.Upstream
	for _, p := range imp.Servers {
		if problems := p.Upstream.Problems(); len(problems) > 0 {
			t.Errorf("%s: %v", p.Upstream.Name, problems)
		}
		ups = append(ups, p.Upstream)
	}
	if b, _ := json.Marshal(ups); bytes.Contains(b, []byte(key)) {
		t.Errorf("the key is in the servers: %s", b)
	}
	if pv := imp.Preview(); strings.Contains(pv, key) || !strings.Contains(pv, "weather_WEATHER_API_KEY") {
		t.Errorf("the preview shows the key, or not its secret's name:\n%s", pv)
	}

	c := mustLookup("claude-desktop")
	plans, err := PlanMoves(imp, Stdio, Params{ShimPath: shim})
	if err != nil || len(plans) != 1 {
		t.Fatalf("PlanMoves: %d plans, %v; want one", len(plans), err)
	}
	pl := plans[0]
	pv := pl.Preview()
	for _, want := range []string{"Claude Desktop (" + path + "): take out weather, files, and add mcptray's entry in their place.",
		"claude_desktop_config.json.mcptray-move-….bak", `-     "weather": {`, shim} {
		if !strings.Contains(pv, want) {
			t.Errorf("the move's preview does not say %q:\n%s", want, pv)
		}
	}
	if strings.Contains(pv, key) {
		t.Errorf("the move's preview shows the key")
	}
	at := time.Date(2026, 12, 3, 5, 0, 0, 0, time.UTC)
	done, err := pl.MoveOut(at)
	if err != nil {
		t.Fatal(err)
	}
	now, _ := os.ReadFile(path)
	names, err := entryNames(c, now)
	if err != nil || len(names) != 1 || names["mcptray"] == nil {
		t.Fatalf("after the move the file holds %v (%v), want only mcptray:\n%s", names, err, now)
	}
	if !bytes.Contains(now, []byte(`"globalShortcut": "Ctrl+Space"`)) {
		t.Errorf("the file's other settings went:\n%s", now)
	}
	if b, _ := os.ReadFile(done.Backup); !bytes.Equal(b, orig) {
		t.Errorf("the backup %s is not the file as it was", done.Backup)
	}
	if !strings.Contains(filepath.Base(done.Backup), "20261203T050000.000Z") {
		t.Errorf("the backup's name %s has not the move's time", done.Backup)
	}

	undone, err := UndoMove(path, false, at.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if back, _ := os.ReadFile(path); !bytes.Equal(back, orig) {
		t.Errorf("after the undo the file is\n%s\nwant\n%s", back, orig)
	}
	if !slices.Equal(undone.Moved, []string{"weather", "files"}) || undone.Saved != "" {
		t.Errorf("undone = %+v", undone)
	}
	if _, err := os.Stat(done.Backup); err == nil {
		t.Errorf("the backup is left after the undo")
	}
	if _, err := UndoMove(path, false, at); err == nil || !strings.Contains(err.Error(), "nothing to undo") {
		t.Errorf("a second undo: %v, want nothing to undo", err)
	}
}

// TestUndoRefusesAChangedFile: a file changed since the move is not put
// back unless forced, and a forced undo keeps the changed file.
func TestUndoRefusesAChangedFile(t *testing.T) {
	path := copyFixture(t, "mcp.json", "mcp.json")
	orig, _ := os.ReadFile(path)
	imp := readImport(t, "cursor", path, ImportOptions{Only: []string{"linear"}})
	c := mustLookup("cursor")
	pl, err := PlanMove(c, path, []Source{imp.Servers[0].From}, Stdio, Params{ShimPath: shim})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 3, 5, 0, 0, 0, time.UTC)
	if _, err := pl.MoveOut(at); err != nil {
		t.Fatal(err)
	}
	// The person edits the file after the move.
	edited := bytes.Replace(pl.New, []byte(`"mcpServers"`), []byte(`"theme": "dark", "mcpServers"`), 1)
	if err := os.WriteFile(path, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := UndoMove(path, false, at); err == nil || !strings.Contains(err.Error(), "changed since mcptray moved linear") {
		t.Fatalf("undo of a changed file: %v, want it refused", err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, edited) {
		t.Errorf("a refused undo wrote the file")
	}
	undone, err := UndoMove(path, true, at.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, orig) {
		t.Errorf("a forced undo did not put the file back")
	}
	if b, _ := os.ReadFile(undone.Saved); !bytes.Equal(b, edited) {
		t.Errorf("a forced undo did not keep the changed file (%q)", undone.Saved)
	}
}

// TestMoveKeepsTheRest: moving one server out of a file of each editable
// syntax — JSONC with comments, Codex's TOML, Goose's and Continue's YAML,
// a Claude Code project's list in ~/.claude.json — leaves the other
// server, the comments and the other settings as they were, adds
// mcptray's entry, and an undo gives the file back byte for byte.
func TestMoveKeepsTheRest(t *testing.T) {
	for _, tc := range []struct {
		id, fixture, as string
		move            Source // Name and Project
		stays           []string
		keptText        []string // text the moved file still holds
	}{
		{"vscode", "vscode-mcp.json", "mcp.json", Source{Name: "fs"}, []string{"github", "mcptray"},
			[]string{"// VS Code's user servers", `"id": "gh-token"`}},
		{"codex", "codex-config.toml", "config.toml", Source{Name: "docs"}, []string{"figma", "mcptray"},
			[]string{"# my servers", `model = "o3"`, `bearer_token_env_var = "FIGMA_TOKEN"`}},
		{"goose", "goose-config.yaml", "config.yaml", Source{Name: "fetch"}, []string{"developer", "remote", "mcptray"},
			[]string{"GOOSE_PROVIDER: openai", "uri: https://remote.example.com/mcp"}},
		{"continue", "continue-config.yaml", "config.yaml", Source{Name: "sqlite"}, []string{"remote-tools", "mcptray"},
			[]string{"name: my config", "timeout: 10"}},
		{"claude-code", "claude.json", ".claude.json", Source{Name: "db", Project: "/home/ann/app"}, []string{"sentry", "mcptray"},
			[]string{`"numStartups":12`, `"allowedTools":[]`}},
	} {
		t.Run(tc.id, func(t *testing.T) {
			path := copyFixture(t, tc.fixture, tc.as)
			orig, _ := os.ReadFile(path)
			c := ForFile(mustLookup(tc.id), path)
			src := tc.move
			src.File = path
			pl, err := PlanMove(c, path, []Source{src}, Stdio, Params{ShimPath: shim})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := pl.MoveOut(time.Now()); err != nil {
				t.Fatal(err)
			}
			now, _ := os.ReadFile(path)
			entries, err := ReadServers(c, path, now)
			if err != nil {
				t.Fatalf("the moved file does not read: %v\n%s", err, now)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name)
			}
			if !slices.Equal(names, tc.stays) {
				t.Errorf("after the move the file has %v, want %v:\n%s", names, tc.stays, now)
			}
			for _, want := range tc.keptText {
				if !bytes.Contains(now, []byte(want)) {
					t.Errorf("the move lost %q:\n%s", want, now)
				}
			}
			if _, err := UndoMove(path, false, time.Now()); err != nil {
				t.Fatal(err)
			}
			if back, _ := os.ReadFile(path); !bytes.Equal(back, orig) {
				t.Errorf("the undo gave\n%s\nwant\n%s", back, orig)
			}
		})
	}
}

// TestMoveRefusesAnEntryGone: a server no longer in the file (the app
// changed it since it was read) is an error, and nothing is planned.
func TestMoveRefusesAnEntryGone(t *testing.T) {
	path := copyFixture(t, "mcp.json", "mcp.json")
	_, err := PlanMove(mustLookup("cursor"), path, []Source{{File: path, Name: "nope"}}, Stdio, Params{ShimPath: shim})
	if err == nil || !strings.Contains(err.Error(), "no longer has it") || !strings.Contains(err.Error(), path) {
		t.Errorf("PlanMove of a server not there: %v", err)
	}
}

// TestMoveDuplicatesAndMode: a server in two apps is moved out of both
// (one plan a file, the servers not picked left, mcptray's entry added
// where it is not yet); a file that gets
// mcptray's token is made readable only by its owner, and the undo gives
// it its mode back.
func TestMoveDuplicatesAndMode(t *testing.T) {
	desktop := copyFixture(t, "claude_desktop_config.json", "claude_desktop_config.json")
	cursor := copyFixture(t, "mcp.json", "mcp.json")
	imp, err := ReadImport([]AppFile{{mustLookup("claude-desktop"), desktop}, {mustLookup("cursor"), cursor}},
		ImportOptions{Only: []string{"github"}, ShimPath: shim})
	if err != nil {
		t.Fatal(err)
	}
	plans, err := PlanMoves(imp, Stdio, Params{ShimPath: shim})
	if err != nil || len(plans) != 2 {
		t.Fatalf("PlanMoves: %d plans, %v; want two", len(plans), err)
	}
	for _, pl := range plans {
		if len(pl.Moved) != 1 || pl.Moved[0].Name != "github" {
			t.Errorf("%s: moves %v, want github", pl.Path, pl.Moved)
		}
		left, err := ReadServers(pl.Client, pl.Path, pl.New)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range left {
			names = append(names, e.Name)
		}
		want := map[string][]string{desktop: {"brave", "mcptray"}, cursor: {"linear", "mcptray"}}[pl.Path]
		if !slices.Equal(names, want) {
			t.Errorf("%s keeps %v, want %v", pl.Path, names, want)
		}
	}

	pl, err := PlanMove(mustLookup("cursor"), cursor, imp.Servers[0].Also, HTTP, Params{URL: "http://127.0.0.1:8731/mcp", Token: "mt_secret"})
	if err != nil || !pl.Private {
		t.Fatalf("PlanMove HTTP: private %v, %v", pl.Private, err)
	}
	if _, err := pl.MoveOut(time.Now()); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(cursor); st.Mode().Perm() != 0o600 {
		t.Errorf("the file with a token has mode %v", st.Mode().Perm())
	}
	if _, err := UndoMove(cursor, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(cursor); st.Mode().Perm() != 0o644 {
		t.Errorf("after the undo the file has mode %v, want its own 0644", st.Mode().Perm())
	}
}
