package storage

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/mcptray/mcptray/record"
)

// A Store records the process groups of running commands.

// AddProcessGroup records the process group of a command that started.
// Like task writes, it does not count as a catalog change.
func (s *Store) AddProcessGroup(ctx context.Context, g record.ProcessGroup) error {
	err := s.quietTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO process_groups (id, started, program, recorded_at) VALUES (?, ?, ?, ?)`,
			g.ID, int64(g.Started), g.Program, now())
		return err
	})
	if err != nil {
		return fmt.Errorf("record process group %d: %w", g.ID, err)
	}
	return nil
}

// RemoveProcessGroup forgets the process group id (its command ended).
func (s *Store) RemoveProcessGroup(ctx context.Context, id int) error {
	err := s.quietTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM process_groups WHERE id = ?`, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("forget process group %d: %w", id, err)
	}
	return nil
}

// TakeProcessGroups returns the recorded process groups and forgets them
// all: a server calls it at start, once it holds the instance lock, to
// kill what the last run left (actions.KillLeftovers).
func (s *Store) TakeProcessGroups(ctx context.Context) ([]record.ProcessGroup, error) {
	var out []record.ProcessGroup
	err := s.quietTx(ctx, func(tx *sql.Tx) error {
		out = nil
		rows, err := tx.QueryContext(ctx, `SELECT id, started, program FROM process_groups ORDER BY id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var g record.ProcessGroup
			var started int64
			if err := rows.Scan(&g.ID, &started, &g.Program); err != nil {
				return err
			}
			g.Started = uint64(started)
			out = append(out, g)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM process_groups`)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read the recorded process groups: %w", err)
	}
	return out, nil
}
