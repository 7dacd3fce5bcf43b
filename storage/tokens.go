package storage

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/record"
)

// TokenPrefix starts every client token secret.
const TokenPrefix = "mcpt_"

// touchInterval is the least time between two recorded uses of a token.
const touchInterval = time.Minute

// TokenInfo describes a client token. Its secret is never stored, only its
// SHA-256.
type TokenInfo struct {
	Name string
	// Tools is the only tools the token may list and call; nil means all.
	Tools      []string
	CreatedAt  time.Time
	LastUsedAt *time.Time
}

// tokenCache holds the tokens verification compares against, valid for
// the change generation they were loaded at.
type tokenCache struct {
	mu      sync.Mutex
	loaded  bool
	gen     uint64
	entries []tokenEntry
}

// tokenEntry is one stored token hash and who it stands for.
type tokenEntry struct {
	hash      []byte
	principal record.Principal
}

// touch is a token use to record.
type touch struct {
	name string
	at   time.Time
}

// CreateToken creates a client token and returns its secret, which is shown
// once and never stored. name is 1–64 of A-Z a-z 0-9 _ . - and must be
// unused (else the error wraps ErrExists); tools restricts the token to
// those tools, nil meaning all.
func (s *Store) CreateToken(ctx context.Context, name string, tools []string) (string, error) {
	return s.newToken(ctx, "create", name, tools, false)
}

// ReplaceToken gives the token name a new secret, in one transaction: the
// old secret stops working, the tools it may use stay as they were (all,
// for a token that did not exist). It is for the tokens mcptray provisions
// itself (the stdio shim's, Try it's, an installed client config's), whose
// old secret nobody keeps.
func (s *Store) ReplaceToken(ctx context.Context, name string) (string, error) {
	return s.newToken(ctx, "replace", name, nil, true)
}

// newToken stores a new token; with replace, one of that name is replaced
// and its tools (not tools) kept.
func (s *Store) newToken(ctx context.Context, what, name string, tools []string, replace bool) (string, error) {
	if err := catalog.CheckName(name); err != nil {
		return "", fmt.Errorf("%s token: name %q: %w", what, name, err)
	}
	toolsJSON, err := encodeTools(tools)
	if err != nil {
		return "", fmt.Errorf("%s token %q: %w", what, name, err)
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("%s token %q: %w", what, name, err)
	}
	secret := TokenPrefix + base64.RawURLEncoding.EncodeToString(raw)
	hash := sha256.Sum256([]byte(secret))
	err = s.write(ctx, func(tx *sql.Tx) error {
		var old sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT tools FROM tokens WHERE name = ?`, name).Scan(&old)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("%s token %q: %w", what, name, err)
		case !replace:
			return fmt.Errorf("%s token: a token named %q: %w", what, name, ErrExists)
		default:
			toolsJSON = old
			if _, err := tx.ExecContext(ctx, `DELETE FROM tokens WHERE name = ?`, name); err != nil {
				return fmt.Errorf("%s token %q: %w", what, name, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO tokens (name, hash, tools, created_at) VALUES (?, ?, ?, ?)`,
			name, hash[:], toolsJSON, now()); err != nil {
			return fmt.Errorf("%s token %q: %w", what, name, err)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return secret, nil
}

// ListTokens describes every client token, by name.
func (s *Store) ListTokens(ctx context.Context) ([]TokenInfo, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name, tools, created_at, last_used_at FROM tokens ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	defer rows.Close()
	var out []TokenInfo
	for rows.Next() {
		var (
			info            TokenInfo
			tools, lastUsed sql.NullString
			createdAt       string
		)
		if err := rows.Scan(&info.Name, &tools, &createdAt, &lastUsed); err != nil {
			return nil, fmt.Errorf("list tokens: %w", err)
		}
		if info.Tools, err = decodeTools(tools); err != nil {
			return nil, fmt.Errorf("list tokens: %q: %w", info.Name, err)
		}
		if info.CreatedAt, err = parseTime(createdAt); err != nil {
			return nil, fmt.Errorf("list tokens: %q: %w", info.Name, err)
		}
		if lastUsed.Valid {
			t, err := parseTime(lastUsed.String)
			if err != nil {
				return nil, fmt.Errorf("list tokens: %q: %w", info.Name, err)
			}
			info.LastUsedAt = &t
		}
		out = append(out, info)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return out, nil
}

// RevokeToken deletes the named token, and the approvals remembered for
// it; its secret stops working at once.
func (s *Store) RevokeToken(ctx context.Context, name string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := updateTokenTx(ctx, tx, "revoke", name, `DELETE FROM tokens WHERE name = ?`, name); err != nil {
			return err
		}
		// Its approvals go with it: a token made later under the same name
		// is another client, and is asked again.
		if _, err := tx.ExecContext(ctx, `DELETE FROM remembered_approvals WHERE token = ?`, name); err != nil {
			return fmt.Errorf("revoke token %q: forgetting its approvals: %w", name, err)
		}
		return nil
	})
}

// ForgetToken is RevokeToken for a token that may not exist: none is no
// error. An AI client's entry removed forgets its token so.
func (s *Store) ForgetToken(ctx context.Context, name string) error {
	if err := s.RevokeToken(ctx, name); err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	return nil
}

// SetTokenTools restricts the named token to tools, nil meaning all.
func (s *Store) SetTokenTools(ctx context.Context, name string, tools []string) error {
	toolsJSON, err := encodeTools(tools)
	if err != nil {
		return fmt.Errorf("set tools of token %q: %w", name, err)
	}
	return s.updateToken(ctx, "set tools of", name, `UPDATE tokens SET tools = ? WHERE name = ?`, toolsJSON, name)
}

// editAllowlists sets, in tx, each restricted token's allowlist to what
// edit makes of it (edit gets the token's name and its list, to change).
// Tokens without an allowlist see every tool and are left alone; a list
// edit empties stays an empty list, which means no tools.
func editAllowlists(ctx context.Context, tx *sql.Tx, edit func(token string, tools []string) []string) error {
	rows, err := tx.QueryContext(ctx, `SELECT name, tools FROM tokens WHERE tools IS NOT NULL`)
	if err != nil {
		return fmt.Errorf("read token allowlists: %w", err)
	}
	stored := map[string]sql.NullString{}
	for rows.Next() {
		var (
			token string
			tools sql.NullString
		)
		if err := rows.Scan(&token, &tools); err != nil {
			rows.Close()
			return fmt.Errorf("read token allowlists: %w", err)
		}
		stored[token] = tools
	}
	// Closed before the updates, which use the transaction's connection.
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return fmt.Errorf("read token allowlists: %w", err)
	}
	for token, was := range stored {
		tools, err := decodeTools(was)
		if err != nil {
			return fmt.Errorf("the allowlist of token %q: %w", token, err)
		}
		next, err := encodeTools(append([]string{}, edit(token, tools)...))
		if err != nil {
			return fmt.Errorf("the allowlist of token %q: %w", token, err)
		}
		if next == was {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tokens SET tools = ? WHERE name = ?`, next, token); err != nil {
			return fmt.Errorf("set tools of token %q: %w", token, err)
		}
	}
	return nil
}

// updateToken runs one statement that must touch the named token's row.
func (s *Store) updateToken(ctx context.Context, what, name, query string, args ...any) error {
	return s.write(ctx, func(tx *sql.Tx) error { return updateTokenTx(ctx, tx, what, name, query, args...) })
}

// updateTokenTx runs query on the named token in tx; it fails wrapping
// ErrNotFound when no token has that name.
func updateTokenTx(ctx context.Context, tx *sql.Tx, what, name, query string, args ...any) error {
	res, err := tx.ExecContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("%s token %q: %w", what, name, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fmt.Errorf("%s token %q: %w", what, name, errors.Join(ErrNotFound, err))
	}
	return nil
}

// VerifyToken resolves a bearer token secret to its principal, or returns
// an error wrapping record.ErrUnknownToken. It compares the secret's hash
// with every known hash in constant time, from an in-memory list refreshed
// whenever the database changes, and records the use at most once a minute
// per token, in the background.
func (s *Store) VerifyToken(ctx context.Context, secret string) (record.Principal, error) {
	entries, err := s.tokenEntries(ctx)
	if err != nil {
		return record.Principal{}, fmt.Errorf("verify token: %w", err)
	}
	hash := sha256.Sum256([]byte(secret))
	found := -1
	for i := range entries {
		eq := subtle.ConstantTimeCompare(entries[i].hash, hash[:])
		found = subtle.ConstantTimeSelect(eq, i, found)
	}
	if found < 0 {
		return record.Principal{}, fmt.Errorf("verify token: %w", record.ErrUnknownToken)
	}
	p := entries[found].principal
	p.Tools = slices.Clone(p.Tools)
	s.noteUse(p.Token)
	return p, nil
}

// tokenEntries returns the cached tokens, reloading them after any change.
// Concurrent callers wait for a single reload.
func (s *Store) tokenEntries(ctx context.Context) ([]tokenEntry, error) {
	c := &s.tokens
	c.mu.Lock()
	defer c.mu.Unlock()
	gen := s.changeGen.Load()
	if c.loaded && c.gen == gen {
		return c.entries, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT name, hash, tools, last_used_at FROM tokens`)
	if err != nil {
		return nil, fmt.Errorf("load tokens: %w", err)
	}
	defer rows.Close()
	var entries []tokenEntry
	used := make(map[string]time.Time)
	for rows.Next() {
		var (
			e               tokenEntry
			tools, lastUsed sql.NullString
		)
		if err := rows.Scan(&e.principal.Token, &e.hash, &tools, &lastUsed); err != nil {
			return nil, fmt.Errorf("load tokens: %w", err)
		}
		if e.principal.Tools, err = decodeTools(tools); err != nil {
			return nil, fmt.Errorf("load tokens: %q: %w", e.principal.Token, err)
		}
		if t, err := parseTime(lastUsed.String); lastUsed.Valid && err == nil {
			used[e.principal.Token] = t
		}
		entries = append(entries, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load tokens: %w", err)
	}
	s.touchMu.Lock()
	for name, t := range used {
		if t.After(s.lastUsed[name]) {
			s.lastUsed[name] = t
		}
	}
	s.touchMu.Unlock()
	c.entries, c.gen, c.loaded = entries, gen, true
	return entries, nil
}

// noteUse queues a last-use update unless one was recorded within
// touchInterval. It never blocks: when the queue is full the use is dropped.
func (s *Store) noteUse(name string) {
	at := time.Now()
	s.touchMu.Lock()
	due := at.Sub(s.lastUsed[name]) >= touchInterval
	if due {
		s.lastUsed[name] = at
	}
	s.touchMu.Unlock()
	if due {
		select {
		case s.touchCh <- touch{name: name, at: at}:
		default:
		}
	}
}

// touchLoop records queued token uses until the Store closes, then records
// what is still queued.
func (s *Store) touchLoop() {
	defer s.wg.Done()
	for {
		select {
		case t := <-s.touchCh:
			s.recordUse(t)
		case <-s.done:
			for {
				select {
				case t := <-s.touchCh:
					s.recordUse(t)
				default:
					return
				}
			}
		}
	}
}

// recordUse stores one token use. It is best effort: a failure only leaves
// last_used_at older than it could be.
func (s *Store) recordUse(t touch) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	at := t.at.UTC().Format(timeLayout)
	_ = s.quietExec(ctx, `UPDATE tokens SET last_used_at = ? WHERE name = ? AND (last_used_at IS NULL OR last_used_at < ?)`,
		at, t.name, at)
}

// encodeTools checks a tool allowlist and encodes it for the tools column:
// NULL for nil (all tools), else a sorted JSON array without duplicates.
func encodeTools(tools []string) (sql.NullString, error) {
	if tools == nil {
		return sql.NullString{}, nil
	}
	list := slices.Clone(tools)
	for _, t := range list {
		if err := catalog.CheckName(t); err != nil {
			return sql.NullString{}, fmt.Errorf("tool name %q: %w", t, err)
		}
	}
	slices.Sort(list)
	list = slices.Compact(list)
	b, err := json.Marshal(list)
	if err != nil {
		return sql.NullString{}, fmt.Errorf("encode tools: %w", err)
	}
	return sql.NullString{String: string(b), Valid: true}, nil
}

// decodeTools reads the tools column: nil for NULL, else a non-nil list.
func decodeTools(v sql.NullString) ([]string, error) {
	if !v.Valid {
		return nil, nil
	}
	tools := []string{}
	if err := json.Unmarshal([]byte(v.String), &tools); err != nil {
		return nil, fmt.Errorf("decode tools: %w", err)
	}
	return tools, nil
}
