package storage

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
)

// Key returns the server key with the given name, creating size random
// bytes on first use. A key is one entry of the secret store (keyring or
// fallback file) named "key:" + name, its bytes in base64.
//
// Creation is get-or-create, atomic across processes: after a lookup finds
// nothing, the creator takes the database's write lock (a BEGIN IMMEDIATE
// transaction, which every process sharing the database must take in turn),
// looks again, and only then writes a key and reads it back before
// committing. Processes racing on the same database thus end with the same
// key: the keyring itself offers no compare-and-set, the database lock
// stands in for it. (Two processes of which only one reaches the keyring
// would each create their own key; the one in the file moves to the keyring
// only if the keyring has none.)
//
// A database written by an earlier mcptray kept its keys in its
// server_keys table: on first use such a key moves into the secret store,
// unchanged, and its row is deleted once it is stored there.
func (x *Secrets) Key(ctx context.Context, name string, size int) ([]byte, error) {
	if name == "" || size < 1 {
		return nil, fmt.Errorf("key %q: need a name and a positive size (got %d)", name, size)
	}
	user := keyPrefix + name
	enc, err := x.lookup(ctx, user)
	if errors.Is(err, ErrNotFound) {
		enc, err = x.createKey(ctx, name, size)
	}
	if err != nil {
		return nil, fmt.Errorf("key %q: %w", name, err)
	}
	key, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return nil, fmt.Errorf("key %q: the stored value is not base64", name)
	}
	if len(key) != size {
		return nil, fmt.Errorf("key %q: stored key has %d bytes, want %d", name, len(key), size)
	}
	return key, nil
}

// createKey stores the named key, from server_keys if an earlier version
// left it there, else fresh, unless another process just did, under the
// database write lock (a transaction that writes nothing, so no Changes
// fire). It returns the stored value.
func (x *Secrets) createKey(ctx context.Context, name string, size int) (string, error) {
	user := keyPrefix + name
	var (
		enc      string
		migrated bool // the key came from server_keys
	)
	err := x.st.writeQuiet(ctx, func(tx *sql.Tx) error {
		var err error
		if enc, err = x.lookup(ctx, user); !errors.Is(err, ErrNotFound) {
			return err // found (another process created it), or failed
		}
		var key []byte
		err = tx.QueryRowContext(ctx, `SELECT value FROM server_keys WHERE name = ?`, name).Scan(&key)
		switch {
		case err == nil:
			migrated = true
		case errors.Is(err, sql.ErrNoRows):
			key = make([]byte, size)
			if _, err := rand.Read(key); err != nil {
				return err
			}
		default:
			return fmt.Errorf("read server_keys: %w", err)
		}
		enc = base64.StdEncoding.EncodeToString(key)
		if err := x.backend.set(ctx, user, enc); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		back, err := x.backend.get(ctx, user)
		if err != nil {
			return fmt.Errorf("read back the new key: %w", err)
		}
		if back != enc {
			return fmt.Errorf("the %s returned another value than the new key it was given", x.kind)
		}
		return nil
	})
	if err == nil && migrated {
		// The key is in the secret store now, where every lookup finds it
		// first; the row goes through the watch connection so that this
		// Store's Changes do not fire. Should that fail, a stale row is
		// left, which nothing reads.
		_ = x.st.quietExec(ctx, `DELETE FROM server_keys WHERE name = ?`, name)
	}
	return enc, err
}
