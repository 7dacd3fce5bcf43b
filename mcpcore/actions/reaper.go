package actions

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/mcptray/mcptray/record"
)

// Reaper is a ProcessGroups that also tells a small watcher process, started
// with it, which process groups are running. The watcher reads the list on
// a pipe; when the pipe closes — mcptray stopped, or was killed and the
// system closed it — it kills every group still listed and exits. So a
// command's whole group, grandchildren included, dies within moments of a
// kill -9 of mcptray, not only at the next start. The watcher is a POSIX
// shell in a process group of its own (a signal to mcptray's group does not
// reach it); on Windows job objects do this job and there is no watcher.
type Reaper struct {
	next ProcessGroups

	mu   sync.Mutex
	pipe io.WriteCloser // nil without a watcher
	wait func() error
}

// StartReaper starts the watcher and returns the Reaper recording in next.
// Without a watcher (Windows, or it could not start) it only records; the
// error says why, and the next start's KillLeftovers remains.
func StartReaper(next ProcessGroups) (*Reaper, error) {
	r := &Reaper{next: next}
	pipe, wait, err := startWatcher()
	if err != nil {
		return r, fmt.Errorf("the watcher that stops commands if mcptray dies: %w", err)
	}
	r.pipe, r.wait = pipe, wait
	return r, nil
}

// AddProcessGroup records g, then lists it with the watcher.
func (r *Reaper) AddProcessGroup(ctx context.Context, g record.ProcessGroup) error {
	err := r.next.AddProcessGroup(ctx, g)
	r.tell('+', g.ID)
	return err
}

// RemoveProcessGroup takes the group off the watcher's list, then forgets
// it.
func (r *Reaper) RemoveProcessGroup(ctx context.Context, id int) error {
	r.tell('-', id)
	return r.next.RemoveProcessGroup(ctx, id)
}

func (r *Reaper) tell(op byte, id int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pipe == nil {
		return
	}
	if _, err := fmt.Fprintf(r.pipe, "%c%d\n", op, id); err != nil {
		// The watcher is gone; the next start's clean-up remains.
		r.pipe.Close()
		r.pipe = nil
	}
}

// Close ends the watcher: it kills the groups still listed (none, once
// every command ended) and exits; Close waits for that.
func (r *Reaper) Close() error {
	r.mu.Lock()
	pipe, wait := r.pipe, r.wait
	r.pipe, r.wait = nil, nil
	r.mu.Unlock()
	if pipe == nil {
		return nil
	}
	pipe.Close()
	return wait()
}
