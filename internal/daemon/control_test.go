package daemon

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/internal/testutil"
)

// TestSecondLaunchShowsTheAppsWindow: the app publishes a control secret;
// only a request bearing it, from no browser, shows the window, and a
// second launch on the same database does that and is done.
func TestSecondLaunchShowsTheAppsWindow(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.Asker = blockingAsker{make(chan struct{})}
	s := start(t, cfg)
	shown := make(chan struct{}, 4)
	ep, err := paths.ReadEndpoint(cfg.EndpointFile)
	if err != nil || !ep.App || len(ep.Control) != 64 {
		t.Fatalf("endpoint file: %+v %v", ep, err)
	}

	show := func(auth, origin string) int {
		req, _ := http.NewRequest(http.MethodPost, strings.TrimSuffix(s.URL(), catalog.EndpointPath)+ControlShow, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := show("Bearer "+ep.Control, ""); code != http.StatusServiceUnavailable {
		t.Errorf("before the window can be shown: %d", code)
	}
	s.SetOnShow(func() { shown <- struct{}{} })
	if code := show("Bearer wrong", ""); code != http.StatusUnauthorized {
		t.Errorf("a wrong secret: %d", code)
	}
	if code := show("Bearer "+ep.Control, "http://evil.example"); code != http.StatusForbidden {
		t.Errorf("from a browser: %d", code)
	}
	if len(shown) != 0 {
		t.Fatal("shown without the secret")
	}

	var out bytes.Buffer
	handled, err := HandOver(context.Background(), cfg, &out)
	if !handled || err != nil || len(shown) != 1 || !strings.Contains(out.String(), "its window is shown") {
		t.Fatalf("second launch: handled %v, %v, shown %d, %q", handled, err, len(shown), out.String())
	}
	// Another database: none of this app's business.
	other := cfg
	other.DB = filepath.Join(dir, "other.db")
	if handled, err := HandOver(context.Background(), other, io.Discard); handled || err != nil {
		t.Fatalf("another database: handled %v, %v", handled, err)
	}
}

// TestAppTakesOverFromHeadlessServe: a headless mcptray serve (a real
// child process) on the database the app opens is stopped, so the app can
// serve it; it has no window to show.
func TestAppTakesOverFromHeadlessServe(t *testing.T) {
	dir := t.TempDir()
	child := startChildServe(t, dir, "test")
	ep, db, epFile, exited, stderr := child.ep, child.db, child.epFile, child.exited, child.stderr
	if ep.App || len(ep.Control) != 64 {
		t.Fatalf("a headless server's endpoint file: %+v", ep)
	}
	post := func(path, secret string) int {
		req, _ := http.NewRequest(http.MethodPost, strings.TrimSuffix(ep.URL, catalog.EndpointPath)+path, nil)
		req.Header.Set("Authorization", "Bearer "+secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(ControlShow, ep.Control); code != http.StatusNotFound {
		t.Errorf("show on a headless server: %d", code)
	}
	if code := post(ControlLeave, "wrong"); code != http.StatusUnauthorized {
		t.Errorf("leave without the secret: %d", code)
	}

	var out bytes.Buffer
	handled, err := HandOver(context.Background(), Config{DB: db, EndpointFile: epFile}, &out)
	if handled || err != nil {
		t.Fatalf("take-over: handled %v, %v (%s)", handled, err, out.String())
	}
	select {
	case <-exited:
	case <-time.After(15 * time.Second):
		t.Fatalf("the headless server still runs:\n%s", stderr)
	}
	if _, err := os.Stat(epFile); !os.IsNotExist(err) {
		t.Errorf("its endpoint file stayed: %v", err)
	}
	if !strings.Contains(out.String(), "it stops so the app takes over") {
		t.Errorf("said %q", out.String())
	}
}

// TestStaleEndpointFileHarmsNoOne: an endpoint file left by a crash names
// a process id now reused by something else; the launch must not touch it.
func TestStaleEndpointFileHarmsNoOne(t *testing.T) {
	dir := t.TempDir()
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer other.Process.Kill()
	exited := make(chan struct{})
	go func() { other.Wait(); close(exited) }()
	cfg := Config{DB: filepath.Join(dir, "x.db"), EndpointFile: filepath.Join(dir, "endpoint.json")}
	for _, app := range []bool{false, true} {
		if err := paths.WriteEndpoint(cfg.EndpointFile, paths.Endpoint{URL: "http://127.0.0.1:1/mcp", PID: other.Process.Pid,
			DB: cfg.DB, App: app, Control: strings.Repeat("a", 64)}); err != nil {
			t.Fatal(err)
		}
		if handled, err := HandOver(context.Background(), cfg, io.Discard); handled || err != nil {
			t.Fatalf("app %v: handled %v, %v", app, handled, err)
		}
	}
	select {
	case <-exited:
		t.Fatal("the launch ended a process that is not mcptray")
	case <-time.After(200 * time.Millisecond):
	}
}

// childServe is a headless server in a child process: this test binary
// (TestMain's MCPTRAY_DAEMON_TEST_SERVE).
type childServe struct {
	db, epFile string
	ep         paths.Endpoint
	// exited receives how it ended.
	exited <-chan error
	stderr *bytes.Buffer
}

// startChildServe starts a headless server of version on a database in
// dir, publishing in dir, and waits for its endpoint file; it is killed
// when the test ends if it still runs.
func startChildServe(t *testing.T, dir, version string) childServe {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := childServe{db: filepath.Join(dir, "x.db"), epFile: filepath.Join(dir, "endpoint.json"), stderr: &bytes.Buffer{}}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), "MCPTRAY_DAEMON_TEST_SERVE="+c.db, "MCPTRAY_DAEMON_TEST_ENDPOINT="+c.epFile,
		"MCPTRAY_DAEMON_TEST_VERSION="+version, "XDG_CONFIG_HOME="+dir, "HOME="+dir)
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	c.exited = exited
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	testutil.Eventually(t, "the headless server's endpoint file", func() bool {
		c.ep, err = paths.ReadEndpoint(c.epFile)
		return err == nil
	})
	return c
}
