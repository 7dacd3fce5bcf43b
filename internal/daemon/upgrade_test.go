package daemon

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/paths"
)

// TestServeTakesOverFromAnOlderServe: after an upgrade, `mcptray serve` of
// the new version (as the stdio shim starts it) finds the old version's
// headless server (a real child process) on its database, asks it to make
// way, and serves; the endpoint file then names the new version. A server
// of a newer version is left alone.
func TestServeTakesOverFromAnOlderServe(t *testing.T) {
	dir := t.TempDir()
	old := startChildServe(t, dir, "0.1.0")
	cfg := Config{DB: old.db, Addr: "127.0.0.1:0", EndpointFile: old.epFile}

	// An older program (another install, say) leaves the newer one serving.
	cfg.Version = "0.0.9"
	if err := TakeOver(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := Start(context.Background(), cfg); !errors.Is(err, ErrAlreadyServing) {
		t.Fatalf("an older program started beside a newer server: %v", err)
	}
	// The same version too: nothing to gain by a hand-over.
	cfg.Version = "0.1.0"
	if err := TakeOver(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-old.exited:
		t.Fatalf("the server stopped for an older or equal program: %v\n%s", err, old.stderr)
	default:
	}

	cfg.Version = "0.1.1"
	var out bytes.Buffer
	if err := TakeOver(context.Background(), cfg, &out); err != nil {
		t.Fatal(err)
	}
	select {
	case <-old.exited:
	case <-time.After(15 * time.Second):
		t.Fatalf("the old server still runs after TakeOver returned:\n%s", old.stderr)
	}
	if want := "a headless mcptray 0.1.0 (pid "; !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "older than this mcptray 0.1.1") {
		t.Errorf("said %q", out.String())
	}
	d := start(t, cfg)
	ep, err := paths.ReadEndpoint(cfg.EndpointFile)
	if err != nil || ep.Version != "0.1.1" || ep.PID != os.Getpid() || ep.URL != d.URL() {
		t.Fatalf("endpoint file after the take-over: %+v, %v", ep, err)
	}
}

// TestOlderAppMakesWay: a launch of a newer desktop app asks the older app
// serving its database to make way (what the app does then — wait for its
// questions, quit — is app/tray's MakeWay; here it stops), and serves. The
// same version's launch shows the window instead; an app that cannot make
// way (one from before this hand-over existed) is named, with what to do.
func TestOlderAppMakesWay(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.Asker = blockingAsker{make(chan struct{})}
	cfg.Version = "0.1.0"
	old, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(old.Stop)
	shown := make(chan struct{}, 1)
	old.SetOnShow(func() { shown <- struct{}{} })

	launch := cfg
	launch.Asker = blockingAsker{make(chan struct{})}
	launch.Version = "0.1.1"
	handled, err := HandOver(context.Background(), launch, io.Discard)
	if !handled || err == nil || !strings.Contains(err.Error(), "the mcptray app 0.1.0 (pid") || !strings.Contains(err.Error(), "quit it from its tray menu") {
		t.Fatalf("an app that cannot make way: handled %v, %v", handled, err)
	}

	old.SetOnLeave(func() { go old.Stop() })
	same := launch
	same.Version = "0.1.0"
	if handled, err := HandOver(context.Background(), same, io.Discard); !handled || err != nil || len(shown) != 1 {
		t.Fatalf("the same version: handled %v, %v, shown %d", handled, err, len(shown))
	}

	var out bytes.Buffer
	if handled, err := HandOver(context.Background(), launch, &out); handled || err != nil {
		t.Fatalf("a newer version: handled %v, %v (%s)", handled, err, out.String())
	}
	if !strings.Contains(out.String(), "the mcptray app 0.1.0 (pid") || !strings.Contains(out.String(), "this one takes over") {
		t.Errorf("said %q", out.String())
	}
	d := start(t, launch) // the old one let go of the database
	ep, err := paths.ReadEndpoint(launch.EndpointFile)
	if err != nil || ep.Version != "0.1.1" || !ep.App || ep.URL != d.URL() {
		t.Fatalf("endpoint file after the hand-over: %+v, %v", ep, err)
	}
}
