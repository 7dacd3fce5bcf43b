package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/process"
	"github.com/mcptray/mcptray/internal/testutil"
)

// The tests run the real programs: mcptray (built once, with cgo and
// -tags headless) serving a catalog, and this shim as a child process
// speaking stdio.

var (
	buildOnce             sync.Once
	buildErr              error
	mcptrayBin, shimBin   string
	repoRoot, testCatalog string
	binDir                string
	slowArg               = fmt.Sprintf("%d.%03d", 40+os.Getpid()%50, os.Getpid()%1000)
	modernMeta            = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// build compiles mcptray and mcptray-stdio into a temp dir, once.
func build(t testing.TB) {
	testutil.Long(t, "builds the shim and mcptray and runs them")
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the end-to-end tests use unix signals")
	}
	buildOnce.Do(func() {
		wd, _ := os.Getwd()
		repoRoot = filepath.Clean(filepath.Join(wd, "..", ".."))
		binDir, buildErr = os.MkdirTemp("", "mcptray-stdio-test-")
		if buildErr != nil {
			return
		}
		mcptrayBin = filepath.Join(binDir, "mcptray")
		shimBin = filepath.Join(binDir, "mcptray-stdio")
		// Headless: no Fyne to build, and a started mcptray never opens a window.
		cmd := exec.Command("go", "build", "-tags", "headless", "-o", mcptrayBin, ".")
		cmd.Dir = repoRoot
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("building mcptray: %v\n%s", err, out)
			return
		}
		// MCPTRAY_STDIO_RACE=1 builds the shim with the race detector (which needs cgo).
		args, cgo := []string{"build", "-o", shimBin}, "CGO_ENABLED=0"
		if os.Getenv("MCPTRAY_STDIO_RACE") == "1" {
			args, cgo = append(args, "-race"), "CGO_ENABLED=1"
		}
		cmd = exec.Command("go", append(args, "./cmd/mcptray-stdio")...)
		cmd.Dir = repoRoot
		cmd.Env = append(os.Environ(), cgo)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("building mcptray-stdio: %v\n%s", err, out)
			return
		}
		// The conformance catalog plus a slow tool to cancel.
		var cat map[string]any
		b, err := os.ReadFile(filepath.Join(repoRoot, "examples", "conformance.json"))
		if err == nil {
			err = json.Unmarshal(b, &cat)
		}
		if err != nil {
			buildErr = err
			return
		}
		cat["tools"] = append(cat["tools"].([]any), map[string]any{
			"name":        "slow_sleep",
			"description": "Sleeps for a long time.",
			"action":      map[string]any{"command": map[string]any{"argv": []string{"sleep", slowArg}, "timeoutMs": 120000}},
		})
		b, _ = json.Marshal(cat)
		testCatalog = filepath.Join(binDir, "catalog.json")
		buildErr = os.WriteFile(testCatalog, b, 0o600)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
}

// home is a private config dir for one test.
type home struct {
	dir, cfg, db string
}

func newHome(t *testing.T) home {
	d := t.TempDir()
	h := home{dir: d, cfg: filepath.Join(d, "config"), db: filepath.Join(d, "mcptray.db")}
	os.MkdirAll(h.cfg, 0o700)
	return h
}

func (h home) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "XDG_CONFIG_HOME", "XDG_DATA_HOME", "DISPLAY", "WAYLAND_DISPLAY", "MCPTRAY_BIN", "MCPTRAY_ENDPOINT_FILE", "MCPTRAY_SHIM_TOKEN_FILE", "MCPTRAY_START_ARGS":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "XDG_CONFIG_HOME="+h.cfg, "XDG_DATA_HOME="+filepath.Join(h.dir, "data"))
}

func (h home) endpointFile() string { return filepath.Join(h.cfg, "mcptray", "endpoint.json") }

// startServer runs `mcptray serve` (with auth) for h and waits for its
// endpoint; stderr is what the server writes there.
func startServer(t *testing.T, h home) (stop func(), stderr *testutil.SyncBuffer) {
	t.Helper()
	cmd := exec.Command(mcptrayBin, "serve", "--db", h.db, "--addr", "127.0.0.1:0", "--catalog", testCatalog)
	cmd.Env = h.env()
	stderr = &testutil.SyncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	stop = func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
	t.Cleanup(stop)
	waitEndpoint(t, h, done, stderr)
	return stop, stderr
}

func waitEndpoint(t *testing.T, h home, exited chan struct{}, stderr fmt.Stringer) endpoint {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if ep, err := readEndpoint(h.endpointFile()); err == nil && dialable(ep.URL) {
			return ep
		}
		select {
		case <-exited:
			t.Fatalf("mcptray exited: %s", stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("no endpoint within 30 s")
	return endpoint{}
}

// shim is a running mcptray-stdio with its stdio.
type shim struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan map[string]any
	stderr *testutil.SyncBuffer
	exited chan struct{}
	// skipped are messages answer read past, kept for a later answer.
	skipped []map[string]any
}

func startShim(t *testing.T, h home, extraEnv ...string) *shim {
	t.Helper()
	cmd := exec.Command(shimBin)
	cmd.Env = append(h.env(), extraEnv...)
	s := &shim{t: t, cmd: cmd, lines: make(chan map[string]any, 100), stderr: &testutil.SyncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = s.stderr
	var err error
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		// Every stdout line must be one JSON-RPC message (clients break on anything else).
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m["jsonrpc"] != "2.0" {
				t.Errorf("stdout line is not a JSON-RPC message: %q", sc.Text())
				continue
			}
			s.lines <- m
		}
		cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		s.stdin.Close()
		select {
		case <-s.exited:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			t.Errorf("the shim did not exit within 5 s of stdin closing")
		}
		if strings.Contains(s.stderr.String(), "DATA RACE") {
			t.Error("the race detector fired in the shim")
		}
		if t.Failed() {
			t.Logf("shim stderr:\n%s", s.stderr)
		}
	})
	return s
}

func (s *shim) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, line); err != nil {
		s.t.Fatal(err)
	}
}

// next returns the next message, failing after timeout.
func (s *shim) next(timeout time.Duration) map[string]any {
	s.t.Helper()
	select {
	case m := <-s.lines:
		return m
	case <-time.After(timeout):
		s.t.Fatalf("no message within %v; stderr:\n%s", timeout, s.stderr)
		return nil
	}
}

// answer waits for the response with id, skipping notifications.
func (s *shim) answer(id float64, timeout time.Duration) map[string]any {
	s.t.Helper()
	for i, m := range s.skipped {
		if m["id"] == id && m["method"] == nil {
			s.skipped = append(s.skipped[:i], s.skipped[i+1:]...)
			return m
		}
	}
	deadline := time.Now().Add(timeout)
	for {
		m := s.next(time.Until(deadline))
		if m["id"] == id && m["method"] == nil {
			return m
		}
		s.skipped = append(s.skipped, m)
	}
}

func modernReq(id int, method, params string) string {
	if params == "" {
		params = modernMeta
	} else {
		params = params + "," + modernMeta
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s}}`+"\n", id, method, params)
}

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

func TestGarbageLineThenStillServing(t *testing.T) {
	build(t)
	h := newHome(t)
	startServer(t, h)
	s := startShim(t, h, "MCPTRAY_BIN="+mcptrayBin)
	s.send("this is not json\n")
	m := s.next(10 * time.Second)
	if errCode(m) != -32700 || m["id"] != nil {
		t.Fatalf("garbage line: got %v, want a -32700 error with id null", m)
	}
	s.send("[1,2]\n")
	if m := s.next(5 * time.Second); errCode(m) != -32600 {
		t.Fatalf("batch: got %v, want -32600", m)
	}
	s.send(modernReq(1, "tools/list", ""))
	m = s.answer(1, 10*time.Second)
	res, _ := m["result"].(map[string]any)
	if tools, _ := res["tools"].([]any); len(tools) == 0 {
		t.Fatalf("tools/list after garbage: %v", m)
	}
	// The shim provisioned its own token, readable only by the user.
	st, err := os.Stat(filepath.Join(h.cfg, "mcptray", "shim-token"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("shim-token: %v %v", st, err)
	}
}

func TestBOMAndCRLFAccepted(t *testing.T) {
	build(t)
	h := newHome(t)
	startServer(t, h)
	s := startShim(t, h, "MCPTRAY_BIN="+mcptrayBin)
	s.send("\xef\xbb\xbf" + strings.TrimSuffix(modernReq(7, "server/discover", ""), "\n") + "\r\n")
	m := s.answer(7, 10*time.Second)
	if m["result"] == nil {
		t.Fatalf("discover after a BOM: %v", m)
	}
}

func TestLegacySession(t *testing.T) {
	build(t)
	h := newHome(t)
	startServer(t, h)
	s := startShim(t, h, "MCPTRAY_BIN="+mcptrayBin)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n")
	if m := s.answer(1, 10*time.Second); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	if m := s.answer(2, 10*time.Second); m["result"] == nil {
		t.Fatalf("tools/list in the session: %v", m)
	}
	// A server→client request (elicitation) and its response.
	s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_elicitation","arguments":{"message":"who are you?"}}}` + "\n")
	var req map[string]any
	for req == nil {
		m := s.next(10 * time.Second)
		if m["method"] == "elicitation/create" {
			req = m
		} else if m["id"] == 3.0 {
			t.Fatalf("call answered without asking: %v", m)
		}
	}
	id, _ := json.Marshal(req["id"])
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"username":"ann","email":"ann@example.com"}}}`+"\n", id))
	m := s.answer(3, 10*time.Second)
	if b, _ := json.Marshal(m); m["result"] == nil || !strings.Contains(string(b), "ann") {
		t.Fatalf("elicitation round trip: %s", b)
	}
}

func TestCancelAbortsSlowCall(t *testing.T) {
	build(t)
	h := newHome(t)
	startServer(t, h)
	s := startShim(t, h, "MCPTRAY_BIN="+mcptrayBin)
	s.send(modernReq(1, "tools/call", `"name":"slow_sleep","arguments":{}`))
	waitProcess(t, true)
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"test"}}` + "\n")
	waitProcess(t, false)
	// No answer for the cancelled call, and the shim keeps serving.
	s.send(modernReq(2, "tools/list", ""))
	m := s.next(10 * time.Second)
	if m["id"] != 2.0 {
		t.Fatalf("after cancel: got %v, want the answer to id 2 (and nothing for id 1)", m)
	}
}

// waitProcess waits until a `sleep slowArg` process exists (or is gone).
func waitProcess(t *testing.T, want bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if sleeping() == want {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("sleep %s running = %v after 10 s, want %v", slowArg, !want, want)
}

func sleeping() bool {
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err == nil && string(b) == "sleep\x00"+slowArg+"\x00" {
			return true
		}
	}
	return false
}

func TestStartsStoppedServer(t *testing.T) {
	build(t)
	h := newHome(t)
	// Registered before the shim starts, so it runs after the shim's
	// cleanup: a shim still running could start the server again.
	t.Cleanup(func() { stopStartedServer(h) })
	s := startShim(t, h, "MCPTRAY_BIN="+mcptrayBin, "MCPTRAY_START_ARGS=--addr 127.0.0.1:0 --db "+h.db)
	s.send(modernReq(1, "server/discover", ""))
	s.send(modernReq(2, "tools/list", ""))
	if m := s.answer(1, 20*time.Second); m["result"] == nil {
		t.Fatalf("discover: %v", m)
	}
	if m := s.answer(2, 10*time.Second); m["result"] == nil {
		t.Fatalf("tools/list: %v", m)
	}
	ep, err := readEndpoint(h.endpointFile())
	if err != nil || !process.Alive(ep.PID) {
		t.Fatalf("no running mcptray after the shim started it: %v", err)
	}
}

func TestUnreachableAnswersEveryRequest(t *testing.T) {
	build(t)
	h := newHome(t)
	s := startShim(t, h, "MCPTRAY_BIN="+filepath.Join(h.dir, "no-such-mcptray"))
	for id := 1; id <= 2; id++ {
		s.send(modernReq(id, "tools/list", ""))
		m := s.answer(float64(id), 10*time.Second)
		e, _ := m["error"].(map[string]any)
		if msg, _ := e["message"].(string); !strings.Contains(msg, "Start the mcptray app") {
			t.Fatalf("request %d: got %v, want an error saying what to do", id, m)
		}
	}
	select {
	case <-s.exited:
		t.Fatal("the shim exited while stdin was open")
	case <-time.After(200 * time.Millisecond):
	}
}

func TestExitsWhenStdinCloses(t *testing.T) {
	build(t)
	h := newHome(t)
	startServer(t, h)
	s := startShim(t, h, "MCPTRAY_BIN="+mcptrayBin)
	s.send(modernReq(1, "subscriptions/listen", `"notifications":{"toolsListChanged":true}`))
	s.send(modernReq(2, "tools/list", ""))
	s.answer(2, 10*time.Second)
	start := time.Now()
	s.stdin.Close()
	select {
	case <-s.exited:
	case <-time.After(3 * time.Second):
		t.Fatal("the shim did not exit within 3 s of stdin closing (a listen stream was open)")
	}
	t.Logf("exited %v after stdin closed", time.Since(start))
}

func TestHeaderValue(t *testing.T) {
	for in, want := range map[string]string{
		"get_weather":  "get_weather",
		"file:///a b":  "file:///a b",
		"héllo":        "=?base64?aMOpbGxv?=",
		" padded":      "=?base64?IHBhZGRlZA==?=",
		"=?base64?x?=": "=?base64?PT9iYXNlNjQ/eD89?=",
	} {
		if got := headerValue(in); got != want {
			t.Errorf("headerValue(%q) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkStartToFirstAnswer measures a client's view of startup: launch
// the shim, send server/discover, read the answer, with mcptray (and the
// shim's token) already in place. Reports the median in ms.
func BenchmarkStartToFirstAnswer(b *testing.B) {
	build(b)
	h := home{dir: b.TempDir()}
	h.cfg, h.db = filepath.Join(h.dir, "config"), filepath.Join(h.dir, "mcptray.db")
	cmd := exec.Command(mcptrayBin, "serve", "--db", h.db, "--addr", "127.0.0.1:0", "--catalog", testCatalog)
	cmd.Env = h.env()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	for i := 0; i < 300; i++ {
		if ep, err := readEndpoint(h.endpointFile()); err == nil && dialable(ep.URL) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	req := []byte(modernReq(1, "server/discover", ""))
	once := func() time.Duration {
		start := time.Now()
		c := exec.Command(shimBin)
		c.Env = append(h.env(), "MCPTRAY_BIN="+mcptrayBin)
		in, _ := c.StdinPipe()
		out, _ := c.StdoutPipe()
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		in.Write(req)
		line, err := bufio.NewReader(out).ReadBytes('\n')
		d := time.Since(start)
		if err != nil || !bytes.Contains(line, []byte(`"result"`)) {
			b.Fatalf("no answer: %q %v", line, err)
		}
		in.Close()
		c.Wait()
		return d
	}
	once() // provisions the token
	var ds []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ds = append(ds, once())
	}
	b.StopTimer()
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(ds[len(ds)*9/10].Microseconds())/1000, "p90-ms")
}

// A tool whose argument is mirrored into an Mcp-Param-* header (SEP-2243)
// can be called once the shim has relayed tools/list.
func TestParamHeaders(t *testing.T) {
	build(t)
	h := newHome(t)
	startServer(t, h)
	s := startShim(t, h, "MCPTRAY_BIN="+mcptrayBin)
	// The first call comes before any tools/list: the shim lists them itself.
	for i, region := range []string{"eu-west", "München"} {
		id := 2 + i
		s.send(modernReq(id, "tools/call", fmt.Sprintf(`"name":"test_x_mcp_header","arguments":{"region":%q,"level":3}`, region)))
		m := s.answer(float64(id), 10*time.Second)
		if b, _ := json.Marshal(m); m["result"] == nil || !strings.Contains(string(b), "region="+region) {
			t.Fatalf("call with region %q: %s", region, b)
		}
	}
}

// mcptray restarting (on another port) does not break a 2025 session: the
// shim re-initializes on its own and tells the client to refresh its lists.
func TestLegacySessionSurvivesRestart(t *testing.T) {
	build(t)
	h := newHome(t)
	stop, _ := startServer(t, h)
	s := startShim(t, h, "MCPTRAY_BIN="+mcptrayBin)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	s.answer(1, 10*time.Second)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n")
	if m := s.answer(2, 10*time.Second); m["result"] == nil {
		t.Fatalf("before the restart: %v", m)
	}
	stop()
	startServer(t, h)
	time.Sleep(300 * time.Millisecond) // let the GET stream find the new server and go through its backoff
	s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}` + "\n")
	if m := s.answer(3, 10*time.Second); m["result"] == nil {
		t.Fatalf("after the restart: %v", m)
	}
	// The GET stream follows: an edit reaches the client as list_changed.
	deadline := time.Now().Add(10 * time.Second)
	out, err := exec.Command(mcptrayBin, "tool", "toggle", "--db", h.db, "test_transient_tool").CombinedOutput()
	if err != nil {
		t.Fatalf("toggle: %v %s", err, out)
	}
	s.skipped = nil // the shim's own list_changed after re-initializing
	for {
		if m := s.next(time.Until(deadline)); m["method"] == "notifications/tools/list_changed" {
			break
		}
	}
}

// When mcptray cannot be reached at initialize, the shim stays attached:
// a minimal answer, empty lists, errors that say what to do, and the real
// session (with list_changed) as soon as mcptray runs.
func TestOfflineInitializeThenServerAppears(t *testing.T) {
	build(t)
	h := newHome(t)
	// Starting fails: serve refuses a non-loopback address.
	s := startShim(t, h, "MCPTRAY_BIN="+mcptrayBin, "MCPTRAY_START_ARGS=--addr 192.0.2.1:1 --db "+h.db)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	m := s.answer(1, 15*time.Second)
	res, _ := m["result"].(map[string]any)
	if info, _ := res["serverInfo"].(map[string]any); info["version"] != "unavailable" || !strings.Contains(fmt.Sprint(res["instructions"]), "not reachable") {
		t.Fatalf("offline initialize: %v", m)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n")
	if m := s.answer(2, 15*time.Second); fmt.Sprint(m["result"]) != "map[tools:[]]" {
		t.Fatalf("offline tools/list: %v", m)
	}
	s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}` + "\n")
	if m := s.answer(3, 15*time.Second); !strings.Contains(fmt.Sprint(m["error"]), "Start the mcptray app") {
		t.Fatalf("offline call: %v", m)
	}
	startServer(t, h)
	deadline := time.Now().Add(15 * time.Second)
	for {
		if m := s.next(time.Until(deadline)); m["method"] == "notifications/tools/list_changed" {
			break
		}
	}
	s.send(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}` + "\n")
	m = s.answer(4, 10*time.Second)
	res, _ = m["result"].(map[string]any)
	if tools, _ := res["tools"].([]any); len(tools) == 0 {
		t.Fatalf("tools/list once mcptray runs: %v", m)
	}
}

// In a 2025 session, notifications/cancelled reaches mcptray and the call's
// process is stopped.
func TestLegacyCancel(t *testing.T) {
	build(t)
	h := newHome(t)
	startServer(t, h)
	s := startShim(t, h, "MCPTRAY_BIN="+mcptrayBin)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	s.answer(1, 10*time.Second)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow_sleep","arguments":{}}}` + "\n")
	waitProcess(t, true)
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}` + "\n")
	waitProcess(t, false)
	s.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n")
	if m := s.next(10 * time.Second); m["id"] != 3.0 {
		t.Fatalf("after cancel: got %v, want the answer to id 3 (and nothing for id 2)", m)
	}
}

// Clients often start their servers twice at once: two shims starting
// mcptray on the same port end up on the one that won.
func TestTwoShimsStartOneServer(t *testing.T) {
	build(t)
	h := newHome(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	env := []string{"MCPTRAY_BIN=" + mcptrayBin, "MCPTRAY_START_ARGS=--addr " + addr + " --db " + h.db}
	// Registered before the shims start, so it runs after their cleanups:
	// a shim still running could start the server again.
	t.Cleanup(func() { stopStartedServer(h) })
	a, b := startShim(t, h, env...), startShim(t, h, env...)
	a.send(modernReq(1, "tools/list", ""))
	b.send(modernReq(1, "tools/list", ""))
	for _, s := range []*shim{a, b} {
		if m := s.answer(1, 20*time.Second); m["result"] == nil {
			t.Fatalf("tools/list: %v", m)
		}
	}
}

// stopStartedServer stops the mcptray a shim started in h and waits for it
// to exit: the one the endpoint file names, and any other serving h's
// database (a clean-clone run once left one running that the endpoint
// file did not name).
func stopStartedServer(h home) {
	pids := servingDB(h.db)
	if ep, err := readEndpoint(h.endpointFile()); err == nil && !slices.Contains(pids, ep.PID) {
		pids = append(pids, ep.PID)
	}
	for _, pid := range pids {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Signal(syscall.SIGTERM)
		}
	}
	deadline := time.Now().Add(testutil.Patience)
	for _, pid := range pids {
		for process.Alive(pid) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// servingDB lists the processes whose command line names db (Linux's
// /proc; none elsewhere).
func servingDB(db string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && slices.Contains(strings.Split(string(cmdline), "\x00"), db) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestOversizedMessages: a 100 MB line is refused by the shim itself, in
// bounded memory, under the request's id; a line mcptray refuses (larger
// than its maxBodyBytes) is answered with mcptray's reason under the
// request's id — never with advice to try again, and nothing ran.
func TestOversizedMessages(t *testing.T) {
	build(t)
	h := newHome(t)
	startServer(t, h)
	s := startShim(t, h, "MCPTRAY_BIN="+mcptrayBin)
	s.send(modernReq(1, "tools/list", ""))
	s.answer(1, 10*time.Second)

	line := func(id, size int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"test_simple_text","arguments":{"pad":"%s"},%s}}`+"\n",
			id, strings.Repeat("A", size), modernMeta)
	}
	s.send(line(2, 100<<20))
	m := s.answer(2, 30*time.Second)
	e, _ := m["error"].(map[string]any)
	if errCode(m) != codeInvalidRequest || !strings.Contains(fmt.Sprint(e["message"]), "larger than mcptray-stdio accepts") {
		t.Errorf("100 MB line: %v", m)
	}
	// The shim may hold up to maxLine (16 MiB) before it knows the line is
	// too long; a buffered 100 MB line would take several times that.
	if hwm := peakRSS(t, s.cmd.Process.Pid); hwm > 96<<20 {
		t.Errorf("the shim peaked at %d MB of memory for a 100 MB line", hwm>>20)
	} else {
		t.Logf("the shim peaked at %d MB for a 100 MB line", hwm>>20)
	}

	s.send(line(3, 6<<20)) // past mcptray's default maxBodyBytes (4 MiB)
	m = s.answer(3, 30*time.Second)
	e, _ = m["error"].(map[string]any)
	msg := fmt.Sprint(e["message"])
	if errCode(m) != codeInvalidRequest || !strings.Contains(msg, "larger than") || !strings.Contains(msg, "maxBodyBytes") || strings.Contains(msg, "try again") {
		t.Errorf("a line mcptray refuses: %v", m)
	}
	s.send(modernReq(4, "tools/list", ""))
	if m := s.answer(4, 10*time.Second); m["result"] == nil {
		t.Errorf("after the refusals: %v", m)
	}
}

// peakRSS is a process's peak resident memory, in bytes (Linux).
func peakRSS(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for l := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			var kb int
			fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
			return kb << 10
		}
	}
	t.Skip("no VmHWM")
	return 0
}

// TestDeletedDatabaseReasonReachesTheClient: the database deleted while
// mcptray serves, the client's requests soon get an error saying what
// happened and what to do (mcptray's 503, relayed), never "may have run";
// and `mcptray serve` said so on its standard error.
func TestDeletedDatabaseReasonReachesTheClient(t *testing.T) {
	build(t)
	if runtime.GOOS == "windows" {
		t.Skip("Windows does not let an open database be deleted")
	}
	h := newHome(t)
	_, stderr := startServer(t, h)
	s := startShim(t, h, "MCPTRAY_BIN="+mcptrayBin)
	s.send(modernReq(1, "tools/list", ""))
	if m := s.answer(1, 10*time.Second); m["result"] == nil {
		t.Fatalf("before the deletion: %v", m)
	}
	files, err := filepath.Glob(h.db + "*")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	want := "mcptray's database was deleted or moved while it was running (" + h.db + "). Restart mcptray to start again with a new one."
	deadline := time.Now().Add(10 * time.Second)
	for id := 2; ; id++ {
		s.send(modernReq(id, "tools/list", ""))
		m := s.answer(float64(id), 10*time.Second)
		if m["result"] != nil {
			if time.Now().After(deadline) {
				t.Fatalf("tools/list still answered 10 s after the deletion; want error %d saying %q", codeUnavailable, want)
			}
			time.Sleep(10 * time.Millisecond) // not noticed yet: ask again
			continue
		}
		e, _ := m["error"].(map[string]any)
		msg, _ := e["message"].(string)
		if !strings.Contains(msg, want) || errCode(m) != codeUnavailable || e["data"] != nil {
			t.Fatalf("after the deletion: %v; want error %d saying %q", m, codeUnavailable, want)
		}
		t.Logf("the client read: %s", msg)
		break
	}
	testutil.EventuallyShows(t, "mcptray serve to say so on stderr", func() (bool, string) {
		return strings.Contains(stderr.String(), want), stderr.String()
	})
}

// TestStartedServerRunsTheStarterHelpers: the mcptray the shim finds next
// to itself and starts (serve, on the person's default database, which it
// seeds with the starter catalog) answers the starter's search_notes by
// running itself — {{.server.executable}} is that very program, as
// os.Executable names it in the serving process — with files search: the
// note's line, and a sentence when nothing matches, where grep's exit 1
// was an error. clean_downloads asks first: a headless server declines,
// and the old download stays.
func TestStartedServerRunsTheStarterHelpers(t *testing.T) {
	build(t)
	h := newHome(t)
	// Registered before the shim starts, so it runs after the shim's
	// cleanup: a shim still running could start the server again.
	t.Cleanup(func() { stopStartedServer(h) })
	testutil.WriteFiles(t, h.dir, map[string]string{"Notes/todo.md": "buy milk\n", "Downloads/old.zip": "old"})
	notes, old := filepath.Join(h.dir, "Notes"), filepath.Join(h.dir, "Downloads", "old.zip")
	testutil.Aged(t, old, 90*24*time.Hour)
	// No MCPTRAY_BIN and no --db: mcptray next to the shim, on the
	// default database of this home.
	s := startShim(t, h, "HOME="+h.dir, "MCPTRAY_START_ARGS=--addr 127.0.0.1:0")
	s.send(modernReq(1, "tools/call", `"name":"search_notes","arguments":{"query":"MILK"}`))
	s.send(modernReq(2, "tools/call", `"name":"search_notes","arguments":{"query":"bread"}`))
	s.send(modernReq(3, "tools/call", `"name":"clean_downloads","arguments":{"days":30}`))
	for id, want := range map[float64]struct {
		text    string
		isError bool
	}{
		1: {"todo.md:1:buy milk\n", false},
		2: {`No .md or .txt file in ` + notes + ` mentions "bread".` + "\n", false},
		3: {"Nobody at the computer can answer", true},
	} {
		m := s.answer(id, 20*time.Second)
		var res struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		}
		if b, err := json.Marshal(m["result"]); err != nil || json.Unmarshal(b, &res) != nil || len(res.Content) != 1 {
			t.Fatalf("call %v: %v", id, m)
		}
		if got := res.Content[0].Text; !strings.HasPrefix(got, want.text) || res.IsError != want.isError {
			t.Errorf("call %v answered %q (error: %v), want %q (error: %v)", id, got, res.IsError, want.text, want.isError)
		}
	}
	if _, err := os.Stat(old); err != nil {
		t.Errorf("clean_downloads ran without an approval: %v", err)
	}
	// The server that answered is the mcptray next to the shim.
	ep, err := readEndpoint(h.endpointFile())
	if err != nil {
		t.Fatal(err)
	}
	if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", ep.PID)); runtime.GOOS == "linux" && (err != nil || exe != mcptrayBin) {
		t.Errorf("the server %d runs %q (%v), not %s", ep.PID, exe, err, mcptrayBin)
	}
}
