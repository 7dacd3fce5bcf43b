package daemon

// The server against hostile neighbours and sudden ends: the control
// endpoint's Host check, a call answered when mcptray stops under it, a
// stalled request body, a flood of idle connections against a small
// descriptor limit, and how much of the activity log a kill -9 costs.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/internal/testcatalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/storage"
)

// slowTool answers after a minute: a call still running when the test acts.
var slowTool = catalog.Tool{Name: "slow", Description: "Answers after a minute.",
	Action: catalog.Action{Respond: &catalog.Respond{Steps: []catalog.Step{{DelayMs: 60000, Log: &catalog.LogStep{Level: "info", Data: "late"}}},
		Content: []catalog.Content{{Type: "text", Text: "late"}}}}}

// callBody is a 2026-07-28 tools/call of name.
func callBody(id int, name string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, id, name)
}

// postCall posts a tools/call of name to url with token.
func postCall(ctx context.Context, client *http.Client, url, token string, id int, name string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(callBody(id, name)))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", name)
	return client.Do(req)
}

// lastMessage is the last JSON-RPC message of a response body, JSON or
// SSE.
func lastMessage(body []byte) (msg struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}, err error) {
	text := strings.TrimSpace(string(body))
	if i := strings.LastIndex(text, "data:"); i >= 0 {
		text = strings.TrimSpace(strings.SplitN(text[i+len("data:"):], "\n", 2)[0])
	}
	err = json.Unmarshal([]byte(text), &msg)
	return msg, err
}

func TestControlEndpointChecksHost(t *testing.T) {
	d := start(t, testConfig(t.TempDir()))
	ep, err := paths.ReadEndpoint(d.epPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{ControlLeave, ControlShow} {
		req, _ := http.NewRequest(http.MethodPost, strings.TrimSuffix(d.URL(), catalog.EndpointPath)+path, nil)
		req.Host = "rebound.example.com"
		req.Header.Set("Authorization", "Bearer "+ep.Control)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s with a foreign Host: HTTP %d, want 403", path, resp.StatusCode)
		}
	}
	select {
	case <-d.leave:
		t.Fatal("a request with a foreign Host made the server leave")
	default:
	}
}

// TestStopAnswersRunningCall: a call running when mcptray stops (SIGTERM,
// Quit) gets a JSON-RPC answer saying so before its connection closes.
func TestStopAnswersRunningCall(t *testing.T) {
	testutil.Long(t, "stops a server during a call")
	cfg := testConfig(t.TempDir())
	cfg.Catalog = &catalog.Catalog{Tools: []catalog.Tool{slowTool}}
	d := start(t, cfg)
	token, err := d.Store().CreateToken(context.Background(), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	type answer struct {
		body []byte
		err  error
	}
	answered := make(chan answer, 1)
	go func() {
		resp, err := postCall(context.Background(), http.DefaultClient, d.URL(), token, 7, "slow")
		if err != nil {
			answered <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		answered <- answer{b, err}
	}()
	testutil.Eventually(t, "the call to run", func() bool { return d.Engine() != nil && inFlight(d) })
	stopped := make(chan struct{})
	go func() { d.Stop(); close(stopped) }()
	select {
	case a := <-answered:
		if a.err != nil {
			t.Fatalf("the running call got no answer: %v", a.err)
		}
		m, err := lastMessage(a.body)
		if err != nil || m.Error == nil || !strings.Contains(m.Error.Message, "mcptray is stopping") {
			t.Fatalf("the running call got %s (%v), want an error saying mcptray is stopping", a.body, err)
		}
	case <-time.After(testutil.Patience):
		t.Fatal("no answer to the running call")
	}
	<-stopped
}

// inFlight reports whether d's activity log shows a call running (the
// record a call gets after a second).
func inFlight(d *Daemon) bool {
	ctx := context.Background()
	if err := d.Activity().Flush(ctx); err != nil {
		return false
	}
	recs, err := d.Store().Activity(ctx, storage.ActivityQuery{Outcome: record.OutcomeRunning})
	return err == nil && len(recs) > 0
}

// TestStalledBodyIsCut: a request whose body stops coming is answered and
// its connection closed within 40 s, so slow bodies cannot hold the server.
func TestStalledBodyIsCut(t *testing.T) {
	testutil.Long(t, "waits out the read timeout")
	t.Parallel()
	d := start(t, testConfig(t.TempDir()))
	token, err := d.Store().CreateToken(context.Background(), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", hostPort(t, d.URL()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	started := time.Now()
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":", hostPort(t, d.URL()), token)
	_ = c.SetReadDeadline(time.Now().Add(45 * time.Second))
	_, _ = io.Copy(io.Discard, c) // until the server closes it
	if took := time.Since(started); took > 40*time.Second {
		t.Fatalf("a stalled body held its connection %v", took)
	}
}

// startChild runs this test binary as a headless server on db (see
// TestMain) under a shell's ulimit -n fds (0: none), and returns its
// endpoint and the process.
func startChild(t *testing.T, db string, fds int) (paths.Endpoint, *exec.Cmd, *testutil.SyncBuffer) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(db)
	epFile := filepath.Join(dir, "endpoint.json")
	cmd := exec.Command(self)
	if fds > 0 {
		cmd = exec.Command("sh", "-c", fmt.Sprintf(`ulimit -n %d && exec "$0"`, fds), self)
	}
	cmd.Env = append(os.Environ(), "MCPTRAY_DAEMON_TEST_SERVE="+db, "MCPTRAY_DAEMON_TEST_ENDPOINT="+epFile, "XDG_CONFIG_HOME="+dir, "HOME="+dir)
	stderr := &testutil.SyncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var ep paths.Endpoint
	testutil.EventuallyShows(t, "the child server's endpoint file", func() (bool, string) {
		ep, err = paths.ReadEndpoint(epFile)
		return err == nil, stderr.String()
	})
	return ep, cmd, stderr
}

// prepare makes the database a child serves: a token and the tools.
func prepare(t *testing.T, db string, tools ...catalog.Tool) string {
	t.Helper()
	st, err := storage.Open(db, mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	for _, tool := range tools {
		if err := st.PutTool(ctx, tool); err != nil {
			t.Fatal(err)
		}
	}
	token, err := st.CreateToken(ctx, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// TestIdleFloodLocksNoClientOut: ~1,100 connections that never showed a
// valid token — idle after a refused request, or trickling headers that
// never end — against a server limited to 1,024 file descriptors, and a
// real client is still served within 25 s.
func TestIdleFloodLocksNoClientOut(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("ulimit -n needs a Unix shell")
	}
	t.Parallel()
	db := filepath.Join(t.TempDir(), "x.db")
	token := prepare(t, db)
	ep, _, stderr := startChild(t, db, 1024)
	addr := strings.TrimSuffix(strings.TrimPrefix(ep.URL, "http://"), catalog.EndpointPath)
	var flood []net.Conn
	t.Cleanup(func() {
		for _, c := range flood {
			c.Close()
		}
	})
	for i := range 1100 {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			break // the backlog is full: the flood is as big as it gets
		}
		flood = append(flood, c)
		if i%2 == 0 {
			// One refused request, then the connection idles.
			fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", addr)
		} else {
			// Headers that never end (cut by the header timeout, 10 s).
			fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\n", addr)
		}
	}
	t.Logf("%d idle connections opened", len(flood))
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := postCall(ctx, client, ep.URL, token, 1, "no_such_tool")
	if err != nil {
		t.Fatalf("a real client was not served within 25 s of the flood: %v\n%s", err, stderr.String())
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusUnauthorized {
		t.Fatalf("the client's own token was refused: %s", body)
	}
	t.Logf("the client was served in %v: HTTP %d", time.Since(start), resp.StatusCode)
}

// TestActivityLossAfterKill measures what a kill -9 during a flood of
// calls costs the activity log: records of calls that were answered but
// never written. The bound docs/security.md states is the batch window
// (storage.DefaultActivityBatchDelay) plus the batch being written.
func TestActivityLossAfterKill(t *testing.T) {
	testutil.Long(t, "kills a server process")
	if runtime.GOOS == "windows" {
		t.Skip("kill -9 is a Unix signal")
	}
	t.Parallel()
	db := filepath.Join(t.TempDir(), "x.db")
	token := prepare(t, db, testcatalog.RespondTool("quick", "hi"))
	ep, cmd, _ := startChild(t, db, 0)
	var answered atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				resp, err := postCall(ctx, client, ep.URL, token, w*1_000_000+i, "quick")
				if err != nil {
					return
				}
				b, err := io.ReadAll(bufio.NewReader(resp.Body))
				resp.Body.Close()
				if m, jerr := lastMessage(b); err == nil && jerr == nil && m.Error == nil && m.Result != nil {
					answered.Add(1)
				}
			}
		})
	}
	time.Sleep(1500 * time.Millisecond)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	cancel()
	wg.Wait()
	st, err := storage.Open(db, mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// Counted page by page: a flood can outgrow one query's limit.
	var recorded int64
	for after := int64(0); ; {
		page, err := st.ActivityAfter(context.Background(), after, storage.ActivityQuery{Method: "tools/call", Limit: storage.MaxActivityLimit})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		recorded += int64(len(page))
		after = page[len(page)-1].ID
	}
	lost := answered.Load() - recorded
	rate := float64(answered.Load()) / 1.5
	t.Logf("kill -9 during a flood: %d calls answered (%.0f/s), %d recorded, %d lost (%.0f ms of calls)",
		answered.Load(), rate, recorded, lost, 1000*float64(lost)/rate)
	if answered.Load() < 100 {
		t.Fatalf("only %d calls answered: the flood did not run", answered.Load())
	}
	// The batch window (10 ms) and the batch being written: well under
	// 50 ms of calls, where a 100 ms window lost up to a whole batch.
	if bound := int64(rate*0.05) + 20; lost > bound {
		t.Errorf("%d records lost, more than %d", lost, bound)
	}
}

// TestKillDuringLongCallKeepsItsRecord: a call still running a second
// after it started is in the activity log, so a kill -9 before it ends
// does not erase that it was accepted (and may have run).
func TestKillDuringLongCallKeepsItsRecord(t *testing.T) {
	testutil.Long(t, "kills a server process")
	if runtime.GOOS == "windows" {
		t.Skip("kill -9 is a Unix signal")
	}
	t.Parallel()
	db := filepath.Join(t.TempDir(), "x.db")
	token := prepare(t, db, slowTool)
	ep, cmd, _ := startChild(t, db, 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		if resp, err := postCall(ctx, http.DefaultClient, ep.URL, token, 1, "slow"); err == nil {
			resp.Body.Close()
		}
	}()
	time.Sleep(1500 * time.Millisecond)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	st, err := storage.Open(db, mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	recs, err := st.Activity(context.Background(), storage.ActivityQuery{Target: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Outcome != record.OutcomeRunning || recs[0].Token != "test" {
		t.Fatalf("records of the call running when mcptray was killed: %+v", recs)
	}
}
