package mcpcore

import (
	"context"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// defaultFilePollInterval is how often file resources that cannot be
// watched are checked when Options.FilePollInterval is not set.
const defaultFilePollInterval = 500 * time.Millisecond

// fileSafetyPoll is how often watched files are checked anyway, in case the
// file system dropped an event (network file systems, a full queue). It is
// the database's safety poll period (storage.DefaultSafetyPollInterval), so
// that an idle server wakes once for both.
const fileSafetyPoll = 30 * time.Second

// fileWatcher watches the files behind file resources and reports the URIs
// whose file changed (size, modification time, type, or it appeared or
// disappeared). It watches each file's folder rather than the file, so a
// file replaced by rename (how most editors save) is seen too, and checks a
// file only when an event names it, plus a slow safety poll. Files it
// cannot watch that way — in a folder it cannot watch (missing, inotify
// limits exhausted, no watch support at all), or symbolic links, whose
// target's changes raise no event in the link's folder — are polled every
// `every`, one stat per file per interval, as before watches existed.
//
// One goroutine (run) works while at least one file is watched, and with it
// the file-system watch; both end when the catalog has no file left, and on
// stop.
type fileWatcher struct {
	every  time.Duration
	notify func(ctx context.Context, uri string)
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// resync wakes run after set changed the files (capacity 1).
	resync chan struct{}

	mu      sync.Mutex
	files   map[string]*watchedFile // by resource URI
	running bool
	stopped bool
	// fsw is the running goroutine's file-system watch (nil: none could be
	// created), dirs the folders it watches (false: adding failed), poll
	// whether some file must be polled.
	fsw       *fsnotify.Watcher
	dirs      map[string]bool
	poll      bool
	loggedErr bool // the watch-unavailable message was logged once
}

type watchedFile struct {
	uri, path string  // path is absolute and clean, as events name it
	sig       fileSig // guarded by fileWatcher.mu
}

// fileSig is what a check compares.
type fileSig struct {
	exists bool
	size   int64
	mod    int64 // Unix nanoseconds
	mode   fs.FileMode
}

func statSig(path string) fileSig {
	st, err := os.Stat(path)
	if err != nil {
		return fileSig{}
	}
	return fileSig{exists: true, size: st.Size(), mod: st.ModTime().UnixNano(), mode: st.Mode()}
}

func newFileWatcher(every time.Duration, log *slog.Logger, notify func(ctx context.Context, uri string)) *fileWatcher {
	if every <= 0 {
		every = defaultFilePollInterval
	}
	w := &fileWatcher{every: every, notify: notify, log: log, files: map[string]*watchedFile{}, resync: make(chan struct{}, 1)}
	w.ctx, w.cancel = context.WithCancel(context.Background())
	return w
}

// set makes the watched files exactly want (URI → path). A file newly
// watched is compared against its state now, so adding a resource does not
// itself publish an update; its folder is watched before set returns, so
// no later change goes unseen.
func (w *fileWatcher) set(want map[string]string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	abs := make(map[string]string, len(want))
	for uri, p := range want {
		if a, err := filepath.Abs(p); err == nil {
			p = a
		}
		abs[uri] = p
	}
	for uri, f := range w.files {
		if p, ok := abs[uri]; !ok || p != f.path {
			delete(w.files, uri)
		}
	}
	for uri, p := range abs {
		if _, ok := w.files[uri]; !ok {
			w.files[uri] = &watchedFile{uri: uri, path: p, sig: statSig(p)}
		}
	}
	select {
	case w.resync <- struct{}{}: // run ends if no file is left
	default: // a resync is already pending
	}
	if len(w.files) == 0 {
		return
	}
	if !w.running {
		w.running = true
		w.dirs = map[string]bool{}
		fsw, err := fsnotify.NewWatcher()
		if err != nil {
			w.unavailable(err)
		}
		w.fsw = fsw
		w.wg.Add(1)
		go w.run(fsw)
	}
	w.watchDirs()
}

// stop ends the watching goroutine and waits for it; later calls of set do
// nothing.
func (w *fileWatcher) stop() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
	w.cancel()
	w.wg.Wait()
}

// run watches until no file is left or the watcher stops; it owns fsw (nil
// when no watch could be created) and closes it.
func (w *fileWatcher) run(fsw *fsnotify.Watcher) {
	defer w.wg.Done()
	var events <-chan fsnotify.Event
	var errs <-chan error
	if fsw != nil {
		defer fsw.Close()
		events, errs = fsw.Events, fsw.Errors
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var next time.Time // when the next poll is due
	for {
		files, poll := w.snapshot()
		if files == nil {
			return
		}
		interval := fileSafetyPoll
		if poll {
			interval = w.every
		}
		if now := time.Now(); next.IsZero() || next.After(now.Add(interval)) {
			next = now.Add(interval)
		}
		timer.Reset(time.Until(next))
		var check []*watchedFile
		select {
		case <-w.ctx.Done():
			return
		case <-w.resync:
			continue
		case <-timer.C:
			check, next = files, time.Time{}
			if poll { // a folder that could not be watched may be watchable now
				w.mu.Lock()
				w.watchDirs()
				w.mu.Unlock()
			}
		case ev := <-events:
			for _, f := range files {
				if f.path == ev.Name {
					check = append(check, f)
				}
			}
		case <-errs: // a lost event (queue overflow): look at everything
			check = files
		}
		if !w.check(check) {
			return
		}
	}
}

// snapshot returns the watched files and whether some must be polled, or
// nil (and marks the goroutine ended) when none is left.
func (w *fileWatcher) snapshot() (files []*watchedFile, poll bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.files) == 0 {
		w.running, w.fsw, w.dirs = false, nil, nil
		return nil, false
	}
	files = make([]*watchedFile, 0, len(w.files))
	for _, f := range w.files {
		files = append(files, f)
	}
	return files, w.poll
}

// watchDirs makes the file-system watch cover exactly the folders of the
// watched files, and sets w.poll when some file must be polled because its
// folder is not watched or it is a symbolic link. A folder that could not
// be watched is tried again on the next call. The caller holds w.mu.
func (w *fileWatcher) watchDirs() {
	w.poll = w.fsw == nil
	if w.fsw == nil {
		return
	}
	want := map[string]bool{}
	for _, f := range w.files {
		dir := filepath.Dir(f.path)
		want[dir] = true
		if !w.dirs[dir] {
			w.dirs[dir] = w.fsw.Add(dir) == nil
		}
		if !w.dirs[dir] {
			w.poll = true
		} else if st, err := os.Lstat(f.path); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			w.poll = true
		}
	}
	for dir, ok := range w.dirs {
		if !want[dir] {
			if ok {
				_ = w.fsw.Remove(dir)
			}
			delete(w.dirs, dir)
		}
	}
}

// check compares files with their last state and notifies the changed
// ones; it reports false when the watcher stopped meanwhile.
func (w *fileWatcher) check(files []*watchedFile) bool {
	var changed []string
	for _, f := range files {
		sig := statSig(f.path) // outside the lock: a stat may be slow
		w.mu.Lock()
		if w.files[f.uri] == f && sig != f.sig {
			f.sig = sig
			changed = append(changed, f.uri)
		}
		w.mu.Unlock()
	}
	for _, uri := range changed {
		if w.ctx.Err() != nil {
			return false
		}
		w.notify(w.ctx, uri)
	}
	return w.ctx.Err() == nil
}

// unavailable logs, once per watcher, that files are polled because no
// file-system watch could be created.
// The caller holds w.mu.
func (w *fileWatcher) unavailable(err error) {
	first := !w.loggedErr
	w.loggedErr = true
	if first {
		w.log.Info("file resource watch unavailable; polling files instead", "every", w.every, "err", err)
	}
}
