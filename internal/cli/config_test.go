package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/clientconfig"
	"github.com/mcptray/mcptray/storage"
)

// configHome points HOME and the config dirs at a temp dir and returns it,
// with a fake shim and a database path.
func configHome(t *testing.T) (home, shim, db string) {
	home = t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("CODEX_HOME", "")
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
	st, err := storage.Open(db)
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
	st, _ := storage.Open(db)
	defer st.Close()
	if _, err := st.VerifyToken(ctx, strings.TrimSpace(string(first))); err == nil {
		t.Error("the old token still works after renew")
	}
}
