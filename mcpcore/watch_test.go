package mcpcore

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testutil"
)

// TestFileWatcherSeesEditsWithoutPolling: with polling every hour (and the
// safety poll longer than testutil.Patience), only the file-system watch can
// notice an edit in place, an editor's save by rename, and a removal.
func TestFileWatcherSeesEditsWithoutPolling(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(path, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 16)
	w := newFileWatcher(time.Hour, slog.New(slog.DiscardHandler), func(_ context.Context, uri string) { got <- uri })
	defer w.stop()
	w.set(map[string]string{"file:///f.txt": path})

	noticed := func(what string) {
		t.Helper()
		testutil.Eventually(t, what+" to be noticed", func() bool {
			select {
			case uri := <-got:
				if uri != "file:///f.txt" {
					t.Errorf("notified %q", uri)
				}
				return true
			default:
				return false
			}
		})
		for len(got) > 0 { // one edit may be seen as several writes
			<-got
		}
	}
	if err := os.WriteFile(path, []byte("two, longer"), 0o600); err != nil {
		t.Fatal(err)
	}
	noticed("an edit in place")

	tmp := filepath.Join(dir, ".f.txt.swp")
	if err := os.WriteFile(tmp, []byte("three, longer still"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	noticed("a save by rename")

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	noticed("the removal")
}
