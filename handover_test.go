package main

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

	"github.com/mcptray/mcptray/mcpcore"
)

// TestSecondLaunchShowsTheAppsWindow: the app publishes a control secret;
// only a request bearing it, from no browser, shows the window, and a
// second launch on the same database does that and is done.
func TestSecondLaunchShowsTheAppsWindow(t *testing.T) {
	dir := t.TempDir()
	cfg := serverConfig{db: filepath.Join(dir, "x.db"), addr: "127.0.0.1:0", endpointFile: filepath.Join(dir, "endpoint.json"),
		asker: blockingAsker{make(chan struct{})}}
	s, err := startServer(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer s.stop()
	shown := make(chan struct{}, 4)
	s.setOnShow(func() { shown <- struct{}{} })
	ep, err := mcpcore.ReadEndpoint(cfg.endpointFile)
	if err != nil || !ep.App || len(ep.Control) != 64 {
		t.Fatalf("endpoint file: %+v %v", ep, err)
	}

	show := func(auth, origin string) int {
		req, _ := http.NewRequest(http.MethodPost, strings.TrimSuffix(s.URL(), mcpcore.EndpointPath)+controlPath, nil)
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
	handled, err := handOver(context.Background(), cfg, &out)
	if !handled || err != nil || len(shown) != 1 || !strings.Contains(out.String(), "its window is shown") {
		t.Fatalf("second launch: handled %v, %v, shown %d, %q", handled, err, len(shown), out.String())
	}
	// Another database: none of this app's business.
	other := cfg
	other.db = filepath.Join(dir, "other.db")
	if handled, err := handOver(context.Background(), other, io.Discard); handled || err != nil {
		t.Fatalf("another database: handled %v, %v", handled, err)
	}
}

// TestAppTakesOverFromHeadlessServe: a headless mcptray serve (a real
// child process) on the database the app opens is stopped, so the app can
// serve it; it has no window to show.
func TestAppTakesOverFromHeadlessServe(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	db, epFile := filepath.Join(dir, "x.db"), filepath.Join(dir, "endpoint.json")
	cmd := exec.Command(self, "serve", "--db", db, "--addr", "127.0.0.1:0", "--endpoint-file", epFile)
	cmd.Env = append(os.Environ(), "MCPTRAY_TEST_AS_MAIN=main", "XDG_CONFIG_HOME="+dir, "HOME="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	var ep mcpcore.Endpoint
	waitUntil(t, "the headless server's endpoint file", func() bool {
		ep, err = mcpcore.ReadEndpoint(epFile)
		return err == nil
	})
	if ep.App || ep.Control != "" {
		t.Fatalf("a headless server publishes a control: %+v", ep)
	}
	resp, err := http.Post(strings.TrimSuffix(ep.URL, mcpcore.EndpointPath)+controlPath, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("headless control: %d", resp.StatusCode)
	}

	var out bytes.Buffer
	handled, err := handOver(context.Background(), serverConfig{db: db, endpointFile: epFile}, &out)
	if handled || err != nil {
		t.Fatalf("take-over: handled %v, %v (%s)", handled, err, out.String())
	}
	select {
	case <-exited:
	case <-time.After(15 * time.Second):
		t.Fatalf("the headless server still runs:\n%s", stderr.String())
	}
	if _, err := os.Stat(epFile); !os.IsNotExist(err) {
		t.Errorf("its endpoint file stayed: %v", err)
	}
	if !strings.Contains(out.String(), "the app takes over") {
		t.Errorf("said %q", out.String())
	}
}

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 15 s for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
