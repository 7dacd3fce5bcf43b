package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcptray/mcptray/record"
)

// A Store keeps the engine's tasks.
// taskColumns are the columns every task query reads, in scan order.
const taskColumns = `id, owner, tool, status, status_message, created_at, updated_at, ttl_ms, poll_interval_ms,
	input_requests, result, error, progress, total, progress_message`

// CreateTask stores a new task. It is committed when CreateTask returns, so
// a tasks/get right after the CreateTaskResult finds it. Task writes do not
// count as catalog changes.
func (s *Store) CreateTask(ctx context.Context, t record.Task) error {
	err := s.quietTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO tasks (`+taskColumns+`, expires_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, taskArgs(t)...)
		return err
	})
	if err != nil {
		return fmt.Errorf("create task: %w", err)
	}
	return nil
}

// UpdateTask replaces a stored task; record.ErrUnknownTask when it is gone.
func (s *Store) UpdateTask(ctx context.Context, t record.Task) error {
	var n int64
	err := s.quietTx(ctx, func(tx *sql.Tx) error {
		args := taskArgs(t)
		res, err := tx.ExecContext(ctx, `UPDATE tasks SET owner = ?, tool = ?, status = ?, status_message = ?,
			created_at = ?, updated_at = ?, ttl_ms = ?, poll_interval_ms = ?, input_requests = ?, result = ?,
			error = ?, progress = ?, total = ?, progress_message = ?, expires_at = ? WHERE id = ?`,
			append(args[1:], args[0])...)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		return nil
	})
	if err != nil {
		return fmt.Errorf("update task: %w", err)
	}
	if n == 0 {
		return record.ErrUnknownTask
	}
	return nil
}

// GetTask returns a task; record.ErrUnknownTask when there is none.
func (s *Store) GetTask(ctx context.Context, id string) (record.Task, error) {
	row := s.db.QueryRowContext(ctx, `SELECT `+taskColumns+` FROM tasks WHERE id = ?`, id)
	t, err := scanTask(row)
	if errors.Is(err, sql.ErrNoRows) {
		return record.Task{}, record.ErrUnknownTask
	}
	if err != nil {
		return record.Task{}, fmt.Errorf("read task: %w", err)
	}
	return t, nil
}

// Tasks lists the stored tasks, newest first, at most limit (all when 0).
func (s *Store) Tasks(ctx context.Context, limit int) ([]record.Task, error) {
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+taskColumns+` FROM tasks ORDER BY created_at DESC, id LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("list tasks: %w", err)
	}
	defer rows.Close()
	var out []record.Task
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, fmt.Errorf("list tasks: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// InterruptTasks ends every task still working or input_required as failed
// with the given message and JSON-RPC error.
func (s *Store) InterruptTasks(ctx context.Context, msg string, rpcErr json.RawMessage, at time.Time) (int, error) {
	var n int64
	err := s.quietTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE tasks SET status = ?, status_message = ?, error = ?, input_requests = '', updated_at = ?
			WHERE status IN (?, ?)`, record.TaskFailed, msg, string(rpcErr), at.UTC().Format(timeLayout),
			record.TaskWorking, record.TaskInputRequired)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("interrupt tasks: %w", err)
	}
	return int(n), nil
}

// DeleteExpiredTasks deletes the tasks whose TTL ran out before now.
func (s *Store) DeleteExpiredTasks(ctx context.Context, now time.Time) (int, error) {
	var n int64
	err := s.quietTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM tasks WHERE expires_at != '' AND expires_at < ?`, now.UTC().Format(timeLayout))
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("delete expired tasks: %w", err)
	}
	return int(n), nil
}

// taskArgs are the values of taskColumns, then expires_at.
func taskArgs(t record.Task) []any {
	expires := ""
	if t.TTLMs > 0 {
		expires = t.CreatedAt.Add(time.Duration(t.TTLMs) * time.Millisecond).UTC().Format(timeLayout)
	}
	return []any{t.ID, t.Owner, t.Tool, t.Status, t.StatusMessage,
		t.CreatedAt.UTC().Format(timeLayout), t.UpdatedAt.UTC().Format(timeLayout), t.TTLMs, t.PollIntervalMs,
		string(t.InputRequests), string(t.Result), string(t.Error), t.Progress, t.Total, t.ProgressMessage, expires}
}

type scanner interface{ Scan(dest ...any) error }

func scanTask(sc scanner) (record.Task, error) {
	var t record.Task
	var created, updated, inputs, result, rpcErr string
	if err := sc.Scan(&t.ID, &t.Owner, &t.Tool, &t.Status, &t.StatusMessage, &created, &updated, &t.TTLMs,
		&t.PollIntervalMs, &inputs, &result, &rpcErr, &t.Progress, &t.Total, &t.ProgressMessage); err != nil {
		return t, err
	}
	var err error
	if t.CreatedAt, err = parseTime(created); err != nil {
		return t, err
	}
	if t.UpdatedAt, err = parseTime(updated); err != nil {
		return t, err
	}
	t.InputRequests, t.Result, t.Error = rawOrNil(inputs), rawOrNil(result), rawOrNil(rpcErr)
	return t, nil
}

func rawOrNil(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}
