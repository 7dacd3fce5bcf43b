package upstream

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// helperEnv makes the test binary the stand-in mcptray of
// TestNoOrphansWhenMcptrayIsKilled (runHelper).
const helperEnv = "UPSTREAM_TEST_HELPER"

// childOf starts a child of the server (a grandchild of mcptray, in the
// server's process group) and returns the server's pid and the child's.
func childOf(t testing.TB, m *Manager, server string) (leader, child int) {
	t.Helper()
	child, err := strconv.Atoi(call(t, m, server, "child", nil))
	if err != nil {
		t.Fatal(err)
	}
	return pidOf(t, m, server), child
}

// TestNoOrphansOnClose: Close ends the server and what it started, and
// its group was recorded while it ran and forgotten after.
func TestNoOrphansOnClose(t *testing.T) {
	g := &groups{}
	m := newManager(t, Config{Processes: g}, command(t, "up"))
	leader, child := childOf(t, m, "up")
	if running, _ := g.count(); running != 1 {
		t.Errorf("%d groups recorded while running, want 1", running)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	gone(t, "the server and its child", leader, child)
	if running, added := g.count(); running != 0 || added != 1 {
		t.Errorf("after Close: %d groups recorded of %d, want 0 of 1", running, added)
	}
	if _, err := m.Tools(context.Background(), "up"); err == nil {
		t.Error("a use after Close succeeded")
	}
}

// TestNoOrphansWhenTheServerCrashes: a server that dies leaving a child
// running takes the child with it.
func TestNoOrphansWhenTheServerCrashes(t *testing.T) {
	m := newManager(t, Config{}, command(t, "up"))
	leader, child := childOf(t, m, "up")
	_, err := m.CallTool(context.Background(), "up", &mcp.CallToolParams{Name: "crash", Arguments: map[string]any{"n": 1}}, nil)
	if err == nil {
		t.Fatal("the crash call succeeded")
	}
	gone(t, "the crashed server and its child", leader, child)
}

// TestNoOrphansWhenMcptrayIsKilled: kill -9 of mcptray (here a stand-in,
// the test binary with a Manager and the Reaper the daemon uses) ends
// the server (Pdeathsig on Linux) and the child it started (the Reaper's
// watcher kills its group).
func TestNoOrphansWhenMcptrayIsKilled(t *testing.T) {
	bin := upserver(t)
	if runtime.GOOS != "linux" {
		t.Skip("Pdeathsig and the watcher: Linux; Windows' job objects are checked under Wine")
	}
	pids := filepath.Join(t.TempDir(), "pids")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	helper := exec.Command(self, "-test.run=^$")
	helper.Env = append(os.Environ(), helperEnv+"="+bin, "UPSTREAM_TEST_PIDS="+pids)
	helper.Stderr = os.Stderr
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { helper.Process.Kill(); helper.Wait() })
	var leader, child int
	testutil.Eventually(t, "the stand-in's pids", func() bool {
		b, err := os.ReadFile(pids)
		_, err2 := fmt.Sscan(string(b), &leader, &child)
		return err == nil && err2 == nil
	})
	if err := helper.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	helper.Wait()
	gone(t, "the server and its child after kill -9 of mcptray", leader, child)
}

// runHelper is the stand-in mcptray: it starts the server, has it start a
// child, writes both pids and waits to be killed.
func runHelper() {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(2)
	}
	reaper, err := actions.StartReaper(&groups{})
	if err != nil {
		fail(err)
	}
	m := New(Config{Processes: reaper})
	m.Set([]catalog.Upstream{{Name: "up", Command: &catalog.UpstreamCommand{Argv: []string{os.Getenv(helperEnv)}}}})
	text := func(tool string) string {
		res, err := m.CallTool(context.Background(), "up", &mcp.CallToolParams{Name: tool}, nil)
		if err != nil {
			fail(err)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	child := text("child")
	leader := text("pid")
	tmp := os.Getenv("UPSTREAM_TEST_PIDS") + ".tmp"
	if err := os.WriteFile(tmp, []byte(strings.Join([]string{leader, child}, " ")), 0o600); err != nil {
		fail(err)
	}
	if err := os.Rename(tmp, os.Getenv("UPSTREAM_TEST_PIDS")); err != nil {
		fail(err)
	}
	select {}
}
