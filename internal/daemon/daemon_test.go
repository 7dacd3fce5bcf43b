package daemon

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zalando/go-keyring"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/examples"
	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/record"
)

// TestMain keeps the tests away from the user's keyring. With
// MCPTRAY_DAEMON_TEST_SERVE=DB set, the test binary is a headless server
// on DB instead (publishing in MCPTRAY_DAEMON_TEST_ENDPOINT, of version
// MCPTRAY_DAEMON_TEST_VERSION), so tests can run one as a child process.
func TestMain(m *testing.M) {
	keyring.MockInit()
	if db := os.Getenv("MCPTRAY_DAEMON_TEST_SERVE"); db != "" {
		ctx := context.Background()
		d, err := Start(ctx, Config{DB: db, Addr: "127.0.0.1:0", EndpointFile: os.Getenv("MCPTRAY_DAEMON_TEST_ENDPOINT"),
			Version: cmp.Or(os.Getenv("MCPTRAY_DAEMON_TEST_VERSION"), "test"), Stderr: os.Stderr})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		err = d.Wait(ctx)
		d.Stop()
		if err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// blockingAsker answers nothing until its ctx ends.
type blockingAsker struct{ asked chan struct{} }

func (b blockingAsker) Ask(ctx context.Context, _ mcpcore.Question) (mcpcore.Answer, error) {
	close(b.asked)
	<-ctx.Done()
	return mcpcore.Answer{}, ctx.Err()
}

// testConfig is a server on a database in dir, on a free port, publishing
// its endpoint file in dir.
func testConfig(dir string) Config {
	return Config{DB: filepath.Join(dir, "x.db"), Addr: "127.0.0.1:0", EndpointFile: filepath.Join(dir, "endpoint.json"), Version: "test"}
}

// start starts cfg's server and stops it when the test ends.
func start(t *testing.T, cfg Config) *Daemon {
	t.Helper()
	d, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Stop)
	return d
}

// startStarter serves the starter catalog with token auth; it returns the
// server and a client token.
func startStarter(t *testing.T) (*Daemon, string) {
	t.Helper()
	cat, err := mcpcore.ParseCatalog(examples.Starter)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t.TempDir())
	cfg.Catalog = cat
	d := start(t, cfg)
	token, err := d.Store().CreateToken(context.Background(), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	return d, token
}

// bearer adds a client token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// listTools connects to url with the go-sdk client and lists the tools.
func listTools(t *testing.T, url, token string) ([]*mcp.Tool, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "daemon-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	return res.Tools, nil
}

func hostPort(t *testing.T, rawURL string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// waitRefused waits until nothing listens at url's port any more.
func waitRefused(t *testing.T, rawURL string) {
	t.Helper()
	addr := hostPort(t, rawURL)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatalf("the old port %s still accepts connections", addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestStoppingAskerWithdrawsOnStop(t *testing.T) {
	stop, cancel := context.WithCancel(context.Background())
	a := stoppingAsker{blockingAsker{make(chan struct{})}, stop}
	done := make(chan error, 1)
	go func() { _, err := a.Ask(context.Background(), mcpcore.Question{}); done <- err }()
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Ask answered instead of being withdrawn")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Ask still waits after the server stopped")
	}
}

func TestPauseAndStop(t *testing.T) {
	cfg := testConfig(t.TempDir())
	cfg.NoAuth = true
	d, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	post := func() int {
		req, _ := http.NewRequest("POST", d.URL(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(); code != http.StatusOK {
		t.Fatalf("serving: status %d", code)
	}
	d.SetPaused(true)
	if code := post(); code != http.StatusServiceUnavailable {
		t.Fatalf("paused: status %d, want 503", code)
	}
	d.SetPaused(false)
	if code := post(); code != http.StatusOK {
		t.Fatalf("resumed: status %d", code)
	}
	d.Stop()
	d.Stop() // idempotent
	if _, err := paths.ReadEndpoint(cfg.EndpointFile); err == nil {
		t.Fatal("the endpoint file outlived Stop")
	}
	// The database is free again.
	start(t, cfg)
}

// TestOneServerPerDatabase: a second server on the same database is turned
// away before it touches anything — the first server's running task stays
// as it is — and the error names the server that holds the database.
func TestOneServerPerDatabase(t *testing.T) {
	testutil.Long(t, "starts a second server and waits for the lock")
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.NoAuth = true
	first := start(t, cfg)
	ctx := context.Background()
	now := time.Now().UTC()
	task := record.Task{ID: "t1", Owner: "x", Tool: "slow", Status: record.TaskWorking, CreatedAt: now, UpdatedAt: now, TTLMs: 3_600_000}
	if err := first.Store().CreateTask(ctx, task); err != nil {
		t.Fatal(err)
	}
	second := cfg
	second.EndpointFile = filepath.Join(dir, "other-endpoint.json")
	if d, err := Start(ctx, second); err == nil {
		d.Stop()
		t.Fatal("a second server started on the same database")
	} else if !errors.Is(err, ErrAlreadyServing) {
		t.Fatalf("second server: %v", err)
	}
	// Named through the first one's endpoint file.
	_, err := Start(ctx, cfg)
	if err == nil || !strings.Contains(err.Error(), first.URL()) || !strings.Contains(err.Error(), strconv.Itoa(os.Getpid())) {
		t.Fatalf("the refusal does not name the running server: %v", err)
	}
	got, err := first.Store().GetTask(ctx, "t1")
	if err != nil || got.Status != record.TaskWorking {
		t.Fatalf("the running server's task is now %q (%v)", got.Status, err)
	}
	if _, err := os.Stat(second.EndpointFile); err == nil {
		t.Error("the refused server published an endpoint")
	}
	if tools, err := listTools(t, first.URL(), ""); err != nil {
		t.Fatalf("the first server no longer serves: %d tools, %v", len(tools), err)
	}
}

func TestSetPortMovesTheEndpoint(t *testing.T) {
	d, token := startStarter(t)
	oldURL := d.URL()
	if tools, err := listTools(t, oldURL, token); err != nil || len(tools) == 0 {
		t.Fatalf("before the move: %d tools, %v", len(tools), err)
	}
	port := testutil.FreePort(t)
	if err := d.SetPort(port); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("http://127.0.0.1:%d%s", port, catalog.EndpointPath)
	if d.URL() != want {
		t.Fatalf("URL() = %s, want %s", d.URL(), want)
	}
	if ep, err := paths.ReadEndpoint(d.epPath); err != nil || ep.URL != want {
		t.Fatalf("endpoint file: %+v, %v", ep, err)
	}
	if tools, err := listTools(t, want, token); err != nil || len(tools) == 0 {
		t.Fatalf("on the new port: %d tools, %v", len(tools), err)
	}
	// The old port is closed once its requests are done.
	waitRefused(t, oldURL)
	// The same port again changes nothing.
	if err := d.SetPort(port); err != nil || d.URL() != want {
		t.Fatalf("same port: %v, URL %s", err, d.URL())
	}
}

func TestSetPortTaken(t *testing.T) {
	d, token := startStarter(t)
	before := d.URL()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := taken.Addr().(*net.TCPAddr).Port
	err = d.SetPort(port)
	if err == nil || !strings.Contains(err.Error(), strconv.Itoa(port)) || !strings.Contains(err.Error(), "taken") {
		t.Fatalf("SetPort(taken port %d) = %v, want an error naming the port", port, err)
	}
	if d.URL() != before {
		t.Fatalf("URL changed to %s", d.URL())
	}
	if ep, err := paths.ReadEndpoint(d.epPath); err != nil || ep.URL != before {
		t.Fatalf("endpoint file: %+v, %v", ep, err)
	}
	if tools, err := listTools(t, before, token); err != nil || len(tools) == 0 {
		t.Fatalf("the old port no longer serves: %d tools, %v", len(tools), err)
	}
	if err := d.SetPort(70000); err == nil {
		t.Fatal("SetPort(70000) accepted")
	}
}

// TestSaveSettingsMovesBackWhenStoringFails: the port moves before the
// settings are stored; when storing fails (another process holds the
// database's write lock), the server serves on the old port again and the
// stored port is unchanged.
func TestSaveSettingsMovesBackWhenStoringFails(t *testing.T) {
	testutil.Long(t, "waits out a port move")
	d, token := startStarter(t)
	ctx := context.Background()
	before := d.URL()
	set, err := d.Store().Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	set.Port = testutil.FreePort(t)

	other, err := sql.Open("sqlite3", d.DB())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	moved, err := d.SaveSettings(short, set, true)
	cancel()
	if err == nil || moved {
		t.Fatalf("SaveSettings with the database locked: moved %v, %v", moved, err)
	}
	if d.URL() != before {
		t.Fatalf("serving on %s, want the old %s", d.URL(), before)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	if stored, _ := d.Store().Settings(ctx); stored.Port == set.Port {
		t.Fatal("the new port was stored")
	}
	if tools, err := listTools(t, before, token); err != nil || len(tools) == 0 {
		t.Fatalf("the old port does not serve: %d tools, %v", len(tools), err)
	}
	// Unlocked, the same change goes through.
	if moved, err := d.SaveSettings(ctx, set, true); err != nil || !moved || hostPort(t, d.URL()) != "127.0.0.1:"+strconv.Itoa(set.Port) {
		t.Fatalf("SaveSettings: moved %v, %v, serving on %s", moved, err, d.URL())
	}
}

// TestShimFollowsSetPort runs the real stdio shim with the go-sdk client
// over stdio: after the port changes, the shim finds the new one through
// the endpoint file and the same client session keeps working.
func TestShimFollowsSetPort(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcptray-stdio")
	}
	d, token := startStarter(t)
	dir := t.TempDir()
	shim := filepath.Join(dir, "mcptray-stdio")
	build := exec.Command("go", "build", "-o", shim, "github.com/mcptray/mcptray/cmd/mcptray-stdio")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the shim: %v\n%s", err, out)
	}
	tokenFile := filepath.Join(dir, "shim-token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(shim)
	cmd.Env = append(os.Environ(), "HOME="+dir, "MCPTRAY_ENDPOINT_FILE="+d.epPath, "MCPTRAY_SHIM_TOKEN_FILE="+tokenFile,
		"MCPTRAY_BIN="+filepath.Join(dir, "no-mcptray"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "shim-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	// tools/call, not tools/list: the client caches lists for a while.
	call := func() error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "current_time"})
		if err != nil {
			return err
		}
		if res.IsError || len(res.Content) == 0 {
			return fmt.Errorf("current_time answered %+v", res)
		}
		return nil
	}
	if err := call(); err != nil {
		t.Fatalf("through the shim: %v", err)
	}
	oldURL := d.URL()
	if err := d.SetPort(testutil.FreePort(t)); err != nil {
		t.Fatal(err)
	}
	waitRefused(t, oldURL)
	if err := call(); err != nil {
		t.Fatalf("through the shim after the port changed: %v", err)
	}
}

// askCatalog has one tool whose form is meant for the desktop.
const askCatalog = `{"format": "mcptray-catalog", "version": 1, "tools": [{"name": "ask_name", "description": "Asks a name on the desktop.",
	"steps": [{"key": "who", "kind": "form", "answeredBy": "desktop", "message": "Your name?",
		"schema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}],
	"action": {"respond": {"content": [{"type": "text", "text": "name={{.inputs.who.content.name}}"}]}}}]}`

// TestAskPolicyFromSettings: without the desktop app, the stored askPolicy
// decides (client-only: the client answers the desktop form), and
// AskPolicy (serve --ask) overrides it.
func TestAskPolicyFromSettings(t *testing.T) {
	cat, err := mcpcore.ParseCatalog([]byte(askCatalog))
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t.TempDir())
	cfg.Catalog, cfg.NoAuth = cat, true
	d := start(t, cfg)
	set, _ := d.Store().Settings(context.Background())
	set.AskPolicy = catalog.AskClientOnly
	if err := d.Store().PutSettings(context.Background(), set); err != nil {
		t.Fatal(err)
	}
	d.Stop()
	for _, tc := range []struct{ flag, want string }{
		{"", "name=Ann"},
		{catalog.AskDeny, "desktop app is not running"},
	} {
		cfg.AskPolicy = tc.flag
		d, err := Start(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		c := mcp.NewClient(&mcp.Implementation{Name: "ask-test", Version: "1"}, &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ann"}}, nil
			}})
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: d.URL(), MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask_name"})
		cs.Close()
		cancel()
		d.Stop()
		if err != nil {
			t.Fatalf("ask policy %q: %v", tc.flag, err)
		}
		text := ""
		if len(res.Content) == 1 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		if !strings.Contains(text, tc.want) {
			t.Errorf("ask policy %q: result %q, want %q", tc.flag, text, tc.want)
		}
	}
}
