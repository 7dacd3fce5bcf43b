package clientconfig

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testcatalog"
	"github.com/mcptray/mcptray/internal/testserver"
	"github.com/mcptray/mcptray/internal/testutil"
)

// TestMain makes the test binary a stdio MCP server when the entry under
// test launches it: it serves one tool per word of $CHECK_TOOLS, so a test
// sees that the entry's environment reached it.
func TestMain(m *testing.M) {
	if os.Getenv("CLIENTCONFIG_TEST_SERVE") == "1" {
		s := mcp.NewServer(&mcp.Implementation{Name: "check-test", Version: "1"}, nil)
		for _, name := range strings.Fields(os.Getenv("CHECK_TOOLS")) {
			mcp.AddTool(s, &mcp.Tool{Name: name, Description: "test"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{}, nil, nil
			})
		}
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// checkFailure asserts err is a CheckError whose problem and fix say what
// they must.
func checkFailure(t *testing.T, err error, problem, fix string) {
	t.Helper()
	var ce *CheckError
	if !errors.As(err, &ce) || !strings.Contains(ce.Problem, problem) || !strings.Contains(ce.Fix, fix) {
		t.Fatalf("got %v, want a CheckError with %q and the fix %q", err, problem, fix)
	}
}

func TestCheckStdio(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := mustLookup("claude-code")
	path := filepath.Join(t.TempDir(), ".claude.json")
	entry := `{"mcpServers": {"mcptray": {"type": "stdio", "command": "` + exe + `", "args": [],
		"env": {"CLIENTCONFIG_TEST_SERVE": "1", "CHECK_TOOLS": "${WORDS}"}}}}`
	if err := os.WriteFile(path, []byte(entry), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Check(context.Background(), c, path, "", append(os.Environ(), "WORDS=a b c"))
	if err != nil || got.Tools != 3 || got.Target != exe {
		t.Fatalf("check: %+v, %v", got, err)
	}
	// The client would not find the variable the entry names.
	_, err = Check(context.Background(), c, path, "", os.Environ())
	checkFailure(t, err, "reads WORDS from the environment", "WORDS=<value>")
	// The shim the entry names is gone (make clean, a moved checkout).
	gone := strings.Replace(entry, exe, filepath.Join(t.TempDir(), "mcptray-stdio"), 1)
	os.WriteFile(path, []byte(gone), 0o600)
	_, err = Check(context.Background(), c, path, "", append(os.Environ(), "WORDS=a"))
	checkFailure(t, err, "does not exist", "mcptray config claude-code --install")
	// No entry, no file.
	_, err = Check(context.Background(), c, path, "other", nil)
	checkFailure(t, err, `no server named "other"`, "--install")
	_, err = Check(context.Background(), c, path+".none", "", nil)
	checkFailure(t, err, "does not exist", "--install")
}

// TestCheckHTTP runs entries against the real server: the token in the
// file works, a revoked one gets the 401 and the fix, an entry reading
// its token from the environment works when it is set, and a stopped
// server is said to be not running.
func TestCheckHTTP(t *testing.T) {
	ctx := context.Background()
	cat := &catalog.Catalog{Tools: []catalog.Tool{testcatalog.RespondTool("one", "1"), testcatalog.RespondTool("two", "2")}}
	s := testserver.Start(t, testserver.Options{Auth: true, Catalog: cat})
	token, err := s.Store.ReplaceToken(ctx, "cursor")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cursor := mustLookup("cursor")
	path := filepath.Join(dir, "mcp.json")
	write := func(c Client, p Params) {
		t.Helper()
		b, err := Snippet(c, HTTP, p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(cursor, Params{URL: s.URL, Token: token})
	got, err := Check(ctx, cursor, path, "", nil)
	if err != nil || got.Tools != 2 || got.Target != s.URL {
		t.Fatalf("check: %+v, %v", got, err)
	}

	// Claude Code's project file names the variable; the check reads it
	// from the environment as Claude Code would.
	project := mustLookup("claude-code-project")
	write(project, Params{URL: s.URL})
	if got, err := Check(ctx, project, path, "", []string{TokenEnvVar + "=" + token}); err != nil || got.Tools != 2 {
		t.Fatalf("from the environment: %+v, %v", got, err)
	}
	_, err = Check(ctx, project, path, "", nil)
	checkFailure(t, err, "reads MCPTRAY_TOKEN from the environment", "MCPTRAY_TOKEN=<token>")

	if err := s.Store.RevokeToken(ctx, "cursor"); err != nil {
		t.Fatal(err)
	}
	write(cursor, Params{URL: s.URL, Token: token})
	_, err = Check(ctx, cursor, path, "", nil)
	checkFailure(t, err, "refused the entry's token (401", "mcptray config cursor --http --install")

	// VS Code keeps the token where nobody else reads it.
	write(mustLookup("vscode"), Params{URL: s.URL})
	_, err = Check(ctx, mustLookup("vscode"), path, "", nil)
	checkFailure(t, err, "VS Code asks for", "MCP: List Servers")

	// Paused, and then halted: its database deleted while it serves.
	write(cursor, Params{URL: s.URL, Token: token})
	s.Daemon.SetPaused(true)
	_, err = Check(ctx, cursor, path, "", nil)
	checkFailure(t, err, "mcptray is paused (503)", "Resume serving")
	s.Daemon.SetPaused(false)
	if runtime.GOOS != "windows" { // where an open database cannot be deleted
		files, err := filepath.Glob(s.Daemon.DB() + "*")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
		}
		testutil.Eventually(t, "the server to halt", func() bool { return s.Daemon.Halted() != "" })
		_, err = Check(ctx, cursor, path, "", nil)
		checkFailure(t, err, "mcptray does not serve (503)", "database was deleted or moved while it was running")
	}

	s.Daemon.Stop()
	_, err = Check(ctx, cursor, path, "", nil)
	checkFailure(t, err, "mcptray is not running there", "Start mcptray")
}
