package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// statePrefix starts the settings table's keys that hold what mcptray
// records about a database rather than what a person set: whether it was
// seeded with the starter catalog, which client config entries hold which
// token. No settings field is named like this, so Settings skips these rows
// and PutSettings leaves them alone; they need no migration of their own.
const statePrefix = "state:"

// State reads the value recorded under key into v. It reports false, and
// leaves v alone, when nothing is recorded.
func (s *Store) State(ctx context.Context, key string, v any) (bool, error) {
	var raw []byte
	err := s.db.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, statePrefix+key).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read state %s: %w", key, err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return false, fmt.Errorf("read state %s: %w", key, err)
	}
	return true, nil
}

// SetState records v (as JSON) under key, replacing what was there. It is
// not a change of the catalog, so Changes does not fire for it.
func (s *Store) SetState(ctx context.Context, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("write state %s: %w", key, err)
	}
	return s.writeQuiet(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
			statePrefix+key, string(b), now())
		if err != nil {
			return fmt.Errorf("write state %s: %w", key, err)
		}
		return nil
	})
}

// DeleteState forgets what is recorded under key; nothing recorded is no
// error.
func (s *Store) DeleteState(ctx context.Context, key string) error {
	return s.writeQuiet(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM settings WHERE key = ?`, statePrefix+key); err != nil {
			return fmt.Errorf("delete state %s: %w", key, err)
		}
		return nil
	})
}

// StatesWithPrefix returns every recorded value whose key starts with
// prefix, keyed by the rest of the key, as raw JSON.
func (s *Store) StatesWithPrefix(ctx context.Context, prefix string) (map[string]json.RawMessage, error) {
	full := statePrefix + prefix
	// LIKE would need its wildcards escaped; a range over the ordered keys
	// cannot misread a key.
	rows, err := s.db.QueryContext(ctx, `SELECT key, value FROM settings WHERE key >= ? AND key < ? ORDER BY key`,
		full, full+"\U0010FFFF")
	if err != nil {
		return nil, fmt.Errorf("read state %s*: %w", prefix, err)
	}
	defer rows.Close()
	out := map[string]json.RawMessage{}
	for rows.Next() {
		var key string
		var value []byte
		if err := rows.Scan(&key, &value); err != nil {
			return nil, fmt.Errorf("read state %s*: %w", prefix, err)
		}
		out[strings.TrimPrefix(key, full)] = json.RawMessage(value)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read state %s*: %w", prefix, err)
	}
	return out, nil
}
