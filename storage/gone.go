package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/fsnotify/fsnotify"
)

// ErrGone is what GoneErr's error wraps: the database file this Store
// opened is no longer at its path.
var ErrGone = errors.New("the database file is gone")

// Gone returns a channel that is closed once the Store finds that its path
// no longer names the file it opened: the file was deleted, moved away, or
// another file took its name. The Store itself goes on working, on a file
// nobody else can open any more: whatever it writes from then on is lost
// when it closes, and what others write at the path (a new database that
// `mcptray token create` makes, say) it never reads. Its owner should stop
// relying on it.
//
// It is noticed through the file-system watch of the database's folder,
// within milliseconds; when the folder itself is moved with its parent
// (which raises no event in the folder), or without a watch, at the next
// safety poll (see Changes).
func (s *Store) Gone() <-chan struct{} { return s.gone }

// GoneErr says what became of the database file, wrapping ErrGone, once
// Gone is closed; nil before.
func (s *Store) GoneErr() error {
	select {
	case <-s.gone:
		return s.goneErr // set before gone closed
	default:
		return nil
	}
}

// fileIdentity is the database file as Open found it, for later looks to
// compare with (see checkFile).
func fileIdentity(path string) (os.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("look at the database file: %w", err)
	}
	return fi, nil
}

// mayBeGone says whether ev could mean the database file went: its name or
// its folder's was removed, renamed, or (a file renamed over it) created.
func (s *Store) mayBeGone(ev fsnotify.Event) bool {
	switch ev.Name {
	case s.path:
		return ev.Has(fsnotify.Remove | fsnotify.Rename | fsnotify.Create)
	case filepath.Dir(s.path):
		return ev.Has(fsnotify.Remove | fsnotify.Rename)
	}
	return false
}

// checkFile closes Gone when the database's path no longer names the file
// Open found there. Only the watcher goroutine calls it. A look that fails
// for another reason than a missing file (permissions, a busy network
// share) decides nothing: a server must not stop on a hiccup, and the
// next look tells.
func (s *Store) checkFile() {
	if s.GoneErr() != nil {
		return
	}
	fi, err := os.Stat(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s.goneErr = fmt.Errorf("%s was deleted or moved while open: %w", s.path, ErrGone)
	case err != nil:
		return
	case !sameFile(s.ident, fi):
		s.goneErr = fmt.Errorf("%s is another file now (the one opened was deleted or moved, and another took its name): %w", s.path, ErrGone)
	default:
		return
	}
	close(s.gone)
}

// sameFile says whether two looks at the database's path found the same
// file. On Windows a missing file is the only sign: os.SameFile opens the
// path again there, and answers "not the same" when that fails, for
// whatever reason (a file SQLite holds open can be neither deleted nor
// renamed over there anyway).
func sameFile(a, b os.FileInfo) bool {
	return runtime.GOOS == "windows" || os.SameFile(a, b)
}
