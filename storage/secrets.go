package storage

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zalando/go-keyring"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/atomicfile"
	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/internal/sessionbus"
)

// Where secret values are kept, as reported by Secrets.Backend.
const (
	// BackendKeyring is the OS keyring: Secret Service over D-Bus on Linux,
	// the Keychain on macOS, the Credential Manager on Windows.
	BackendKeyring = "keyring"
	// BackendFile is the fallback file, readable only by the user, used when
	// no keyring is reachable.
	BackendFile = "file"
)

// KeyringService is the keyring service under which the default database
// (<user config dir>/mcptray/mcptray.db) keeps its secrets. Any other
// database uses "mcptray:" followed by its absolute path, so a test or CI
// database never reads, overwrites or deletes the user's real secrets.
const KeyringService = "mcptray"

// DefaultProbeTimeout bounds the keyring probe made by OpenSecrets. A
// keyring that asks the user to unlock it and gets no answer within it
// counts as unreachable for this process.
const DefaultProbeTimeout = 10 * time.Second

// MaxSecretSize is the largest secret value accepted, in bytes. Keyrings
// handle small values best (macOS allows about 3,000 bytes per item).
const MaxSecretSize = 64 << 10

// keyringTimeout bounds every keyring call after the probe.
const keyringTimeout = 30 * time.Second

// Entries of the keyring (or the fallback file) that are not user secrets
// carry a ':', which secret names cannot contain.
const (
	// keyPrefix starts the entry of each server key, e.g. "key:request-state".
	keyPrefix = "key:"
	// probeUser is the entry OpenSecrets looks up to see whether the
	// keyring answers; it is never created.
	probeUser = ":probe"
)

// Secrets keeps named secrets and the server's own keys of one database.
// Values live in the OS keyring (zalando/go-keyring, service KeyringService
// for the default database, user = the secret's name); the database keeps
// only the names, so they can be listed, renamed and deleted.
//
// When OpenSecrets finds no keyring (typically a headless Linux without a
// Secret Service), values go to a JSON file next to the database (mode
// 0600, replaced atomically on every change) and Warning says so. When a
// later OpenSecrets finds a keyring, it moves what the file holds into it.
//
// Every change holds the database's write lock while it touches the
// keyring or the file, so processes sharing the database never interleave
// their changes. Secret values never appear in errors.
//
// A Secrets is safe for concurrent use; it has nothing to close, and is
// usable until its Store closes.
type Secrets struct {
	st      *Store
	service string
	kind    string
	// backend is where values are read and written: keyring or file.
	backend secretBackend
	keyring *keyringBackend // nil when the keyring is unreachable
	file    *fileBackend    // the fallback file, in both modes
	// reason says why the keyring is unreachable (file mode only).
	reason string
	// notice reports secrets left behind in the file (keyring mode only).
	notice string
}

// SecretInfo describes a named secret; its value is never part of it.
type SecretInfo struct {
	Name      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// SecretsOption adjusts how OpenSecrets sets a Secrets up.
type SecretsOption func(*secretsConfig)

type secretsConfig struct {
	service      string
	file         string
	probeTimeout time.Duration
	// known is the backend another process of this database found, and
	// knownReason why it fell back to the file (WithKnownBackend).
	known, knownReason string
}

// WithKeyringService sets the keyring service name (default: see
// KeyringService).
func WithKeyringService(name string) SecretsOption {
	return func(c *secretsConfig) {
		if name != "" {
			c.service = name
		}
	}
}

// WithSecretsFile sets the fallback file (default: next to the database,
// named after it: mcptray.db → mcptray.secrets.json).
func WithSecretsFile(path string) SecretsOption {
	return func(c *secretsConfig) {
		if path != "" {
			c.file = path
		}
	}
}

// WithProbeTimeout sets how long OpenSecrets waits for the keyring to
// answer its probe (default DefaultProbeTimeout).
func WithProbeTimeout(d time.Duration) SecretsOption {
	return func(c *secretsConfig) {
		if d > 0 {
			c.probeTimeout = d
		}
	}
}

// WithKnownBackend opens the backend kind (BackendKeyring or BackendFile)
// that the serving mcptray process found, reason being why it uses the
// file: the manager window's own process then neither probes the keyring
// again (up to the probe timeout, each time the window opens) nor moves
// secrets behind the server's back. Any other kind is ignored.
func WithKnownBackend(kind, reason string) SecretsOption {
	return func(c *secretsConfig) {
		if kind == BackendKeyring || kind == BackendFile {
			c.known, c.knownReason = kind, reason
		}
	}
}

// OpenSecrets opens the secret store of this database. It probes the
// keyring by looking up an entry that never exists: "not found" means the
// keyring works; any other error, or no answer within the probe timeout,
// means it is unreachable, and the fallback file is used instead (see
// Backend and Warning). With a keyring, secrets that an earlier process
// had to put in the fallback file move into the keyring; failing that is
// reported by Warning, not as an error.
func (s *Store) OpenSecrets(ctx context.Context, opts ...SecretsOption) (*Secrets, error) {
	cfg := secretsConfig{
		service:      defaultService(s.path),
		file:         paths.SecretsFile(s.path),
		probeTimeout: DefaultProbeTimeout,
	}
	for _, o := range opts {
		o(&cfg)
	}
	x := &Secrets{
		st:      s,
		service: cfg.service,
		file:    &fileBackend{path: cfg.file},
	}
	kr := &keyringBackend{service: cfg.service}
	switch cfg.known {
	case BackendKeyring:
		x.kind, x.backend, x.keyring = BackendKeyring, kr, kr
		return x, nil
	case BackendFile:
		x.kind, x.backend, x.reason = BackendFile, x.file, cfg.knownReason
		return x, nil
	}
	if err := kr.probe(ctx, cfg.probeTimeout); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("open secrets: %w", ctx.Err())
		}
		x.kind, x.backend, x.reason = BackendFile, x.file, err.Error()
		if err := x.file.tighten(); err != nil {
			return nil, fmt.Errorf("open secrets: %w", err)
		}
		return x, nil
	}
	x.kind, x.backend, x.keyring = BackendKeyring, kr, kr
	if err := x.moveFileToKeyring(ctx); err != nil {
		x.notice = fmt.Sprintf("some secrets are still in %s, readable only by you: moving them into the keyring failed (%v)", x.file.path, err)
	}
	return x, nil
}

// defaultService is the keyring service of the database at dbPath.
func defaultService(dbPath string) string {
	if paths.IsDefaultDB(dbPath) {
		return KeyringService
	}
	return KeyringService + ":" + dbPath
}

// Reason says why the keyring is not used ("" when it is).
func (x *Secrets) Reason() string { return x.reason }

// Backend is where values are kept: BackendKeyring or BackendFile.
func (x *Secrets) Backend() string { return x.kind }

// Service is the keyring service name used for this database.
func (x *Secrets) Service() string { return x.service }

// File is the fallback file's path (used only when Backend is BackendFile,
// or for secrets not yet moved into the keyring).
func (x *Secrets) File() string { return x.file.path }

// Warning is what the user must be told on every start, or "" when the
// keyring holds everything.
func (x *Secrets) Warning() string {
	if x.kind == BackendFile {
		return fmt.Sprintf("no keyring service reachable (%s); secrets are kept in %s, readable only by you", x.reason, x.file.path)
	}
	return x.notice
}

// SetSecret creates or replaces the named secret. name follows
// catalog.CheckName; value must be non-empty and at most MaxSecretSize
// bytes.
func (x *Secrets) SetSecret(ctx context.Context, name, value string) error {
	if err := catalog.CheckName(name); err != nil {
		return fmt.Errorf("set secret: name %q: %w", name, err)
	}
	if value == "" {
		return fmt.Errorf("set secret %q: the value is empty", name)
	}
	if len(value) > MaxSecretSize {
		return fmt.Errorf("set secret %q: the value has %d bytes; at most %d allowed", name, len(value), MaxSecretSize)
	}
	return x.st.write(ctx, func(tx *sql.Tx) error {
		at := now()
		_, err := tx.ExecContext(ctx, `INSERT INTO secrets (name, created_at, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET updated_at = excluded.updated_at`, name, at, at)
		if err != nil {
			return fmt.Errorf("set secret %q: %w", name, err)
		}
		if err := x.backend.set(ctx, name, value); err != nil {
			return fmt.Errorf("set secret %q: %w", name, err)
		}
		x.dropLeftover(ctx, name)
		return nil
	})
}

// Secret returns the value of the named secret. A name the database does
// not list is an error wrapping ErrNotFound, even if a value exists.
func (x *Secrets) Secret(ctx context.Context, name string) (string, error) {
	if err := catalog.CheckName(name); err != nil {
		return "", fmt.Errorf("secret %q: %w", name, err)
	}
	ok, err := secretListed(ctx, x.st.db, name)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("secret %q: %w (create it with `mcptray secret set %s`)", name, ErrNotFound, name)
	}
	v, err := x.lookup(ctx, name)
	switch {
	case errors.Is(err, ErrNotFound) && x.kind == BackendFile:
		return "", fmt.Errorf("secret %q has no value in %s; it may be in the keyring, which is not reachable now (%s): %w",
			name, x.file.path, x.reason, ErrNotFound)
	case errors.Is(err, ErrNotFound):
		return "", fmt.Errorf("secret %q has no value in the keyring (set it again with `mcptray secret set %s`): %w",
			name, name, ErrNotFound)
	case err != nil:
		return "", fmt.Errorf("secret %q: %w", name, err)
	}
	return v, nil
}

// ListSecrets describes every secret, by name.
func (x *Secrets) ListSecrets(ctx context.Context) ([]SecretInfo, error) {
	rows, err := x.st.db.QueryContext(ctx, `SELECT name, created_at, updated_at FROM secrets ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list secrets: %w", err)
	}
	defer rows.Close()
	var out []SecretInfo
	for rows.Next() {
		var info SecretInfo
		var created, updated string
		if err := rows.Scan(&info.Name, &created, &updated); err != nil {
			return nil, fmt.Errorf("list secrets: %w", err)
		}
		if info.CreatedAt, err = parseTime(created); err != nil {
			return nil, fmt.Errorf("list secrets: %q: %w", info.Name, err)
		}
		if info.UpdatedAt, err = parseTime(updated); err != nil {
			return nil, fmt.Errorf("list secrets: %q: %w", info.Name, err)
		}
		out = append(out, info)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list secrets: %w", err)
	}
	return out, nil
}

// RenameSecret gives a secret a new name, moving its value. The old name
// must exist (else ErrNotFound) and the new one must not (else ErrExists).
func (x *Secrets) RenameSecret(ctx context.Context, oldName, newName string) error {
	for _, n := range []string{oldName, newName} {
		if err := catalog.CheckName(n); err != nil {
			return fmt.Errorf("rename secret: name %q: %w", n, err)
		}
	}
	var (
		value      string
		copied     bool // the value was written under newName
		removedOld bool // and removed from oldName
	)
	err := x.st.write(ctx, func(tx *sql.Tx) error {
		ok, err := secretListed(ctx, tx, oldName)
		if err != nil {
			return fmt.Errorf("rename secret %q: %w", oldName, err)
		}
		if !ok {
			return fmt.Errorf("rename secret %q: %w", oldName, ErrNotFound)
		}
		if oldName == newName {
			return nil
		}
		if ok, err = secretListed(ctx, tx, newName); err != nil {
			return fmt.Errorf("rename secret %q: %w", oldName, err)
		}
		if ok {
			return fmt.Errorf("rename secret %q: a secret named %q: %w", oldName, newName, ErrExists)
		}
		v, err := x.lookup(ctx, oldName)
		switch {
		case err == nil:
			value = v
			if err := x.backend.set(ctx, newName, v); err != nil {
				return fmt.Errorf("rename secret %q: %w", oldName, err)
			}
			copied = true
		case !errors.Is(err, ErrNotFound): // no value: only the name moves
			return fmt.Errorf("rename secret %q: %w", oldName, err)
		}
		_, err = tx.ExecContext(ctx, `UPDATE secrets SET name = ?, updated_at = ? WHERE name = ?`, newName, now(), oldName)
		if err != nil {
			return fmt.Errorf("rename secret %q: %w", oldName, err)
		}
		if copied {
			if err := x.backend.del(ctx, oldName); err != nil {
				return fmt.Errorf("rename secret %q: %w", oldName, err)
			}
			removedOld = true
			x.dropLeftover(ctx, oldName)
		}
		return nil
	})
	if err != nil && copied {
		// Undo, best effort, under the write lock as every change.
		undo := context.WithoutCancel(ctx)
		_ = x.st.writeQuiet(undo, func(*sql.Tx) error {
			if removedOld {
				_ = x.backend.set(undo, oldName, value)
			}
			_ = x.backend.del(undo, newName)
			return nil
		})
	}
	return err
}

// DeleteSecret deletes the named secret and its value.
func (x *Secrets) DeleteSecret(ctx context.Context, name string) error {
	if err := catalog.CheckName(name); err != nil {
		return fmt.Errorf("delete secret: name %q: %w", name, err)
	}
	return x.st.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM secrets WHERE name = ?`, name)
		if err != nil {
			return fmt.Errorf("delete secret %q: %w", name, err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return fmt.Errorf("delete secret %q: %w", name, errors.Join(ErrNotFound, err))
		}
		if err := x.backend.del(ctx, name); err != nil {
			return fmt.Errorf("delete secret %q: %w", name, err)
		}
		x.dropLeftover(ctx, name)
		return nil
	})
}

// lookup reads an entry where it is kept. With a keyring, an entry missing
// there is also looked for in the fallback file, which may hold values an
// earlier process could not put in the keyring and that are not moved yet.
func (x *Secrets) lookup(ctx context.Context, user string) (string, error) {
	v, err := x.backend.get(ctx, user)
	if errors.Is(err, ErrNotFound) && x.kind == BackendKeyring {
		if fv, ferr := x.file.get(ctx, user); ferr == nil {
			return fv, nil
		}
	}
	return v, err
}

// dropLeftover removes an entry from the fallback file when the keyring is
// in use, so a stale copy does not outlive a change. It runs under the
// database write lock; failing only leaves a copy that lookup no longer
// prefers.
func (x *Secrets) dropLeftover(ctx context.Context, user string) {
	if x.kind == BackendKeyring {
		_ = x.file.del(ctx, user)
	}
}

// moveFileToKeyring moves every entry of the fallback file into the
// keyring, under the database write lock, removing the file once empty. A
// server key the keyring already has stays as it is (keys never change).
func (x *Secrets) moveFileToKeyring(ctx context.Context) error {
	if _, err := os.Stat(x.file.path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return x.st.writeQuiet(ctx, func(*sql.Tx) error {
		m, err := x.file.load()
		if err != nil {
			return err
		}
		var moveErr error
		for _, user := range slices.Sorted(maps.Keys(m)) {
			if strings.HasPrefix(user, keyPrefix) {
				if _, err := x.keyring.get(ctx, user); err == nil {
					delete(m, user)
					continue
				}
			}
			if err := x.keyring.set(ctx, user, m[user]); err != nil {
				moveErr = err
				break
			}
			delete(m, user)
		}
		return errors.Join(moveErr, x.file.save(m))
	})
}

// secretListed reports whether the database lists the named secret.
func secretListed(ctx context.Context, q queryer, name string) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM secrets WHERE name = ?`, name).Scan(&n); err != nil {
		return false, fmt.Errorf("read secret %q: %w", name, err)
	}
	return n > 0, nil
}

// secretBackend is where secret values and server keys are kept. Entries
// are named by "user" in go-keyring's sense: a secret's name, or a reserved
// name containing ':'.
type secretBackend interface {
	// get returns an entry, or an error wrapping ErrNotFound.
	get(ctx context.Context, user string) (string, error)
	// set creates or replaces an entry.
	set(ctx context.Context, user, value string) error
	// del removes an entry; a missing one is not an error.
	del(ctx context.Context, user string) error
}

// keyringMu serializes this process's keyring calls: go-keyring's mock is
// a plain map, and one D-Bus conversation at a time is plenty.
var keyringMu sync.Mutex

// keyringBackend keeps entries in the OS keyring under one service.
type keyringBackend struct {
	service string
}

func (k *keyringBackend) get(ctx context.Context, user string) (string, error) {
	v, err := keyringCall(ctx, keyringTimeout, func() (string, error) { return keyring.Get(k.service, user) })
	if errors.Is(err, keyring.ErrNotFound) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("keyring: %w", err)
	}
	return v, nil
}

func (k *keyringBackend) set(ctx context.Context, user, value string) error {
	_, err := keyringCall(ctx, keyringTimeout, func() (string, error) { return "", keyring.Set(k.service, user, value) })
	if err != nil {
		return fmt.Errorf("keyring: %w", err)
	}
	return nil
}

func (k *keyringBackend) del(ctx context.Context, user string) error {
	_, err := keyringCall(ctx, keyringTimeout, func() (string, error) { return "", keyring.Delete(k.service, user) })
	if err != nil && !errors.Is(err, keyring.ErrNotFound) {
		return fmt.Errorf("keyring: %w", err)
	}
	return nil
}

// probe checks that the keyring answers: looking up an entry that is never
// created must say "not found". Where the keyring is the Secret Service
// (Linux, the BSDs), the lookup is made only when a D-Bus session bus is
// already running: godbus would start one otherwise, and leave it.
func (k *keyringBackend) probe(ctx context.Context, timeout time.Duration) error {
	if keyringOverDBus() {
		if _, why := sessionbus.Find(); why != "" {
			return errors.New(why)
		}
	}
	_, err := keyringCall(ctx, timeout, func() (string, error) { return keyring.Get(k.service, probeUser) })
	if err == nil || errors.Is(err, keyring.ErrNotFound) {
		return nil
	}
	return err
}

// keyringOverDBus says whether go-keyring reaches the keyring over D-Bus
// (the Secret Service) on this system: everywhere but Windows (Credential
// Manager) and macOS (Keychain). Test binaries put go-keyring's in-memory
// mock (keyring.MockInit) in its place, which needs no bus; the mcptray
// binary never runs with the mock, and a test of the real keyring runs in
// a session with a bus (docs/ARCHITECTURE.md).
func keyringOverDBus() bool {
	return runtime.GOOS != "windows" && runtime.GOOS != "darwin" && !testing.Testing()
}

// keyringCall runs one keyring call, giving up after timeout or when ctx
// ends. A call that never returns is abandoned (it holds keyringMu, so
// later calls time out too, which is what an unresponsive keyring deserves).
func keyringCall(ctx context.Context, timeout time.Duration, fn func() (string, error)) (string, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("the keyring did not answer within %v", timeout))
	defer cancel()
	type result struct {
		v   string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		keyringMu.Lock()
		defer keyringMu.Unlock()
		if ctx.Err() != nil { // given up while waiting for the lock
			ch <- result{err: context.Cause(ctx)}
			return
		}
		v, err := fn()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
}

// fileBackend keeps entries in a JSON object of names to values, in a file
// readable only by the user, replaced atomically on every change. Callers
// hold the database write lock around each read-modify-write.
type fileBackend struct {
	path string
}

func (f *fileBackend) get(_ context.Context, user string) (string, error) {
	m, err := f.load()
	if err != nil {
		return "", err
	}
	v, ok := m[user]
	if !ok {
		return "", ErrNotFound
	}
	return v, nil
}

func (f *fileBackend) set(_ context.Context, user, value string) error {
	m, err := f.load()
	if err != nil {
		return err
	}
	m[user] = value
	return f.save(m)
}

func (f *fileBackend) del(_ context.Context, user string) error {
	m, err := f.load()
	if err != nil {
		return err
	}
	if _, ok := m[user]; !ok {
		return nil
	}
	delete(m, user)
	return f.save(m)
}

// load reads the file; a missing or empty file holds nothing. Errors never
// quote the file's content.
func (f *fileBackend) load() (map[string]string, error) {
	m := map[string]string{}
	b, err := os.ReadFile(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read secrets file: %w", err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return m, nil
	}
	if err := json.Unmarshal(b, &m); err != nil {
		where := ""
		var se *json.SyntaxError
		if errors.As(err, &se) {
			where = fmt.Sprintf(" (syntax error at byte %d)", se.Offset)
		}
		return nil, fmt.Errorf("secrets file %s is not a JSON object of names to string values%s", f.path, where)
	}
	return m, nil
}

// save replaces the file with m (removing it when m is empty), atomically:
// a reader sees the old or the new file, whole.
func (f *fileBackend) save(m map[string]string) error {
	if len(m) == 0 {
		if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove secrets file: %w", err)
		}
		return nil
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode secrets file: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return fmt.Errorf("write secrets file: %w", err)
	}
	if err := atomicfile.WriteFile(f.path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write secrets file: %w", err)
	}
	return nil
}

// tighten makes an existing file readable only by the user again, in case
// something loosened its mode.
func (f *fileBackend) tighten() error {
	if runtime.GOOS == "windows" {
		return nil
	}
	fi, err := os.Stat(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("secrets file: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(f.path, 0o600); err != nil {
			return fmt.Errorf("secrets file %s is readable by others and could not be restricted: %w", f.path, err)
		}
	}
	return nil
}
