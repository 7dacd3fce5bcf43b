// Package storage keeps mcptray's state in a SQLite database
// (mattn/go-sqlite3, WAL): the catalog (tools, resources, resource templates,
// prompts, one JSON definition per row), settings, client tokens and the
// server's own keys. Its schema is versioned by migrations embedded in the
// binary.
//
// A Store is what mcpcore's engine reads the catalog and verifies tokens
// with (mcpcore.Source, mcpcore.TokenVerifier, mcpcore.KeyStore), and it
// reports every committed change — its own or another process's on the same
// file — through Changes. It checks what it stores with the Validator it is
// opened with.
package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcptray/mcptray/internal/signals"

	// Registers the "sqlite3" database/sql driver.
	_ "github.com/mattn/go-sqlite3"
)

// ErrNotFound is returned (wrapped) when the named entry, token or key does
// not exist.
var ErrNotFound = errors.New("not found")

// ErrExists is returned (wrapped) when creating something whose name is
// already taken.
var ErrExists = errors.New("already exists")

// DefaultPollInterval is how often a Store checks whether another process
// changed the database when it cannot watch the database's files (see
// Changes); with a watch it checks when the files are written.
const DefaultPollInterval = 150 * time.Millisecond

// timeLayout is how timestamps are stored: UTC RFC 3339 with milliseconds,
// so they sort as text.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// queryer is what *sql.DB, *sql.Tx and *sql.Conn have in common for reads.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Store is an open mcptray database. It is safe for concurrent use.
type Store struct {
	db        *sql.DB
	path      string
	validator Validator

	pollInterval time.Duration

	// watchMu guards watchConn and lastVersion. watchConn is a dedicated
	// connection whose PRAGMA data_version reveals commits made by any other
	// connection; writes that must not count as changes (token last-use
	// times) go through it too, since a connection's own commits leave its
	// data_version alone.
	watchMu     sync.Mutex
	watchConn   *sql.Conn
	lastVersion int64

	// touchMu guards lastUsed, the last recorded use of each token by name.
	touchMu  sync.Mutex
	lastUsed map[string]time.Time

	// changeGen counts observed changes; the token cache is valid only for
	// the generation it was loaded at.
	changeGen atomic.Uint64

	// subs follow the changes (Changes); closed with the Store.
	subs signals.Set

	// ident is the database file as Open found it; gone is closed, and
	// goneErr set just before, once its path names it no more (gone.go).
	ident   os.FileInfo
	gone    chan struct{}
	goneErr error

	tokens  tokenCache
	touchCh chan touch

	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
	wg        sync.WaitGroup
}

// Option adjusts how Open sets a Store up.
type Option func(*Store)

// WithPollInterval sets how often the Store checks the database for commits
// made by other processes when it cannot watch its files (default
// DefaultPollInterval).
func WithPollInterval(d time.Duration) Option {
	return func(s *Store) {
		if d > 0 {
			s.pollInterval = d
		}
	}
}

// Open opens (creating if needed) the database at path and brings its
// schema up to date. A missing parent directory is created with mode 0700,
// a new database file with mode 0600. It fails with ErrSchemaTooNew when the
// database was written by a newer mcptray. Every entry stored is checked
// with v first (mcpcore.Validator{}, in mcptray).
func Open(path string, v Validator, opts ...Option) (*Store, error) {
	if v == nil {
		return nil, errors.New("open database: no validator")
	}
	if path == "" {
		return nil, errors.New("open database: empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	if err := createFile(abs); err != nil {
		return nil, fmt.Errorf("open database %s: %w", abs, err)
	}
	db, err := sql.Open("sqlite3", dsn(abs))
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", abs, err)
	}
	s := &Store{
		validator:    v,
		db:           db,
		path:         abs,
		pollInterval: DefaultPollInterval,
		lastUsed:     make(map[string]time.Time),
		touchCh:      make(chan touch, 64),
		done:         make(chan struct{}),
		gone:         make(chan struct{}),
	}
	for _, o := range opts {
		o(s)
	}
	if err := s.init(context.Background()); err != nil {
		if s.watchConn != nil {
			_ = s.watchConn.Close()
		}
		_ = db.Close()
		return nil, fmt.Errorf("open database %s: %w", abs, unwritable(abs, err))
	}
	s.wg.Add(2)
	s.startWatch()
	go s.touchLoop()
	return s, nil
}

// init migrates the schema and sets up the change watcher's connection.
func (s *Store) init(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return err
	}
	if err := s.migrate(ctx); err != nil {
		return err
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("watch connection: %w", err)
	}
	s.watchConn = conn
	// Taken once SQLite has the file open: what it opened is what the
	// watcher must find at the path.
	if s.ident, err = fileIdentity(s.path); err != nil {
		return err
	}
	v, err := s.dataVersion()
	if err != nil {
		return err
	}
	s.lastVersion = v
	return nil
}

// unwritable explains a failure to open the database at path when the
// reason is that it cannot be written — a read-only mount, a folder or file
// without write permission — which SQLite reports only as "unable to open
// database file: no such file or directory" (it cannot create the -wal and
// -shm files beside the database). Other errors are returned as they are.
func unwritable(path string, err error) error {
	if errors.Is(err, ErrSchemaTooNew) {
		return err
	}
	f, ferr := os.OpenFile(path, os.O_RDWR, 0)
	if ferr != nil {
		return fmt.Errorf("mcptray cannot write the database (%v); it needs a database it can change, on a writable disk: %w", ferr, err)
	}
	f.Close()
	dir := filepath.Dir(path)
	probe, perr := os.CreateTemp(dir, ".mcptray-write-check-*")
	if perr != nil {
		return fmt.Errorf("mcptray cannot create files in the database's folder %s (%v), as SQLite must (the -wal and -shm files beside the database); move the database to a writable folder: %w", dir, perr, err)
	}
	probe.Close()
	_ = os.Remove(probe.Name())
	return err
}

// createFile makes the parent directory (0700) and an empty database file
// (0600) unless they exist, so SQLite never creates them with looser modes.
// SQLite gives its -wal and -shm files the database file's mode.
func createFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create file: %w", err)
	}
	return f.Close()
}

// dsn is the go-sqlite3 data source name for an absolute path: a file: URI
// (so any character in the path is safe) with WAL, a 5 s busy timeout,
// foreign keys, and BEGIN IMMEDIATE for every transaction.
func dsn(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows: C:/x → /C:/x
	}
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_busy_timeout", "5000")
	q.Set("_foreign_keys", "on")
	q.Set("_txlock", "immediate")
	u := url.URL{Scheme: "file", Path: p, RawQuery: q.Encode()}
	return u.String()
}

// Path is the absolute path of the database file.
func (s *Store) Path() string { return s.path }

// Close stops the Store's goroutines, ends every Changes channel and closes
// the database. Calling it again returns the first result.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		close(s.done)
		s.wg.Wait()
		s.subs.Close()
		errs := []error{s.watchConn.Close(), s.db.Close()}
		if err := errors.Join(errs...); err != nil {
			s.closeErr = fmt.Errorf("close database: %w", err)
		}
	})
	return s.closeErr
}

// write runs fn in one transaction that holds the write lock from its
// start, commits it, and reports the change. Any error from fn rolls
// everything back and is returned as is.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if err := s.writeQuiet(ctx, fn); err != nil {
		return err
	}
	s.committed()
	return nil
}

// writeQuiet is write without reporting a change.
func (s *Store) writeQuiet(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return inTx(ctx, s.db, fn)
}

// txBeginner is what starts a transaction: the pool, or one connection.
type txBeginner interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

// inTx runs fn in a transaction on b, committing when it succeeds.
func inTx(ctx context.Context, b txBeginner, fn func(tx *sql.Tx) error) error {
	tx, err := b.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// now is the current time as stored.
func now() string { return time.Now().UTC().Format(timeLayout) }

// parseTime reads a stored timestamp.
func parseTime(v string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("stored time %q: %w", v, err)
	}
	return t, nil
}
