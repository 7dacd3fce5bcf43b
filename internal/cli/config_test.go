package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/clientconfig"
	"github.com/mcptray/mcptray/internal/daemon"
	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// configHome points HOME and the config dirs at a temp dir and returns it,
// with a fake shim and a database path.
func configHome(t *testing.T) (home, shim, db string) {
	home = t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	for _, k := range []string{"CODEX_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME", "COPILOT_HOME", "CLINE_MCP_SETTINGS_PATH", "CLINE_DATA_DIR", "CLINE_DIR", "GOOSE_PATH_ROOT", "CONTINUE_GLOBAL_DIR"} {
		t.Setenv(k, "")
	}
	shim = filepath.Join(home, "Program Files", "mcptray-stdio")
	os.MkdirAll(filepath.Dir(shim), 0o755)
	os.WriteFile(shim, []byte("#!/bin/sh\n"), 0o755)
	return home, shim, filepath.Join(home, "mcptray.db")
}

func TestConfigPrint(t *testing.T) {
	_, shim, db := configHome(t)
	var out bytes.Buffer
	if err := Run(context.Background(), []string{"config", "claude-desktop", "--shim", shim, "--db", db}, Env{Stdin: strings.NewReader(""), Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"command": "`+shim+`"`) || !strings.Contains(out.String(), "--install") {
		t.Errorf("print:\n%s", out.String())
	}
	if err := Run(context.Background(), []string{"config", "claude-desktop", "--http", "--db", db}, Env{Stdin: strings.NewReader(""), Stdout: &out}); err == nil || !strings.Contains(err.Error(), "stdio") {
		t.Errorf("Claude Desktop over HTTP: %v", err)
	}
	if err := Run(context.Background(), []string{"config", "nosuch"}, Env{Stdin: strings.NewReader(""), Stdout: &out}); err == nil {
		t.Error("unknown client accepted")
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("--print created the database (it must not create tokens)")
	}
}

func TestConfigInstallStdio(t *testing.T) {
	home, shim, db := configHome(t)
	path := filepath.Join(home, ".cursor", "mcp.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	orig := `{"mcpServers": {"other": {"command": "/bin/other"}}, "x": 1}`
	os.WriteFile(path, []byte(orig), 0o644)
	ctx := context.Background()

	// Declined: nothing written.
	var out bytes.Buffer
	if err := Run(ctx, []string{"config", "cursor", "--install", "--shim", shim, "--db", db}, Env{Stdin: strings.NewReader("n\n"), Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != orig || !strings.Contains(out.String(), "+ ") || !strings.Contains(out.String(), "nothing written") {
		t.Fatalf("declined but:\n%s\n%s", b, out.String())
	}
	out.Reset()
	if err := Run(ctx, []string{"config", "cursor", "--install", "--shim", shim, "--db", db}, Env{Stdin: strings.NewReader("y\n"), Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if ok, _ := clientconfig.Configured(mustClient("cursor"), b, ""); !ok || !strings.Contains(string(b), `"other"`) {
		t.Fatalf("installed:\n%s", b)
	}
	if bak, _ := os.ReadFile(path + ".bak"); string(bak) != orig {
		t.Errorf("backup: %q", bak)
	}
	if !strings.Contains(out.String(), "Next: ") {
		t.Errorf("no restart hint:\n%s", out.String())
	}
	// The shim's token is ready, readable only by the user.
	if st, err := os.Stat(filepath.Join(home, ".config", "mcptray", "shim-token")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("shim-token: %v %v", st, err)
	}
	// Again: nothing to do.
	out.Reset()
	if err := Run(ctx, []string{"config", "cursor", "--install", "--shim", shim, "--db", db, "--yes"}, Env{Stdin: strings.NewReader(""), Stdout: &out}); err != nil || !strings.Contains(out.String(), "already configured") {
		t.Errorf("second install: %v\n%s", err, out.String())
	}
}

func TestConfigInstallHTTPCreatesToken(t *testing.T) {
	home, _, db := configHome(t)
	ctx := context.Background()
	var out bytes.Buffer
	if err := Run(ctx, []string{"config", "codex", "--http", "--install", "--yes", "--db", db}, Env{Stdin: strings.NewReader(""), Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(home, ".codex", "config.toml"))
	if !strings.Contains(string(b), `bearer_token_env_var = "MCPTRAY_TOKEN"`) || strings.Contains(string(b), "placeholder") {
		t.Fatalf("config.toml:\n%s", b)
	}
	secret := ""
	for _, l := range strings.Split(out.String(), "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSpace(l), "export MCPTRAY_TOKEN="); ok {
			secret = s
		}
	}
	st, err := storage.Open(db, mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if p, err := st.VerifyToken(ctx, secret); err != nil || p.Token != "codex" {
		t.Fatalf("token %q: %v %v\n%s", secret, p, err, out.String())
	}
	// Cursor gets its own token inline.
	out.Reset()
	if err := Run(ctx, []string{"config", "cursor", "--http", "--install", "--yes", "--db", db}, Env{Stdin: strings.NewReader(""), Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(filepath.Join(home, ".cursor", "mcp.json"))
	if strings.Contains(string(b), clientconfig.TokenPlaceholder) || !strings.Contains(string(b), `"Authorization": "Bearer `) {
		t.Fatalf("cursor:\n%s", b)
	}
	if st, _ := os.Stat(filepath.Join(home, ".cursor", "mcp.json")); st.Mode().Perm() != 0o600 {
		t.Errorf("a config with a token must be private: %v", st.Mode())
	}
}

func TestConfigMalformedUntouched(t *testing.T) {
	home, shim, db := configHome(t)
	path := filepath.Join(home, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(`{"mcpServers": {`), 0o644)
	var out bytes.Buffer
	err := Run(context.Background(), []string{"config", "gemini", "--install", "--yes", "--shim", shim, "--db", db}, Env{Stdin: strings.NewReader(""), Stdout: &out})
	if err == nil || !strings.Contains(err.Error(), "untouched") {
		t.Fatalf("got %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != `{"mcpServers": {` {
		t.Errorf("file changed: %q", b)
	}
}

func TestClientsCmd(t *testing.T) {
	home, shim, db := configHome(t)
	os.MkdirAll(filepath.Join(home, ".codeium", "windsurf"), 0o755)
	var out bytes.Buffer
	if err := Run(context.Background(), []string{"config", "gemini", "--install", "--yes", "--shim", shim, "--db", db}, Env{Stdin: strings.NewReader(""), Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := Run(context.Background(), []string{"clients"}, Env{Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "gemini") || !strings.Contains(s, "configured") || !strings.Contains(s, "windsurf") || !strings.Contains(s, "not configured") || strings.Contains(s, "zed") {
		t.Errorf("clients:\n%s", s)
	}
}

func mustClient(id string) clientconfig.Client {
	c, _ := clientconfig.Lookup(id)
	return c
}

func TestShimTokenCmd(t *testing.T) {
	dir := t.TempDir()
	db, file := filepath.Join(dir, "db"), filepath.Join(dir, "tok")
	ctx := context.Background()
	var out bytes.Buffer
	if err := Run(ctx, []string{"shim-token", "--db", db, "--file", file}, Env{Stdout: &out}); err != nil || !strings.Contains(out.String(), "created") {
		t.Fatalf("%v %s", err, out.String())
	}
	first, _ := os.ReadFile(file)
	out.Reset()
	if err := Run(ctx, []string{"shim-token", "--db", db, "--file", file}, Env{Stdout: &out}); err != nil || !strings.Contains(out.String(), "valid") {
		t.Fatalf("%v %s", err, out.String())
	}
	if err := Run(ctx, []string{"shim-token", "--db", db, "--file", file, "--renew", "--quiet"}, Env{Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(file)
	if bytes.Equal(first, second) || strings.Contains(out.String(), strings.TrimSpace(string(second))) {
		t.Error("renew kept the token, or the secret was printed")
	}
	st, _ := storage.Open(db, mcpcore.Validator{})
	defer st.Close()
	if _, err := st.VerifyToken(ctx, strings.TrimSpace(string(first))); err == nil {
		t.Error("the old token still works after renew")
	}
}

// startDefault runs the real server on the default database of the
// config home, listening on its port setting as `mcptray` does; addr
// overrides it (a port of this run only).
func startDefault(t *testing.T, addr string) *daemon.Daemon {
	t.Helper()
	return startDefaultVersion(t, addr, "test")
}

// startDefaultVersion is startDefault of a server that says it is version.
func startDefaultVersion(t *testing.T, addr, version string) *daemon.Daemon {
	t.Helper()
	db, err := paths.DefaultDB()
	if err != nil {
		t.Fatal(err)
	}
	st, err := storage.Open(db, mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	set, _ := st.Settings(context.Background())
	set.Port = testutil.FreePort(t)
	if err := st.PutSettings(context.Background(), set); err != nil {
		t.Fatal(err)
	}
	st.Close()
	d, err := daemon.Start(context.Background(), daemon.Config{Addr: addr, Version: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
	return d
}

// TestConfigTwoHTTPEntriesBothConnect: a second HTTP entry for the same
// client (another --name) gets a token of its own; both entries connect
// afterwards, `clients` lists both with their files, and --remove takes
// one out and revokes its token only.
func TestConfigTwoHTTPEntriesBothConnect(t *testing.T) {
	home, _, _ := configHome(t)
	d := startDefault(t, "")
	for _, args := range [][]string{
		{"config", "cursor", "--http", "--install", "--yes"},
		{"config", "cursor", "--http", "--install", "--yes", "--name", "work"},
	} {
		if out, err := runIn(t, args...); err != nil || !strings.Contains(out, "created the token") {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	for _, name := range []string{"mcptray", "work"} {
		out, err := runIn(t, "config", "cursor", "--check", "--name", name)
		if err != nil || !strings.Contains(out, "OK: ") || !strings.Contains(out, d.URL()+" answered with") {
			t.Fatalf("check %s: %v\n%s", name, err, out)
		}
	}
	toks, _ := d.Store().ListTokens(context.Background())
	var names []string
	for _, tk := range toks {
		names = append(names, tk.Name)
	}
	if !slices.Contains(names, "cursor") || !slices.Contains(names, "cursor.work") {
		t.Fatalf("tokens: %v", names)
	}
	file := filepath.Join(home, ".cursor", "mcp.json")
	out, err := runIn(t, "clients")
	if err != nil || !strings.Contains(out, "cursor.work") || strings.Count(out, file) < 3 {
		t.Fatalf("clients:\n%s", out)
	}

	out, err = runIn(t, "config", "cursor", "--remove", "--yes", "--name", "work")
	if err != nil || !strings.Contains(out, "- ") || !strings.Contains(out, "wrote "+file) {
		t.Fatalf("remove: %v\n%s", err, out)
	}
	if out, err := runIn(t, "config", "cursor", "--check", "--name", "work"); err == nil || !strings.Contains(out, `no server named "work"`) {
		t.Fatalf("check after remove: %v\n%s", err, out)
	}
	if out, err := runIn(t, "config", "cursor", "--check"); err != nil {
		t.Fatalf("the other entry broke: %v\n%s", err, out)
	}
	toks, _ = d.Store().ListTokens(context.Background())
	if len(toks) == 0 || slices.ContainsFunc(toks, func(tk storage.TokenInfo) bool { return tk.Name == "cursor.work" }) {
		t.Fatalf("tokens after remove: %+v", toks)
	}
}

// TestConfigHTTPTargetsTheRunningServer: an HTTP install names the server
// that runs, for its database only, never a port of this run only.
func TestConfigHTTPTargetsTheRunningServer(t *testing.T) {
	_, _, other := configHome(t)
	d := startDefault(t, "127.0.0.1:0")
	_, err := runIn(t, "config", "cursor", "--http", "--install", "--yes")
	if err == nil || !strings.Contains(err.Error(), "port of this run only") {
		t.Fatalf("temporary port: %v", err)
	}
	_, err = runIn(t, "config", "cursor", "--http", "--install", "--yes", "--db", other)
	if err == nil || !strings.Contains(err.Error(), "serves the database "+d.DB()) {
		t.Fatalf("another database: %v", err)
	}
}

// TestConfigSharedFileNamesTheVariable: .mcp.json, meant to be committed,
// gets ${MCPTRAY_TOKEN} and the command to set it, never the token.
func TestConfigSharedFileNamesTheVariable(t *testing.T) {
	home, _, db := configHome(t)
	file := filepath.Join(home, "src", "app", ".mcp.json")
	out, err := runIn(t, "config", "claude-code-project", "--http", "--install", "--yes", "--file", file, "--db", db)
	if err != nil {
		t.Fatal(err)
	}
	secret := ""
	for _, l := range strings.Split(out, "\n") {
		if _, v, ok := strings.Cut(l, "export MCPTRAY_TOKEN="); ok {
			secret, _, _ = strings.Cut(v, " ")
		}
	}
	b, _ := os.ReadFile(file)
	if secret == "" || strings.Contains(string(b), secret) || !strings.Contains(string(b), `"Bearer ${MCPTRAY_TOKEN}"`) {
		t.Fatalf("file:\n%s\noutput:\n%s", b, out)
	}
}

// TestConfigHTTPMakesTheFilePrivate: an existing file readable by others
// that gets a token is made readable only by its owner, and that is said.
func TestConfigHTTPMakesTheFilePrivate(t *testing.T) {
	home, _, db := configHome(t)
	path := filepath.Join(home, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(`{"theme": "x"}`), 0o644)
	out, err := runIn(t, "config", "gemini", "--http", "--install", "--yes", "--db", db)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 || !strings.Contains(out, "made "+path+" readable only by you (it was 0644)") {
		t.Fatalf("mode %v:\n%s", st.Mode(), out)
	}
	if b, _ := os.ReadFile(path); bytes.HasSuffix(b, []byte("\n")) {
		t.Errorf("a final newline was added: %q", b)
	}
}

// TestConfigFromABuildFolder: a shim in a checkout's bin/ works but is
// warned about, with how to install.
func TestConfigFromABuildFolder(t *testing.T) {
	home, _, db := configHome(t)
	checkout := filepath.Join(home, "src", "mcptray")
	shim := filepath.Join(checkout, "bin", "mcptray-stdio")
	os.MkdirAll(filepath.Dir(shim), 0o755)
	os.WriteFile(filepath.Join(checkout, "go.mod"), []byte("module github.com/mcptray/mcptray\n\ngo 1.26\n"), 0o644)
	os.WriteFile(shim, []byte("#!/bin/sh\n"), 0o755)
	out, err := runIn(t, "config", "cursor", "--install", "--yes", "--shim", shim, "--db", db)
	if err != nil || !strings.Contains(out, "build folder in "+checkout) || !strings.Contains(out, "make install") {
		t.Fatalf("%v\n%s", err, out)
	}
}

// TestConfigHonoursClaudeConfigDir: Claude Code reads its config where
// CLAUDE_CONFIG_DIR says, and so does mcptray.
func TestConfigHonoursClaudeConfigDir(t *testing.T) {
	home, shim, db := configHome(t)
	dir := filepath.Join(home, "claude-work")
	t.Setenv("CLAUDE_CONFIG_DIR", dir)
	if _, err := runIn(t, "config", "claude-code", "--install", "--yes", "--shim", shim, "--db", db); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".claude.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude.json")); err == nil {
		t.Fatal("~/.claude.json was written")
	}
}

// TestHelpListsEveryClient: --help names every client config knows.
func TestHelpListsEveryClient(t *testing.T) {
	out, _ := runIn(t, "--help")
	for _, id := range clientconfig.IDs() {
		if !strings.Contains(out, id) {
			t.Errorf("--help omits %s", id)
		}
	}
}

// runIn runs a command line with no input and returns its output.
func runIn(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return runVersion(t, "test", args...)
}

// runVersion is runIn by an mcptray of version.
func runVersion(t *testing.T, version string, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := Run(context.Background(), args, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out, Version: version})
	return out.String(), err
}

// TestConfigCheckSaysTheServerIsOlder: after an update, an entry that
// connects to the mcptray still running the old program is not OK:
// --check names both versions and what to do.
func TestConfigCheckSaysTheServerIsOlder(t *testing.T) {
	configHome(t)
	d := startDefaultVersion(t, "", "0.1.0")
	if out, err := runVersion(t, "0.1.0", "config", "cursor", "--http", "--install", "--yes"); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	if out, err := runVersion(t, "0.1.0", "config", "cursor", "--check"); err != nil || !strings.Contains(out, "OK: ") {
		t.Fatalf("the same version: %v\n%s", err, out)
	}
	out, err := runVersion(t, "0.1.1", "config", "cursor", "--check")
	for _, want := range []string{"FAILED: ", d.URL() + " answered with", "version 0.1.0, older than the installed 0.1.1", "fix: Start mcptray again"} {
		if err == nil || !strings.Contains(out, want) {
			t.Fatalf("checked by 0.1.1: %v, want %q in\n%s", err, want, out)
		}
	}
	// An unstamped build ("dev", "test") has no version to compare.
	if out, err := runVersion(t, "dev", "config", "cursor", "--check"); err != nil || !strings.Contains(out, "OK: ") {
		t.Fatalf("checked by a dev build: %v\n%s", err, out)
	}
}

// TestConfigSharedFileNamesTheShimOnPath: a file meant to be shared (a
// project's .mcp.json, a .cursor/mcp.json in a repository) names
// mcptray-stdio without its folder, and the person is told what that asks
// of teammates — warned when PATH does not find it here; their own file
// keeps the absolute path.
func TestConfigSharedFileNamesTheShimOnPath(t *testing.T) {
	home, shim, db := configHome(t)
	repo := filepath.Join(home, "src", "app")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	named := `"command": "mcptray-stdio"`
	t.Setenv("PATH", filepath.Dir(shim))
	for _, tc := range []struct{ client, file string }{
		{"claude-code-project", filepath.Join(repo, ".mcp.json")},
		{"cursor", filepath.Join(repo, ".cursor", "mcp.json")},
	} {
		out, err := runIn(t, "config", tc.client, "--install", "--yes", "--shim", shim, "--file", tc.file, "--db", db)
		b, _ := os.ReadFile(tc.file)
		if err != nil || !strings.Contains(string(b), named) || strings.Contains(string(b), shim) ||
			!strings.Contains(out, "note: This file is meant to be shared") || strings.Contains(out, "warning") {
			t.Fatalf("%s: %v\n%s\noutput:\n%s", tc.client, err, b, out)
		}
	}

	// Not on PATH: the same entry, and a warning in plain words.
	t.Setenv("PATH", t.TempDir())
	file := filepath.Join(repo, ".mcp.json")
	os.Remove(file)
	out, err := runIn(t, "config", "claude-code-project", "--install", "--yes", "--shim", shim, "--file", file, "--db", db)
	b, _ := os.ReadFile(file)
	if err != nil || !strings.Contains(string(b), named) ||
		!strings.Contains(out, "warning: mcptray-stdio is not on your PATH") || !strings.Contains(out, "needs mcptray installed") {
		t.Fatalf("not on PATH: %v\n%s\noutput:\n%s", err, b, out)
	}

	// The person's own file names the program where it is.
	out, err = runIn(t, "config", "claude-code", "--install", "--yes", "--shim", shim, "--db", db)
	b, _ = os.ReadFile(filepath.Join(home, ".claude.json"))
	if err != nil || !strings.Contains(string(b), `"command": "`+shim+`"`) || strings.Contains(out, "shared") {
		t.Fatalf("user scope: %v\n%s\noutput:\n%s", err, b, out)
	}
}

// TestConfigHintsNameTheEntry: the commands a person is told to run next
// act on the entry just written, with its --name, --file and --db.
func TestConfigHintsNameTheEntry(t *testing.T) {
	home, shim, db := configHome(t)
	out, err := runIn(t, "config", "cursor", "--http", "--install", "--yes", "--name", "mcptray-b", "--db", db)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"mcptray config cursor --remove --name mcptray-b --db " + db, "mcptray config cursor --check --name mcptray-b --db " + db} {
		if !strings.Contains(out, want) {
			t.Errorf("the output does not say %q:\n%s", want, out)
		}
	}
	file := filepath.Join(home, "my project", "mcp.json")
	out, err = runIn(t, "config", "cursor", "--install", "--yes", "--shim", shim, "--file", file, "--db", db)
	if want := "mcptray config cursor --check --file '" + file + "' --db " + db; err != nil || !strings.Contains(out, want) {
		t.Errorf("%v: the output does not say %q:\n%s", err, want, out)
	}
	out, err = runIn(t, "config", "cursor", "--http", "--name", "b", "--db", db)
	if want := "mcptray config cursor --http --install --name b --db " + db; err != nil || !strings.Contains(out, want) {
		t.Errorf("%v: the output does not say %q:\n%s", err, want, out)
	}
}

// Continue: mcptray's own file for the IDE extension always; config.yaml,
// which the CLI (cn) reads, only once it exists, never created.
func TestConfigContinueBothFiles(t *testing.T) {
	home, shim, db := configHome(t)
	ctx := context.Background()
	own := filepath.Join(home, ".continue", "mcpServers", "mcptray.json")
	yml := filepath.Join(home, ".continue", "config.yaml")
	var out bytes.Buffer
	if err := Run(ctx, []string{"config", "continue", "--install", "--yes", "--shim", shim, "--db", db}, Env{Stdin: strings.NewReader(""), Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(yml); !os.IsNotExist(err) || !strings.Contains(out.String(), yml+": left alone: it does not exist") {
		t.Fatalf("config.yaml was created (%v), or no word about it:\n%s", err, out.String())
	}
	if b, _ := os.ReadFile(own); !strings.Contains(string(b), shim) {
		t.Fatalf("%s:\n%s", own, b)
	}
	mine := "name: Local Config\nversion: 1.0.0\nschema: v1\nmodels: [] # cn's\n"
	os.WriteFile(yml, []byte(mine), 0o644)
	out.Reset()
	if err := Run(ctx, []string{"config", "continue", "--install", "--yes", "--shim", shim, "--db", db}, Env{Stdin: strings.NewReader(""), Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(yml)
	if want := mine + "mcpServers:\n  - name: mcptray\n    command: " + strconvQuote(shim) + "\n    args: []\n"; string(b) != want {
		t.Fatalf("config.yaml:\n%s\nwant:\n%s\nsaid:\n%s", b, want, out.String())
	}
	if !strings.Contains(out.String(), own+": mcptray is already configured there") {
		t.Errorf("the own file again:\n%s", out.String())
	}
	// --remove takes both out: the own file goes, config.yaml keeps the rest.
	out.Reset()
	if err := Run(ctx, []string{"config", "continue", "--remove", "--yes", "--db", db}, Env{Stdin: strings.NewReader(""), Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(yml); string(b) != mine+"mcpServers: []\n" {
		t.Errorf("config.yaml after --remove:\n%s", b)
	}
	if _, err := os.Stat(own); !os.IsNotExist(err) {
		t.Errorf("%s after --remove: %v", own, err)
	}
}

// strconvQuote is s as a JSON (and YAML double-quoted) string.
func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
