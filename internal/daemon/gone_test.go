package daemon

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// goneWithin is how soon after its database is deleted a server must stop
// answering calls (issue 25).
const goneWithin = 5 * time.Second

// helloTool answers at once.
var helloTool = catalog.Tool{Name: "hello", Description: "Says hello.",
	Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "hello"}}}}}

// startLogged starts a server with token auth serving helloTool, its log
// kept in the returned buffer; it returns a client token too.
func startLogged(t *testing.T) (*Daemon, string, *testutil.SyncBuffer) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("Windows does not let an open database be deleted or replaced")
	}
	log := &testutil.SyncBuffer{}
	cfg := testConfig(t.TempDir())
	cfg.Catalog = &catalog.Catalog{Tools: []catalog.Tool{helloTool}}
	cfg.Logger = slog.New(slog.NewTextHandler(log, nil))
	d := start(t, cfg)
	token, err := d.Store().CreateToken(context.Background(), "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	return d, token, log
}

// callHello calls helloTool over plain HTTP and returns the status and
// the body.
func callHello(t *testing.T, d *Daemon, token string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := postCall(ctx, http.DefaultClient, d.URL(), token, 1, helloTool.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// TestDeletedDatabaseStopsServing: `rm mcptray.db*` while serving. Within
// goneWithin every request gets 503 saying what happened and what to do —
// a client connected before, and a token made since in the new database
// that `mcptray token create` makes at the path — and the log says so
// once.
func TestDeletedDatabaseStopsServing(t *testing.T) {
	d, token, log := startLogged(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "daemon-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: d.URL(), MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: helloTool.Name}); err != nil {
		t.Fatalf("before the deletion: %v", err)
	}
	if code, body := callHello(t, d, token); code != http.StatusOK {
		t.Fatalf("before the deletion: %d %s", code, body)
	}

	files, err := filepath.Glob(d.DB() + "*")
	if err != nil {
		t.Fatal(err)
	}
	deleted := time.Now()
	for _, f := range files {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	var code int
	var body string
	for {
		if code, body = callHello(t, d, token); code == http.StatusServiceUnavailable {
			break
		}
		if time.Since(deleted) > goneWithin {
			t.Fatalf("%v after the deletion the server still answers %d: %s", goneWithin, code, body)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("first 503 %v after the deletion", time.Since(deleted))
	want := "mcptray's database was deleted or moved while it was running (" + d.DB() + "). Restart mcptray to start again with a new one."
	if !strings.Contains(body, want) {
		t.Errorf("503 body %s; want it to say %q", body, want)
	}

	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: helloTool.Name}); err == nil || !strings.Contains(err.Error(), "Service Unavailable") {
		t.Errorf("a client connected before: %v; want Service Unavailable", err)
	}
	// `mcptray token create` now makes a new database at the path, which
	// this server never reads: its token gets the reason, not a 401.
	fresh, err := storage.Open(d.DB(), mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	newToken, err := fresh.CreateToken(ctx, "new", nil)
	if cerr := fresh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if code, body := callHello(t, d, newToken); code != http.StatusServiceUnavailable || !strings.Contains(body, want) {
		t.Errorf("a token of the new database: %d %s", code, body)
	}
	if d.Halted() != want {
		t.Errorf("Halted() = %q, want %q", d.Halted(), want)
	}
	testutil.Eventually(t, "the log to say so", func() bool { return strings.Contains(log.String(), "no longer answering calls") })
	if n := strings.Count(log.String(), "no longer answering calls"); n != 1 {
		t.Errorf("said %d times in the log:\n%s", n, log)
	}
}

// TestOtherWritesKeepServing: another connection opening the database,
// saving a tool the server then serves, and closing, is not taken for the
// database going.
func TestOtherWritesKeepServing(t *testing.T) {
	d, token, log := startLogged(t)
	other, err := storage.Open(d.DB(), mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	added := helloTool
	added.Name = "added"
	if err := other.PutTool(context.Background(), added); err != nil {
		t.Fatal(err)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	testutil.EventuallyShows(t, "the other connection's tool to be served", func() (bool, string) {
		tools, err := listTools(t, d.URL(), token)
		if err != nil {
			return false, err.Error()
		}
		for _, tool := range tools {
			if tool.Name == added.Name {
				return true, ""
			}
		}
		return false, "no tool " + added.Name
	})
	if code, body := callHello(t, d, token); code != http.StatusOK {
		t.Errorf("after another connection's write: %d %s", code, body)
	}
	if why := d.Halted(); why != "" || strings.Contains(log.String(), "deleted or moved") {
		t.Errorf("taken for gone: %q\n%s", why, log)
	}
}
