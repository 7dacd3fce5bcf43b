package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/mcptray/mcptray/record"
)

// A Store keeps the approvals remembered until revoked.
// checkApprovalKey refuses a key no approval could have: every remembered
// approval names a tool and the hash of its definition.
func checkApprovalKey(what string, k record.ApprovalKey) error {
	switch {
	case k.Tool == "":
		return fmt.Errorf("%s: no tool named", what)
	case k.ToolHash == "":
		return fmt.Errorf("%s of %q: no hash of the tool's definition", what, k.Tool)
	}
	return nil
}

// IsApprovalRemembered reports whether the approval k is kept.
func (s *Store) IsApprovalRemembered(ctx context.Context, k record.ApprovalKey) (bool, error) {
	var one int
	err := s.db.QueryRowContext(ctx, `SELECT 1 FROM remembered_approvals WHERE token = ? AND client = ? AND tool = ? AND tool_hash = ?`,
		k.Token, k.Client, k.Tool, k.ToolHash).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("read the remembered approval of %q: %w", k.Tool, err)
	}
	return true, nil
}

// RememberApproval keeps the approval k until ForgetApproval; one kept
// already keeps the time it was first allowed. It is not a catalog change:
// the Store's Changes stay quiet.
func (s *Store) RememberApproval(ctx context.Context, k record.ApprovalKey) error {
	if err := checkApprovalKey("remember the approval", k); err != nil {
		return err
	}
	err := s.quietExec(ctx, `INSERT INTO remembered_approvals (token, client, tool, tool_hash, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT DO NOTHING`, k.Token, k.Client, k.Tool, k.ToolHash, now())
	if err != nil {
		return fmt.Errorf("remember the approval of %q for %q: %w", k.Tool, k.Client, err)
	}
	return nil
}

// ForgetApproval drops the approval k; one that is not kept is no error.
func (s *Store) ForgetApproval(ctx context.Context, k record.ApprovalKey) error {
	err := s.quietExec(ctx, `DELETE FROM remembered_approvals WHERE token = ? AND client = ? AND tool = ? AND tool_hash = ?`,
		k.Token, k.Client, k.Tool, k.ToolHash)
	if err != nil {
		return fmt.Errorf("forget the approval of %q for %q: %w", k.Tool, k.Client, err)
	}
	return nil
}

// RememberedApprovals lists the kept approvals, newest first.
func (s *Store) RememberedApprovals(ctx context.Context) ([]record.RememberedApproval, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT token, client, tool, tool_hash, created_at FROM remembered_approvals
		ORDER BY created_at DESC, client, tool`)
	if err != nil {
		return nil, fmt.Errorf("list the remembered approvals: %w", err)
	}
	defer rows.Close()
	var out []record.RememberedApproval
	for rows.Next() {
		a := record.RememberedApproval{UntilRevoked: true}
		var since string
		if err := rows.Scan(&a.Token, &a.Client, &a.Tool, &a.ToolHash, &since); err != nil {
			return nil, fmt.Errorf("list the remembered approvals: %w", err)
		}
		if a.Since, err = parseTime(since); err != nil {
			return nil, fmt.Errorf("list the remembered approvals: %q: %w", a.Tool, err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list the remembered approvals: %w", err)
	}
	return out, nil
}
