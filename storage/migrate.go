package storage

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

// migrationFiles are the schema migrations, named NNNN_what.sql and applied
// in ascending NNNN order.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// ErrSchemaTooNew is returned (wrapped) by Open when the database's schema
// was written by a newer mcptray than this one.
var ErrSchemaTooNew = errors.New("database schema is newer than this version of mcptray supports")

// migration is one embedded schema step.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations lists the embedded migrations in version order.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var ms []migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(strings.TrimSuffix(name, ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v < 1 {
			return nil, fmt.Errorf("migration %s: name must be NNNN_what.sql", name)
		}
		body, err := fs.ReadFile(migrationFiles, path.Join("migrations", name))
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", name, err)
		}
		ms = append(ms, migration{version: v, name: name, sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: expected version %d", m.name, i+1)
		}
	}
	return ms, nil
}

// migrate applies every migration the database lacks, each in its own
// transaction together with its schema_migrations row. Two processes opening
// the same new database at once are serialized by the write lock each
// transaction takes up front; the loser finds the step recorded and skips it.
// An up-to-date database is only read.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	current, err := schemaVersion(ctx, s.db)
	if err != nil {
		return err
	}
	if err := checkVersion(current, len(ms)); err != nil || current == len(ms) {
		return err
	}
	if current > 0 {
		// A migration rewrites the schema of data a person cares about:
		// the database as it was is kept beside it first.
		if err := s.backup(ctx, BackupPath(s.path, current+1)); err != nil {
			return fmt.Errorf("backing up the database before migrating it from schema version %d: %w", current, err)
		}
	}
	for _, m := range ms[current:] {
		err := s.writeQuiet(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, createSchemaMigrations); err != nil {
				return fmt.Errorf("create schema_migrations: %w", err)
			}
			v, err := schemaVersion(ctx, tx)
			if err != nil {
				return err
			}
			if err := checkVersion(v, len(ms)); err != nil || v >= m.version {
				return err
			}
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return fmt.Errorf("apply migration %s: %w", m.name, err)
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
				m.version, m.name, now())
			if err != nil {
				return fmt.Errorf("record migration %s: %w", m.name, err)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// createSchemaMigrations creates the table recording applied migrations.
const createSchemaMigrations = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version    INTEGER PRIMARY KEY NOT NULL,
	name       TEXT NOT NULL,
	applied_at TEXT NOT NULL
) STRICT`

// checkVersion fails when the database is ahead of the binary.
func checkVersion(current, known int) error {
	if current > known {
		return fmt.Errorf("it was written by a newer mcptray (schema version %d; this mcptray knows up to %d) and was left untouched: use that newer mcptray, or another database (--db): %w", current, known, ErrSchemaTooNew)
	}
	return nil
}

// BackupPath is where the database at db is kept before a migration
// brings it to schema version to (and any after it): beside it, as
// "<db>.before-v<to>.bak".
func BackupPath(db string, to int) string {
	return fmt.Sprintf("%s.before-v%d.bak", db, to)
}

// schemaVersion is the highest applied migration, 0 for a new database.
func schemaVersion(ctx context.Context, q queryer) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	if n == 0 {
		return 0, nil
	}
	var v int
	if err := q.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}
