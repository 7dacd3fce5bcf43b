package storage

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DefaultSafetyPollInterval is how often a Store whose file watch works
// checks for other processes' commits anyway, in case the watch missed one.
// Longer than testutil.Patience, so a test that a watch noticed a change
// cannot pass on the safety poll alone. Each look wakes an idle server:
// make bench measured some 15 ms of CPU per wake-up on its 2-core VM, so
// at 20 s the polls alone came near the 1 ms/s idle target. The file
// resources' safety poll (mcpcore's fileSafetyPoll) has the same period,
// so that both fall in one wake-up.
const DefaultSafetyPollInterval = 30 * time.Second

// The watcher's looks after a write to the database files: the first, then
// ten times later each, up to the last (see Store.watch).
const (
	firstRecheck = 5 * time.Millisecond
	lastRecheck  = 500 * time.Millisecond
)

// Changes returns a channel that receives a value after committed changes
// to the catalog, settings or tokens, made through this Store (signalled
// right after the commit) or by any other connection or process on the same
// database file (noticed when the file-system watch sees the database
// written, or at worst within the safety poll). Signals coalesce: the
// channel holds at most one, so a slow reader gets one signal for many
// changes and should re-read what it needs. The channel is closed when ctx
// ends or the Store closes. Any number of subscribers may exist.
//
// Another process's writes cannot be told apart, so its key creation or
// token last-use updates signal too; this Store's own do not.
func (s *Store) Changes(ctx context.Context) <-chan struct{} { return s.subs.Subscribe(ctx) }

// committed reports a change this Store just committed: it moves the
// watcher's baseline to the current data_version and signals, unless the
// watcher, woken by the same commit's file write, got there first and
// signalled already. Any other commit before that read is visible to
// whoever reacts to the signal; any after it changes data_version again and
// is reported by the watcher. The signal goes out under watchMu, so when a
// write returns its signal has been sent, whoever sent it.
func (s *Store) committed() {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	v, err := s.dataVersion()
	if err == nil && v == s.lastVersion {
		return
	}
	if err == nil {
		s.lastVersion = v
	}
	s.changed()
}

// changed invalidates the token cache and signals every subscriber.
func (s *Store) changed() {
	s.changeGen.Add(1)
	s.subs.Notify()
}

// startWatch starts the goroutine that looks for other connections'
// commits, and for the database file going (Gone), until the Store closes:
// when the database or its -wal file is written, removed or renamed (a
// file-system watch of their folder, set up before startWatch returns so
// no later commit goes unseen), and on a slow safety poll in case an event
// is missed (network file systems, a full event queue). Where no watch can
// be set up (inotify limits exhausted, say) it falls back to polling every
// pollInterval. Only the data_version check and a stat of the file run on
// a wake-up, so an idle Store does not wake up between safety polls. The
// caller has added the goroutine to s.wg.
func (s *Store) startWatch() {
	every := DefaultSafetyPollInterval
	events, errs, closeWatch, err := s.watchFiles()
	if err != nil {
		slog.Info("database change watch unavailable; polling instead", "database", s.path, "every", s.pollInterval, "err", err)
		every = s.pollInterval
	}
	go s.watch(every, events, errs, closeWatch)
}

// watch is startWatch's goroutine.
func (s *Store) watch(every time.Duration, events <-chan fsnotify.Event, errs <-chan error, closeWatch func()) {
	defer s.wg.Done()
	defer closeWatch()
	t := time.NewTicker(every)
	defer t.Stop()
	// A write event comes while its commit is still under way: the commit
	// becomes visible when the wal-index is updated, through memory mapping,
	// which raises no event. So after a write the watcher looks a few times,
	// ever later (firstRecheck, ×10 up to lastRecheck); a look that comes too
	// early is followed by one that does not. delay is the pending look's
	// delay, 0 when none is pending. The watcher starts with such looks: they
	// catch a commit made between Open's first data_version read and the
	// watch's start.
	delay := firstRecheck
	recheck := time.NewTimer(delay)
	defer recheck.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
			s.checkFile()
			s.poll()
		case <-errs: // a lost event (queue overflow): look now
			s.checkFile()
			s.poll()
		case ev := <-events:
			if s.mayBeGone(ev) {
				s.checkFile()
			}
			if s.isDatabaseFile(ev.Name) && delay != firstRecheck {
				delay = firstRecheck
				recheck.Reset(delay)
			}
		case <-recheck.C:
			s.poll()
			if delay *= 10; delay <= lastRecheck {
				recheck.Reset(delay)
			} else {
				delay = 0
			}
		}
	}
}

// watchFiles starts a file-system watch of the database's folder. Watching
// the folder rather than the files sees the -wal file come and go.
func (s *Store) watchFiles() (<-chan fsnotify.Event, <-chan error, func(), error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, nil, func() {}, fmt.Errorf("watch database folder: %w", err)
	}
	if err := w.Add(filepath.Dir(s.path)); err != nil {
		_ = w.Close()
		return nil, nil, func() {}, fmt.Errorf("watch database folder: %w", err)
	}
	return w.Events, w.Errors, func() { _ = w.Close() }, nil
}

// isDatabaseFile reports whether name is the database or its write-ahead
// log, the files a commit writes (the -shm index is written through memory
// mapping, which raises no events).
func (s *Store) isDatabaseFile(name string) bool {
	return name == s.path || name == s.path+"-wal"
}

// poll reports a change when another connection committed since the last
// look. Errors are transient at worst (the next wake-up retries).
func (s *Store) poll() {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	v, err := s.dataVersion()
	if err == nil && v != s.lastVersion {
		s.lastVersion = v
		s.changed()
	}
}

// dataVersion reads the watch connection's PRAGMA data_version, which
// changes whenever another connection commits. The caller holds watchMu.
// It sets no timeout: a timer armed and stopped at once still woke the
// idle process when it would have fired (5 s after each poll, seen with
// strace), and the read takes no lock it could wait for.
func (s *Store) dataVersion() (int64, error) {
	var v int64
	if err := s.watchConn.QueryRowContext(context.Background(), `PRAGMA data_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read data_version: %w", err)
	}
	return v, nil
}

// quietExec runs one statement on the watch connection, whose own commits
// do not move its data_version: for writes that are not catalog, settings
// or token changes (last-use times, server keys).
func (s *Store) quietExec(ctx context.Context, query string, args ...any) error {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	_, err := s.watchConn.ExecContext(ctx, query, args...)
	return err
}
