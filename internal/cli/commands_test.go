package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/examples"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// run runs a command line against db and returns stdout.
func run(t *testing.T, db string, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := Run(context.Background(), append(args, "--db", db), Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &out, Version: "test"})
	return out.String(), err
}

func TestImportExportToggleAndTokens(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "x.db")
	starter := filepath.Join(dir, "starter.json")
	if err := os.WriteFile(starter, examples.Starter, 0o600); err != nil {
		t.Fatal(err)
	}
	want, err := mcpcore.ParseCatalog(examples.Starter)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, db, "import", starter); err != nil || !strings.Contains(out, "imported") {
		t.Fatalf("import: %q, %v", out, err)
	}
	// A broken file changes nothing and says where it breaks.
	broken := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(broken, []byte(`{"format": "mcptray-catalog", "version": 1, "tools": [{"name": "x"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, db, "import", broken, "--merge"); err == nil || !strings.Contains(err.Error(), "description") {
		t.Fatalf("importing a tool without a description: %v", err)
	}

	out, err := run(t, db, "export")
	if err != nil {
		t.Fatal(err)
	}
	got, err := mcpcore.ParseCatalog([]byte(out))
	if err != nil || len(got.Tools) != len(want.Tools) || len(got.Prompts) != len(want.Prompts) {
		t.Fatalf("export to stdout: %d tools, %d prompts, %v", len(got.Tools), len(got.Prompts), err)
	}
	file := filepath.Join(dir, "out.json")
	if _, err := run(t, db, "export", file); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(file); err != nil || !json.Valid(b) || string(b) != out {
		t.Fatalf("export to a file differs from stdout (%v)", err)
	}

	tool, prompt := want.Tools[0].Name, want.Prompts[0].Name
	for _, step := range []struct {
		args []string
		want string
	}{
		{[]string{"tool", "disable", tool}, "tool " + tool + " is now disabled"},
		{[]string{"tool", "toggle", tool}, "tool " + tool + " is now enabled"},
		{[]string{"tool", "toggle", tool}, "tool " + tool + " is now disabled"},
		{[]string{"tool", "enable", tool}, "tool " + tool + " is now enabled"},
		{[]string{"prompt", "toggle", prompt}, "prompt " + prompt + " is now disabled"},
	} {
		if out, err := run(t, db, step.args...); err != nil || strings.TrimSpace(out) != step.want {
			t.Fatalf("%v: %q, %v", step.args, out, err)
		}
	}
	if _, err := run(t, db, "tool", "toggle", "no_such_tool"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("toggling a missing tool: %v", err)
	}

	secret, err := run(t, db, "token", "create", "ci", "--tools", tool+", other")
	if err != nil || !strings.HasPrefix(secret, "mcpt_") {
		t.Fatalf("token create: %q, %v", secret, err)
	}
	if out, err := run(t, db, "token", "list"); err != nil || !strings.Contains(out, "ci") || !strings.Contains(out, tool+",other") {
		t.Fatalf("token list: %q, %v", out, err)
	}
	if _, err := run(t, db, "token", "revoke", "ci"); err != nil {
		t.Fatal(err)
	}
	st, err := storage.Open(db, mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.VerifyToken(context.Background(), strings.TrimSpace(secret)); err == nil {
		t.Fatal("a revoked token still verifies")
	}
	if p, _ := st.Prompt(context.Background(), prompt); !p.Disabled {
		t.Fatal("the prompt toggled off is enabled in the database")
	}
}

// TestMainExitCodes: a mistake on the command line prints the usage and
// exits 2; a failure exits 1; -h on a command lists its flags and exits 0.
func TestMainExitCodes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "x.db")
	for _, c := range []struct {
		args       []string
		code       int
		out, errOf string
	}{
		{[]string{"version"}, 0, "mcptray test", ""},
		{[]string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{[]string{"token"}, 2, "", "usage: mcptray token"},
		{[]string{"serve", "--addr", "0.0.0.0:1"}, 2, "", "loopback"},
		{[]string{"export", "--db", db, "-h"}, 0, "-db", ""},
		{[]string{"tool", "enable", "nope", "--db", db}, 1, "", "not found"},
		// The desktop app's window process, in a build without a desktop.
		{[]string{"window"}, 1, "", "headless"},
	} {
		var out, errOut bytes.Buffer
		code := Main(context.Background(), c.args, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Version: "test"})
		if code != c.code || !strings.Contains(out.String(), c.out) || !strings.Contains(errOut.String(), c.errOf) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", c.args, code, out.String(), errOut.String())
		}
		if c.code == 2 && !strings.Contains(errOut.String(), "Usage:") {
			t.Errorf("%v: no usage after a command-line mistake", c.args)
		}
	}
}
