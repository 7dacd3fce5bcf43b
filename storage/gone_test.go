package storage

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// skipOnWindows skips a test that deletes or replaces an open database:
// Windows refuses to, as long as SQLite holds the file open.
func skipOnWindows(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("Windows does not let an open database be deleted or replaced")
	}
}

// removeDatabase deletes the database and its -wal and -shm files, as
// `rm mcptray.db*` does.
func removeDatabase(t *testing.T, path string) {
	t.Helper()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
}

// goneWithin reports whether s's Gone closes within d.
func goneWithin(s *Store, d time.Duration) bool {
	select {
	case <-s.Gone():
		return true
	case <-time.After(d):
		return false
	}
}

// TestGone: the Store notices its file deleted, another file renamed over
// its path, and its folder moved, each through the watch and well before
// the safety poll.
func TestGone(t *testing.T) {
	skipOnWindows(t)
	for _, tc := range []struct {
		name, says string
		do         func(t *testing.T, path string)
	}{
		{"deleted", "deleted or moved", removeDatabase},
		{"replaced", "another file", func(t *testing.T, path string) {
			other := filepath.Join(filepath.Dir(path), "other.db")
			if err := os.WriteFile(other, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(other, path); err != nil {
				t.Fatal(err)
			}
		}},
		{"folder moved", "deleted or moved", func(t *testing.T, path string) {
			dir := filepath.Dir(path)
			if err := os.Rename(dir, dir+"-moved"); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "db", "mcptray.db")
			s := openAt(t, path)
			if err := s.PutTool(context.Background(), greetTool("greet", "Greets.")); err != nil {
				t.Fatal(err)
			}
			if s.GoneErr() != nil {
				t.Fatalf("gone before anything happened: %v", s.GoneErr())
			}
			begin := time.Now()
			tc.do(t, path)
			if !goneWithin(s, wait) {
				t.Fatalf("Gone not closed within %v", wait)
			}
			t.Logf("noticed %v after", time.Since(begin))
			if err := s.GoneErr(); !errors.Is(err, ErrGone) || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), path) {
				t.Errorf("GoneErr = %v; want ErrGone saying %q and the path", err, tc.says)
			}
		})
	}
}

// TestNotGoneOnWrites: what happens to a database while it serves — other
// processes' and other connections' commits, a checkpoint that empties the
// -wal, another Store opening and closing — is not taken for the file
// going; then deleting it is, on the same watch.
func TestNotGoneOnWrites(t *testing.T) {
	skipOnWindows(t)
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mcptray.db")
	s := openAt(t, path)
	ctx := context.Background()
	changes := s.Changes(ctx)
	other, err := Open(path, s.validator)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.PutTool(ctx, greetTool("from-other", "Greets.")); err != nil {
		t.Fatal(err)
	}
	if _, err := other.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	if !testing.Short() {
		runHelper(t, path, "put-tool") // another process
	}
	// The watcher saw the writes (it signalled them), and none of their
	// file events was taken for the file going.
	if !receive(changes, wait) {
		t.Fatal("the other writes were not signalled")
	}
	if _, err := s.Tool(ctx, "from-other"); err != nil {
		t.Fatalf("the other Store's tool: %v", err)
	}
	if !testing.Short() {
		if _, err := s.Tool(ctx, "from-child"); err != nil {
			t.Fatalf("the other process's tool: %v", err)
		}
	}
	if err := s.GoneErr(); err != nil {
		t.Fatalf("taken for gone: %v", err)
	}
	removeDatabase(t, path)
	if !goneWithin(s, wait) {
		t.Fatalf("Gone not closed within %v of the deletion", wait)
	}
}
