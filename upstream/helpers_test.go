package upstream

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/process"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/record"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	buildOnce sync.Once
	serverBin string
	buildErr  error
	binDir    string
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		runHelper()
		return
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// upserver builds testdata/upserver once and returns its path.
func upserver(t testing.TB) string {
	t.Helper()
	testutil.Long(t, "builds and starts the test MCP server")
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "upstream-test-")
		if buildErr != nil {
			return
		}
		serverBin = filepath.Join(binDir, "upserver")
		if runtime.GOOS == "windows" {
			serverBin += ".exe"
		}
		cmd := exec.Command("go", "build", "-o", serverBin, "./testdata/upserver")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("building testdata/upserver: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return serverBin
}

// secrets is an Expand over a fixed set of secrets.
func secrets(vals map[string]string) func(context.Context, catalog.Template) (string, error) {
	return func(_ context.Context, t catalog.Template) (string, error) {
		s := string(t)
		for k, v := range vals {
			s = strings.ReplaceAll(s, `{{secret "`+k+`"}}`, v)
		}
		if strings.Contains(s, "{{") {
			return "", fmt.Errorf("no such secret in %q", t)
		}
		return s, nil
	}
}

// command is an upstream started from the test server with args.
func command(t testing.TB, name string, args ...string) catalog.Upstream {
	return catalog.Upstream{Name: name, Command: &catalog.UpstreamCommand{Argv: append([]string{upserver(t)}, args...)}}
}

// newManager is a Manager closed when the test ends.
func newManager(t testing.TB, cfg Config, ups ...catalog.Upstream) *Manager {
	t.Helper()
	m := New(cfg)
	t.Cleanup(func() { m.Close() })
	m.Set(ups)
	return m
}

// call calls a tool and returns its text.
func call(t testing.TB, m *Manager, server, tool string, args map[string]any) string {
	t.Helper()
	res, err := m.CallTool(context.Background(), server, &mcp.CallToolParams{Name: tool, Arguments: args}, nil)
	if err != nil {
		t.Fatalf("%s on %s: %v", tool, server, err)
	}
	return resultText(t, res)
}

func resultText(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("result: %s", testutil.MustJSON(t, res))
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// pidOf asks the server for its pid.
func pidOf(t testing.TB, m *Manager, server string) int {
	t.Helper()
	pid, err := strconv.Atoi(call(t, m, server, "pid", nil))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// groups is a ProcessGroups in memory.
type groups struct {
	mu      sync.Mutex
	running map[int]record.ProcessGroup
	added   int
}

func (g *groups) AddProcessGroup(_ context.Context, pg record.ProcessGroup) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.running == nil {
		g.running = map[int]record.ProcessGroup{}
	}
	g.running[pg.ID] = pg
	g.added++
	return nil
}

func (g *groups) RemoveProcessGroup(_ context.Context, id int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.running, id)
	return nil
}

func (g *groups) count() (running, added int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.running), g.added
}

// httpServer starts the test server over HTTP and returns its address.
func httpServer(t testing.TB, args ...string) string {
	t.Helper()
	url, _ := httpServerAt(t, args...)
	return url
}

// httpServerAt starts the test server over HTTP and returns its address
// and what stops it.
func httpServerAt(t testing.TB, args ...string) (url string, stop func()) {
	t.Helper()
	cmd := exec.Command(upserver(t), args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cmd.Process.Kill()
			cmd.Wait()
		})
	}
	t.Cleanup(stop)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the HTTP test server's address: %v", err)
	}
	return strings.TrimSpace(line), stop
}

// waitState waits until the server's state is want.
func waitState(t testing.TB, m *Manager, server string, want State) Status {
	t.Helper()
	var st Status
	testutil.EventuallyShows(t, fmt.Sprintf("%s to be %s", server, want), func() (bool, string) {
		st = m.Status(server)
		return st.State == want, fmt.Sprintf("%s (%s)", st.State, st.LastError)
	})
	return st
}

// gone waits until none of pids runs.
func gone(t testing.TB, what string, pids ...int) {
	t.Helper()
	testutil.EventuallyShows(t, what+" to end", func() (bool, string) {
		for _, pid := range pids {
			if process.Alive(pid) {
				return false, fmt.Sprintf("pid %d runs", pid)
			}
		}
		return true, ""
	})
}
