package mcpcore

import (
	"context"
	"io/fs"
	"os"
	"sync"
	"time"
)

// defaultFilePollInterval is how often file resources are checked when
// Options.FilePollInterval is not set.
const defaultFilePollInterval = 500 * time.Millisecond

// fileWatcher polls the files behind file resources and reports the URIs
// whose file changed (size, modification time, type, or it appeared or
// disappeared). Polling, rather than inotify and its kin, sees a file
// replaced by rename (how most editors save) and a file on any file system,
// at the cost of one stat per file per interval.
//
// One goroutine polls while at least one file is watched; it ends when the
// catalog has none left, and on stop.
type fileWatcher struct {
	every  time.Duration
	notify func(ctx context.Context, uri string)
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	files   map[string]*watchedFile // by resource URI
	running bool
	stopped bool
}

type watchedFile struct {
	uri, path string
	sig       fileSig // guarded by fileWatcher.mu
}

// fileSig is what a poll compares.
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

func newFileWatcher(every time.Duration, notify func(ctx context.Context, uri string)) *fileWatcher {
	if every <= 0 {
		every = defaultFilePollInterval
	}
	w := &fileWatcher{every: every, notify: notify, files: map[string]*watchedFile{}}
	w.ctx, w.cancel = context.WithCancel(context.Background())
	return w
}

// set makes the watched files exactly want (URI → path). A file newly
// watched is compared against its state now, so adding a resource does not
// itself publish an update.
func (w *fileWatcher) set(want map[string]string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	for uri, f := range w.files {
		if p, ok := want[uri]; !ok || p != f.path {
			delete(w.files, uri)
		}
	}
	for uri, p := range want {
		if _, ok := w.files[uri]; !ok {
			w.files[uri] = &watchedFile{uri: uri, path: p, sig: statSig(p)}
		}
	}
	if len(w.files) > 0 && !w.running {
		w.running = true
		w.wg.Add(1)
		go w.run()
	}
}

// stop ends the polling goroutine and waits for it; later calls of set do
// nothing.
func (w *fileWatcher) stop() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
	w.cancel()
	w.wg.Wait()
}

func (w *fileWatcher) run() {
	defer w.wg.Done()
	t := time.NewTicker(w.every)
	defer t.Stop()
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-t.C:
		}
		w.mu.Lock()
		if len(w.files) == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		files := make([]*watchedFile, 0, len(w.files))
		for _, f := range w.files {
			files = append(files, f)
		}
		w.mu.Unlock()
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
				return
			}
			w.notify(w.ctx, uri)
		}
	}
}
