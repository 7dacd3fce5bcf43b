package daemon

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/mcptray/mcptray/internal/paths"
)

// TestInstanceLockWaitsForAnEndingHolder: a lock held by no running server
// the endpoint file names (a server killed a moment ago, whose last threads
// still hold its files) is waited for; a running server's is refused at
// once.
func TestInstanceLockWaitsForAnEndingHolder(t *testing.T) {
	dir := t.TempDir()
	db, epFile := filepath.Join(dir, "mcptray.db"), filepath.Join(dir, "endpoint.json")
	holder := flock.New(paths.InstanceLock(db))
	if ok, err := holder.TryLock(); !ok || err != nil {
		t.Fatalf("taking the lock: %v %v", ok, err)
	}
	released := make(chan struct{})
	go func() {
		time.Sleep(300 * time.Millisecond)
		close(released)
		holder.Unlock()
	}()
	l, err := instanceLock(db, epFile)
	if err != nil {
		t.Fatalf("the lock of an ending holder was not waited for: %v", err)
	}
	select {
	case <-released:
	default:
		t.Fatal("got the lock while another held it")
	}
	l.Close()

	// A running server (this process) named by the endpoint file.
	if ok, err := holder.TryLock(); !ok || err != nil {
		t.Fatalf("taking the lock again: %v %v", ok, err)
	}
	defer holder.Close()
	if err := paths.WriteEndpoint(epFile, paths.Endpoint{URL: "http://127.0.0.1:1/mcp", PID: os.Getpid(), DB: db}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := instanceLock(db, epFile); !errors.Is(err, ErrAlreadyServing) {
		t.Fatalf("a running server's lock: %v, want ErrAlreadyServing", err)
	}
	if d := time.Since(start); d >= lockSettle {
		t.Errorf("a running server's lock was waited for (%v) instead of refused at once", d)
	}
}
