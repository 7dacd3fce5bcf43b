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

func TestWriteFilesAndAged(t *testing.T) {
	dir := t.TempDir()
	WriteFiles(t, dir, map[string]string{"a.txt": "a", "sub/b.md": "b"})
	Aged(t, filepath.Join(dir, "sub"), 48*time.Hour)
	for name, want := range map[string]string{"a.txt": "a", filepath.Join("sub", "b.md"): "b"} {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != want {
			t.Errorf("%s holds %q, %v; want %q", name, got, err, want)
		}
	}
	fi, err := os.Stat(filepath.Join(dir, "sub"))
	if age := time.Since(fi.ModTime()); err != nil || age < 48*time.Hour || age > 49*time.Hour {
		t.Errorf("the folder aged 48 hours was changed %v ago (%v)", age, err)
	}
}
