package cli

import (
	"bytes"
	"context"
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
