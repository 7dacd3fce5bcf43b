package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
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

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zalando/go-keyring"

	"github.com/mcptray/mcptray/mcpcore"
)

// blockingAsker answers nothing until its ctx ends.
type blockingAsker struct{ asked chan struct{} }

func (b blockingAsker) Ask(ctx context.Context, _ mcpcore.Question) (mcpcore.Answer, error) {
	close(b.asked)
	<-ctx.Done()
	return mcpcore.Answer{}, ctx.Err()
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

func TestServerPauseAndStop(t *testing.T) {
	keyring.MockInit()
	dir := t.TempDir()
	ep := filepath.Join(dir, "endpoint.json")
	s, err := startServer(context.Background(), serverConfig{db: filepath.Join(dir, "x.db"), addr: "127.0.0.1:0",
		endpointFile: ep, noAuth: true, asker: blockingAsker{make(chan struct{})}}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	post := func() int {
		req, _ := http.NewRequest("POST", s.URL(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(); code == http.StatusServiceUnavailable {
		t.Fatalf("serving: status %d", code)
	}
	s.SetPaused(true)
	if code := post(); code != http.StatusServiceUnavailable {
		t.Fatalf("paused: status %d, want 503", code)
	}
	s.SetPaused(false)
	if code := post(); code == http.StatusServiceUnavailable {
		t.Fatalf("resumed: status %d", code)
	}
	s.stop()
	s.stop() // idempotent
	if _, err := mcpcore.ReadEndpoint(ep); err == nil {
		t.Fatal("the endpoint file outlived stop")
	}
}

// startTestServer serves the starter catalog with token auth on a free
// port, publishing its endpoint in a temp dir; it returns the server, a
// client token and the endpoint file.
func startTestServer(t *testing.T) (s *server, token, epFile string) {
	t.Helper()
	keyring.MockInit()
	dir := t.TempDir()
	epFile = filepath.Join(dir, "endpoint.json")
	s, err := startServer(context.Background(), serverConfig{db: filepath.Join(dir, "x.db"), addr: "127.0.0.1:0",
		catalog: "examples/starter.json", endpointFile: epFile}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	if token, err = s.st.CreateToken(context.Background(), "test", nil); err != nil {
		t.Fatal(err)
	}
	return s, token, epFile
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
	c := mcp.NewClient(&mcp.Implementation{Name: "server-test", Version: "1"}, nil)
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

// freePort is a loopback port nobody listens on (at the time of asking).
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
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

func TestServerSetPortMovesTheEndpoint(t *testing.T) {
	s, token, epFile := startTestServer(t)
	oldURL := s.URL()
	if tools, err := listTools(t, oldURL, token); err != nil || len(tools) == 0 {
		t.Fatalf("before the move: %d tools, %v", len(tools), err)
	}
	port := freePort(t)
	if err := s.SetPort(port); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("http://127.0.0.1:%d%s", port, mcpcore.EndpointPath)
	if s.URL() != want {
		t.Fatalf("URL() = %s, want %s", s.URL(), want)
	}
	if ep, err := mcpcore.ReadEndpoint(epFile); err != nil || ep.URL != want {
		t.Fatalf("endpoint file: %+v, %v", ep, err)
	}
	if tools, err := listTools(t, want, token); err != nil || len(tools) == 0 {
		t.Fatalf("on the new port: %d tools, %v", len(tools), err)
	}
	// The old port is closed once its requests are done.
	waitRefused(t, oldURL)
	// The same port again changes nothing.
	if err := s.SetPort(port); err != nil || s.URL() != want {
		t.Fatalf("same port: %v, URL %s", err, s.URL())
	}
}

func TestServerSetPortTaken(t *testing.T) {
	s, token, epFile := startTestServer(t)
	before := s.URL()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := taken.Addr().(*net.TCPAddr).Port
	err = s.SetPort(port)
	if err == nil || !strings.Contains(err.Error(), strconv.Itoa(port)) || !strings.Contains(err.Error(), "taken") {
		t.Fatalf("SetPort(taken port %d) = %v, want an error naming the port", port, err)
	}
	if s.URL() != before {
		t.Fatalf("URL changed to %s", s.URL())
	}
	if ep, err := mcpcore.ReadEndpoint(epFile); err != nil || ep.URL != before {
		t.Fatalf("endpoint file: %+v, %v", ep, err)
	}
	if tools, err := listTools(t, before, token); err != nil || len(tools) == 0 {
		t.Fatalf("the old port no longer serves: %d tools, %v", len(tools), err)
	}
	if err := s.SetPort(70000); err == nil {
		t.Fatal("SetPort(70000) accepted")
	}
}

// TestShimFollowsSetPort runs the real stdio shim with the go-sdk client
// over stdio: after the port changes, the shim finds the new one through
// the endpoint file and the same client session keeps working.
func TestShimFollowsSetPort(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcptray-stdio")
	}
	s, token, epFile := startTestServer(t)
	dir := t.TempDir()
	shim := filepath.Join(dir, "mcptray-stdio")
	if out, err := exec.Command("go", "build", "-o", shim, "./cmd/mcptray-stdio").CombinedOutput(); err != nil {
		t.Fatalf("building the shim: %v\n%s", err, out)
	}
	tokenFile := filepath.Join(dir, "shim-token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(shim)
	cmd.Env = append(os.Environ(), "HOME="+dir, "MCPTRAY_ENDPOINT_FILE="+epFile, "MCPTRAY_SHIM_TOKEN_FILE="+tokenFile,
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
	oldURL := s.URL()
	if err := s.SetPort(freePort(t)); err != nil {
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

// TestServerAskPolicyFromSettings: without the desktop app, the stored
// askPolicy decides (client-only: the client answers the desktop form),
// and --ask overrides it.
func TestServerAskPolicyFromSettings(t *testing.T) {
	keyring.MockInit()
	dir := t.TempDir()
	db, catalog := filepath.Join(dir, "x.db"), filepath.Join(dir, "catalog.json")
	if err := os.WriteFile(catalog, []byte(askCatalog), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := settingsCmd(context.Background(), []string{"set", "askPolicy=client-only", "--db", db}, &out); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ flag, want string }{
		{"", "name=Ann"},
		{mcpcore.AskDeny, "desktop app is not running"},
	} {
		s, err := startServer(context.Background(), serverConfig{db: db, addr: "127.0.0.1:0", catalog: catalog,
			endpointFile: filepath.Join(dir, "endpoint.json"), noAuth: true, ask: tc.flag}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		c := mcp.NewClient(&mcp.Implementation{Name: "ask-test", Version: "1"}, &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ann"}}, nil
			}})
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.URL(), MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask_name"})
		cs.Close()
		cancel()
		s.stop()
		if err != nil {
			t.Fatalf("--ask %q: %v", tc.flag, err)
		}
		text := ""
		if len(res.Content) == 1 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		if !strings.Contains(text, tc.want) {
			t.Errorf("--ask %q: result %q, want %q", tc.flag, text, tc.want)
		}
	}
}
