package storage

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
)

// Key returns the server key with the given name, creating size random
// bytes on first use. Processes racing to create it all end up with the
// same key: each inserts only if none exists, then reads what is stored.
func (s *Store) Key(ctx context.Context, name string, size int) ([]byte, error) {
	if name == "" || size < 1 {
		return nil, fmt.Errorf("key %q: need a name and a positive size (got %d)", name, size)
	}
	key, err := s.readKey(ctx, name)
	if errors.Is(err, ErrNotFound) {
		fresh := make([]byte, size)
		if _, err := rand.Read(fresh); err != nil {
			return nil, fmt.Errorf("key %q: %w", name, err)
		}
		if err := s.quietExec(ctx, `INSERT OR IGNORE INTO server_keys (name, value) VALUES (?, ?)`, name, fresh); err != nil {
			return nil, fmt.Errorf("create key %q: %w", name, err)
		}
		key, err = s.readKey(ctx, name)
	}
	if err != nil {
		return nil, err
	}
	if len(key) != size {
		return nil, fmt.Errorf("key %q: stored key has %d bytes, want %d", name, len(key), size)
	}
	return key, nil
}

// readKey reads one stored key.
func (s *Store) readKey(ctx context.Context, name string) ([]byte, error) {
	var key []byte
	err := s.db.QueryRowContext(ctx, `SELECT value FROM server_keys WHERE name = ?`, name).Scan(&key)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("key %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read key %q: %w", name, err)
	}
	return key, nil
}
