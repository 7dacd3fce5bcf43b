package storage

import (
	"context"
	"fmt"
	"time"
)

// Changes returns a channel that receives a value after committed changes
// to the catalog, settings or tokens, made through this Store (signalled
// right after the commit) or by any other connection or process on the same
// database file (noticed within the poll interval). Signals coalesce: the
// channel holds at most one, so a slow reader gets one signal for many
// changes and should re-read what it needs. The channel is closed when ctx
// ends or the Store closes. Any number of subscribers may exist.
//
// Another process's writes cannot be told apart, so its key creation or
// token last-use updates signal too; this Store's own do not.
func (s *Store) Changes(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	s.subsMu.Lock()
	defer s.subsMu.Unlock()
	if s.subs == nil { // closed
		close(ch)
		return ch
	}
	s.subs[ch] = context.AfterFunc(ctx, func() { s.unsubscribe(ch) })
	return ch
}

// unsubscribe drops and closes one Changes channel.
func (s *Store) unsubscribe(ch chan struct{}) {
	s.subsMu.Lock()
	defer s.subsMu.Unlock()
	if _, ok := s.subs[ch]; ok {
		delete(s.subs, ch)
		close(ch)
	}
}

// closeSubscribers closes every Changes channel; later calls to Changes get
// a closed channel.
func (s *Store) closeSubscribers() {
	s.subsMu.Lock()
	defer s.subsMu.Unlock()
	for ch, stop := range s.subs {
		stop()
		close(ch)
	}
	s.subs = nil
}

// committed reports a change this Store just committed. It first moves the
// watcher's baseline to the current data_version (so the watcher does not
// report the same commit again), then signals. Any other commit before that
// read is visible to whoever reacts to the signal; any after it changes
// data_version again and is reported by the watcher.
func (s *Store) committed() {
	s.watchMu.Lock()
	if v, err := s.dataVersion(); err == nil {
		s.lastVersion = v
	}
	s.watchMu.Unlock()
	s.changed()
}

// changed invalidates the token cache and signals every subscriber.
func (s *Store) changed() {
	s.changeGen.Add(1)
	s.subsMu.Lock()
	defer s.subsMu.Unlock()
	for ch := range s.subs {
		select {
		case ch <- struct{}{}:
		default: // a signal is already pending
		}
	}
}

// watch polls PRAGMA data_version until the Store closes.
func (s *Store) watch() {
	defer s.wg.Done()
	t := time.NewTicker(s.pollInterval)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
			s.poll()
		}
	}
}

// poll reports a change when another connection committed since the last
// look. Errors are transient at worst (the next tick retries).
func (s *Store) poll() {
	s.watchMu.Lock()
	v, err := s.dataVersion()
	moved := err == nil && v != s.lastVersion
	if moved {
		s.lastVersion = v
	}
	s.watchMu.Unlock()
	if moved {
		s.changed()
	}
}

// dataVersion reads the watch connection's PRAGMA data_version, which
// changes whenever another connection commits. The caller holds watchMu.
func (s *Store) dataVersion() (int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var v int64
	if err := s.watchConn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
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
