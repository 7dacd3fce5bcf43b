package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/zalando/go-keyring"
)

// upstreamRun runs `mcptray upstream ARGS…` on db, the server's command
// line after --, with stdin as the person's answers.
func upstreamRun(t *testing.T, db, stdin string, args []string, argv ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	line := append([]string{"upstream"}, args...)
	line = append(line, "--db", db)
	if len(argv) > 0 {
		line = append(append(line, "--"), argv...)
	}
	err := Run(context.Background(), line, Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &out, Version: "test"})
	return out.String(), err
}

// TestUpstreamCommands: `mcptray upstream add` starts the real server,
// shows its tools and asks; no stores nothing, yes stores the server with
// its tools approved; list, tools and remove say what is there; a
// credential typed on the command line is refused with the way to keep it.
func TestUpstreamCommands(t *testing.T) {
	keyring.MockInit()
	bin := testutil.Upserver(t)
	db := filepath.Join(t.TempDir(), "x.db")

	out, err := upstreamRun(t, db, "n\n", []string{"add", "up"}, bin)
	if err == nil || !strings.Contains(out, "up_echo") || !strings.Contains(out, "Serve these") {
		t.Fatalf("add, answered no: %v\n%s", err, out)
	}
	if out, _ := upstreamRun(t, db, "", []string{"list"}); !strings.Contains(out, "No servers yet") {
		t.Fatalf("after no, list: %s", out)
	}
	_, err = upstreamRun(t, db, "", []string{"add", "gh", "--env", "GITHUB_TOKEN=ghp_123456"}, bin)
	if err == nil || !strings.Contains(err.Error(), "mcptray secret set github_token") || strings.Contains(err.Error(), "ghp_123456") {
		t.Fatalf("a credential on the command line: %v", err)
	}
	out, err = upstreamRun(t, db, "y\n", []string{"add", "up", "--prefix", "u_"}, bin)
	if err != nil || !strings.Contains(out, "Added up") {
		t.Fatalf("add, answered yes: %v\n%s", err, out)
	}
	out, err = upstreamRun(t, db, "", []string{"list"})
	if err != nil || !strings.Contains(out, "up") || !strings.Contains(out, bin) {
		t.Fatalf("list: %v\n%s", err, out)
	}
	out, err = upstreamRun(t, db, "", []string{"tools", "up"})
	if err != nil || !strings.Contains(out, "u_echo") || !strings.Contains(out, "served") {
		t.Fatalf("tools: %v\n%s", err, out)
	}
	if out, err := upstreamRun(t, db, "", []string{"changes"}); err != nil || !strings.Contains(out, "Nothing waits") {
		t.Fatalf("changes: %v\n%s", err, out)
	}
	if _, err := upstreamRun(t, db, "y\n", []string{"add", "up"}, bin); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Fatalf("adding a name twice: %v", err)
	}
	if out, err := upstreamRun(t, db, "", []string{"remove", "up"}); err != nil || !strings.Contains(out, "Removed") {
		t.Fatalf("remove: %v\n%s", err, out)
	}
	if out, _ := run(t, db, "export"); strings.Contains(out, "u_echo") {
		t.Fatalf("the server's tools outlived it:\n%s", out)
	}
}

// TestUpstreamImportMoveUndo: a Claude Desktop config with two servers and
// an API key in one's environment. import --move gives both servers with
// their tools served; the key is in the secret store, not in the database
// or the export; the app's file holds only mcptray's entry; --undo puts
// it back byte for byte.
func TestUpstreamImportMoveUndo(t *testing.T) {
	keyring.MockInit()
	bin := testutil.Upserver(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "x.db")
	cfg := filepath.Join(dir, "claude_desktop_config.json")
	const key = "sk-live-0123456789abcdef0123456789"
	original := fmt.Sprintf(`{
  "mcpServers": {
    "notes": {"command": %q, "args": [], "env": {"NOTES_API_KEY": %q}},
    "files": {"command": %q, "args": ["-stderr", "0"]}
  },
  "globalShortcut": "Ctrl+Space"
}
`, bin, key, bin)
	if err := os.WriteFile(cfg, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	// The apps' entry names the shim; a stand-in file is enough here.
	if err := os.WriteFile(filepath.Join(dir, "mcptray-stdio"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := upstreamRun(t, db, "", []string{"import", cfg, "--move", "--yes", "--shim", filepath.Join(dir, "mcptray-stdio")})
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	if strings.Contains(out, key) {
		t.Errorf("the key is shown:\n%s", out)
	}
	for _, want := range []string{"Imported notes:", "Imported files:", "Moved out of"} {
		if !strings.Contains(out, want) {
			t.Errorf("import says no %q:\n%s", want, out)
		}
	}
	list, _ := upstreamRun(t, db, "", []string{"tools", "notes"})
	if !strings.Contains(list, "notes_echo") {
		t.Errorf("notes' tools not served:\n%s", list)
	}
	if exp, _ := run(t, db, "export"); strings.Contains(exp, key) || !strings.Contains(exp, "{{secret") {
		t.Errorf("the export holds the key, or no secret reference:\n%s", exp)
	}
	raw, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(key)) {
		t.Error("the database file holds the key")
	}
	secrets, err := run(t, db, "secret", "list")
	if err != nil || !strings.Contains(secrets, "NOTES_API_KEY") && !strings.Contains(secrets, "notes") {
		t.Errorf("the key is not in the secret store: %v\n%s", err, secrets)
	}
	moved, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ MCPServers map[string]any }
	if err := json.Unmarshal(moved, &doc); err != nil || len(doc.MCPServers) != 1 || doc.MCPServers["mcptray"] == nil {
		t.Fatalf("after --move the app's servers are %v (%v), want mcptray's alone:\n%s", doc.MCPServers, err, moved)
	}
	if !bytes.Contains(moved, []byte("globalShortcut")) {
		t.Errorf("--move lost the app's other settings:\n%s", moved)
	}
	if out, err := upstreamRun(t, db, "", []string{"import", "--undo", cfg}); err != nil {
		t.Fatalf("undo: %v\n%s", err, out)
	}
	if back, _ := os.ReadFile(cfg); string(back) != original {
		t.Fatalf("undo did not put the file back byte for byte:\n%s", back)
	}
}
