package testutil

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// WriteFiles makes the files of tree in dir, with the folders they need:
// each key is a path relative to dir, with slashes on every system, and
// its value the file's text. Tests of what searches or cleans a folder
// build the folder so.
func WriteFiles(t testing.TB, dir string, tree map[string]string) {
	t.Helper()
	for name, text := range tree {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Aged sets the time path (a file or a folder) was last changed, and
// read, to age before now: a test makes an old download so rather than
// waiting for one.
func Aged(t testing.TB, path string, age time.Duration) {
	t.Helper()
	when := time.Now().Add(-age)
	if err := os.Chtimes(path, when, when); err != nil {
		t.Fatal(err)
	}
}
