package testutil

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestEventuallyWaitsForTheCondition(t *testing.T) {
	start := time.Now()
	Eventually(t, "a quarter second", func() bool { return time.Since(start) > 250*time.Millisecond })
	if time.Since(start) < 250*time.Millisecond {
		t.Fatal("returned before the condition held")
	}
}

func TestWaitPID(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pid")
	go func() {
		time.Sleep(50 * time.Millisecond)
		_ = os.WriteFile(path, []byte("4242\n"), 0o600)
	}()
	if got := WaitPID(t, path); got != 4242 {
		t.Fatalf("WaitPID = %d", got)
	}
}

func TestSyncBufferAndMustJSON(t *testing.T) {
	var b SyncBuffer
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { _, _ = b.Write([]byte("ab")) })
	}
	wg.Wait()
	if b.String() != "abababab" {
		t.Fatalf("buffer %q", b.String())
	}
	if got := MustJSON(t, map[string]any{"n": 1}); got != `{"n":1}` {
		t.Fatalf("MustJSON = %s", got)
	}
}
