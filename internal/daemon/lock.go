package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/internal/process"
)

// lockRetry is how often a waiting lock is tried again.
const lockRetry = 50 * time.Millisecond

// instanceLock takes the lock that makes this process the one server of
// the database db, for as long as it runs. The lock is an OS file lock
// (flock on Unix, LockFileEx on Windows): it ends with the process, however
// it ends, so there is never a stale lock to clear. endpointFile names
// the holder in the error when it can.
//
// A server killed a moment ago still holds the lock while its last threads
// let go of its files, after its connections closed and its process
// already reads as ended; a shim restarting it at once meets that. So a
// lock whose holder is not a running server named by the endpoint file
// is waited for, up to lockSettle; a running server's is refused at once.
func instanceLock(db, endpointFile string) (*flock.Flock, error) {
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
		return nil, fmt.Errorf("creating the database's folder: %w", err)
	}
	l := flock.New(paths.InstanceLock(db))
	deadline := time.Now().Add(lockSettle)
	for {
		ok, err := l.TryLock()
		if err != nil {
			return nil, fmt.Errorf("locking %s: %w", l.Path(), err)
		}
		if ok {
			return l, nil
		}
		if _, serving := servingEndpoint(db, endpointFile); serving || time.Now().After(deadline) {
			return nil, alreadyServing(db, endpointFile)
		}
		time.Sleep(lockRetry / 2)
	}
}

// lockSettle bounds the wait for the lock of a server that is ending.
const lockSettle = 2 * time.Second

// servingEndpoint is the endpoint file's record when it names a running
// server of db.
func servingEndpoint(db, endpointFile string) (paths.Endpoint, bool) {
	ep, err := paths.ReadEndpoint(endpointFile)
	return ep, err == nil && ep.DB == db && process.Alive(ep.PID)
}

// ErrAlreadyServing is wrapped by Start's error when another mcptray
// serves the same database.
var ErrAlreadyServing = errors.New("mcptray is already running")

// alreadyServing says who serves db, when the endpoint file tells.
func alreadyServing(db, endpointFile string) error {
	if ep, ok := servingEndpoint(db, endpointFile); ok {
		return fmt.Errorf("%w on %s (pid %d, %s)", ErrAlreadyServing, db, ep.PID, ep.URL)
	}
	return fmt.Errorf("%w on %s (another mcptray process holds %s)", ErrAlreadyServing, db, paths.InstanceLock(db))
}

// waitUnlocked waits until no process holds db's instance lock, or ctx ends.
func waitUnlocked(ctx context.Context, db string) error {
	l := flock.New(paths.InstanceLock(db))
	ok, err := l.TryLockContext(ctx, lockRetry)
	if err != nil {
		return err
	}
	if ok {
		return l.Unlock()
	}
	return ctx.Err()
}

// lockFile takes the exclusive lock of path, waiting up to timeout for
// another holder; the returned function releases it.
func lockFile(ctx context.Context, path string, timeout time.Duration) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	l := flock.New(path)
	ok, err := l.TryLockContext(ctx, lockRetry/2)
	if !ok || err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s is held by another mcptray for more than %v", path, timeout)
		}
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() { _ = l.Close() }, nil
}
