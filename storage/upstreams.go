package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/record"
)

var upstreamKind = &kind[catalog.Upstream]{
	noun: "server", table: "upstreams", keyCol: "name", keyField: "name",
	taken:    func(name string) string { return fmt.Sprintf("a server named %q exists already", name) },
	key:      func(u *catalog.Upstream) string { return u.Name },
	validate: Validator.Upstream,
	disabled: func(u *catalog.Upstream) *bool { return &u.Disabled },
	list:     func(c *catalog.Catalog) *[]catalog.Upstream { return &c.Upstreams },
}

// SaveUpstream stores a server in place of the one stored under oldName
// ("" for a new one), refusing a name another server has; it keeps the
// stored Disabled flag. On a rename, the server's tools follow it.
func (s *Store) SaveUpstream(ctx context.Context, oldName string, u catalog.Upstream) (catalog.Upstream, error) {
	return save(ctx, s, upstreamKind, oldName, u, func(tx *sql.Tx) error {
		if oldName == "" || oldName == u.Name {
			return nil
		}
		tools, err := upstreamTools(ctx, tx, oldName)
		if err != nil {
			return err
		}
		for _, t := range tools {
			t.Action.Upstream.Server = u.Name
			if err := toolKind.upsert(ctx, tx, &t, now()); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE upstream_changes SET server = ? WHERE server = ?`, u.Name, oldName)
		return err
	})
}

// Upstream reads one server by name.
func (s *Store) Upstream(ctx context.Context, name string) (catalog.Upstream, error) {
	return get(ctx, s.db, upstreamKind, name)
}

// SetUpstreamDisabled turns a server off (its tools are then not served)
// or on.
func (s *Store) SetUpstreamDisabled(ctx context.Context, name string, disabled bool) error {
	return setDisabled(ctx, s, upstreamKind, name, disabled)
}

// DeleteUpstream deletes a server with its tools and its waiting changes,
// in one transaction.
func (s *Store) DeleteUpstream(ctx context.Context, name string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := upstreamKind.delete(ctx, tx, name); err != nil {
			return err
		}
		tools, err := upstreamTools(ctx, tx, name)
		if err != nil {
			return err
		}
		for _, t := range tools {
			if err := toolKind.delete(ctx, tx, t.Name); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM upstream_changes WHERE server = ?`, name); err != nil {
			return fmt.Errorf("delete the changes of server %q: %w", name, err)
		}
		return nil
	})
}

// UpstreamTools are the stored tools that call server's tools.
func (s *Store) UpstreamTools(ctx context.Context, server string) ([]catalog.Tool, error) {
	return upstreamTools(ctx, s.db, server)
}

func upstreamTools(ctx context.Context, q queryer, server string) ([]catalog.Tool, error) {
	rows, err := q.QueryContext(ctx, `SELECT name, definition FROM tools WHERE json_extract(definition, '$.action.upstream.server') = ? ORDER BY name`, server)
	if err != nil {
		return nil, fmt.Errorf("read the tools of server %q: %w", server, err)
	}
	defer rows.Close()
	c := &catalog.Catalog{}
	for rows.Next() {
		var key string
		var def []byte
		if err := rows.Scan(&key, &def); err != nil {
			return nil, fmt.Errorf("read the tools of server %q: %w", server, err)
		}
		if err := toolKind.appendJSON(c, key, def); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the tools of server %q: %w", server, err)
	}
	return c.Tools, nil
}

// UpstreamChanges lists what servers offer that the person has not
// approved, by server and tool; server "" lists every server's.
func (s *Store) UpstreamChanges(ctx context.Context, server string) ([]record.UpstreamChange, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT server, tool, kind, COALESCE(definition, ''), hash, seen_at FROM upstream_changes
		WHERE ? = '' OR server = ? ORDER BY server, tool`, server, server)
	if err != nil {
		return nil, fmt.Errorf("read server changes: %w", err)
	}
	defer rows.Close()
	var out []record.UpstreamChange
	for rows.Next() {
		var c record.UpstreamChange
		var def, seen string
		if err := rows.Scan(&c.Server, &c.Tool, &c.Kind, &def, &c.Hash, &seen); err != nil {
			return nil, fmt.Errorf("read server changes: %w", err)
		}
		if def != "" {
			c.Definition = []byte(def)
		}
		c.Seen, _ = parseTime(seen)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read server changes: %w", err)
	}
	return out, nil
}

// UpstreamUpdate is what reading a server's tools, or the person's
// approval, changes in one transaction (ApplyUpstream).
type UpstreamUpdate struct {
	// Server is the upstream's name.
	Server string
	// Put are its tools to store, each replacing the stored tool of the
	// same name.
	Put []catalog.Tool
	// Remove names its stored tools to delete.
	Remove []string
	// Changes replace the server's waiting changes; a change already
	// waiting, with the same hash, keeps when it was first seen.
	Changes []record.UpstreamChange
	// Others, when set, replace the server's prompts, resources and
	// resource templates.
	Others *UpstreamOthers
}

// UpstreamOthers are a server's prompts, resources and resource templates
// as it offers them, each naming the server as its source.
type UpstreamOthers struct {
	Prompts   []catalog.Prompt
	Resources []catalog.Resource
	Templates []catalog.ResourceTemplate
}

// ApplyUpstream stores u in one transaction. A tool to put is validated,
// and refused when its name belongs to another tool than this server's
// same tool (a tool of mcptray's own, or another server's): the whole
// update then changes nothing and the error, a *catalog.ValidationError,
// names every such tool. A prompt, resource or resource template of
// Others that is invalid, or whose key another entry has, is left out
// and listed in left, the rest stored.
func (s *Store) ApplyUpstream(ctx context.Context, u UpstreamUpdate) (left []catalog.Problem, err error) {
	var ps []catalog.Problem
	for _, t := range u.Put {
		if t.Action.Upstream == nil || t.Action.Upstream.Server != u.Server {
			ps = append(ps, catalog.Problem{Entry: fmt.Sprintf("tool %q", t.Name), Field: "action.upstream.server", Message: fmt.Sprintf("is not the server %q", u.Server)})
			continue
		}
		ps = append(ps, s.validator.Tool(t)...)
	}
	if len(ps) > 0 {
		return nil, &catalog.ValidationError{Problems: ps}
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		left = nil
		if _, err := get(ctx, tx, upstreamKind, u.Server); err != nil {
			return err
		}
		at := now()
		var clashes []catalog.Problem
		for i := range u.Put {
			t := &u.Put[i]
			cur, err := get(ctx, tx, toolKind, t.Name)
			switch {
			case errors.Is(err, ErrNotFound):
			case err != nil:
				return err
			case cur.Action.Upstream == nil || cur.Action.Upstream.Server != u.Server || cur.Action.Upstream.Tool != t.Action.Upstream.Tool:
				clashes = append(clashes, catalog.Problem{Entry: fmt.Sprintf("tool %q", t.Name), Field: "name",
					Message: fmt.Sprintf("a tool named %q exists already: give the server %q another prefix", t.Name, u.Server)})
				continue
			}
			if err := toolKind.upsert(ctx, tx, t, at); err != nil {
				return err
			}
		}
		if len(clashes) > 0 {
			return &catalog.ValidationError{Problems: clashes}
		}
		for _, name := range u.Remove {
			if err := toolKind.delete(ctx, tx, name); err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
		}
		if u.Others != nil {
			var err error
			if left, err = s.replaceOthers(ctx, tx, u.Server, u.Others, at); err != nil {
				return err
			}
		}
		return replaceUpstreamChanges(ctx, tx, u.Server, u.Changes, at)
	})
	return left, err
}

func replaceUpstreamChanges(ctx context.Context, tx *sql.Tx, server string, changes []record.UpstreamChange, at string) error {
	seen := map[string]string{}
	rows, err := tx.QueryContext(ctx, `SELECT tool || char(0) || hash, seen_at FROM upstream_changes WHERE server = ?`, server)
	if err != nil {
		return fmt.Errorf("read the changes of server %q: %w", server, err)
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return fmt.Errorf("read the changes of server %q: %w", server, err)
		}
		seen[k] = v
	}
	rows.Close()
	if _, err := tx.ExecContext(ctx, `DELETE FROM upstream_changes WHERE server = ?`, server); err != nil {
		return fmt.Errorf("clear the changes of server %q: %w", server, err)
	}
	for _, c := range changes {
		when, ok := seen[c.Tool+"\x00"+c.Hash]
		if !ok {
			when = at
		}
		var def any
		if len(c.Definition) > 0 {
			def = string(c.Definition)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO upstream_changes (server, tool, kind, definition, hash, seen_at) VALUES (?, ?, ?, ?, ?, ?)`,
			server, c.Tool, c.Kind, def, c.Hash, when); err != nil {
			return fmt.Errorf("record a change of server %q's tool %q: %w", server, c.Tool, err)
		}
	}
	return nil
}

// Upstreams lists the stored servers by name.
func (s *Store) Upstreams(ctx context.Context) ([]catalog.Upstream, error) {
	rows, err := s.db.QueryContext(ctx, upstreamKind.selectAll(0)+` ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("read servers: %w", err)
	}
	defer rows.Close()
	c := &catalog.Catalog{}
	for rows.Next() {
		var i int
		var key string
		var def []byte
		if err := rows.Scan(&i, &key, &def); err != nil {
			return nil, fmt.Errorf("read servers: %w", err)
		}
		if err := upstreamKind.appendJSON(c, key, def); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read servers: %w", err)
	}
	return c.Upstreams, nil
}

// replaceOthers replaces server's prompts, resources and resource
// templates with o's; it returns the entries left out.
func (s *Store) replaceOthers(ctx context.Context, tx *sql.Tx, server string, o *UpstreamOthers, at string) ([]catalog.Problem, error) {
	var left []catalog.Problem
	left = append(left, replaceFrom(ctx, tx, s.validator, promptKind, server, o.Prompts, func(p *catalog.Prompt) string { return upstreamOf(p.Upstream) }, at)...)
	left = append(left, replaceFrom(ctx, tx, s.validator, resourceKind, server, o.Resources, func(r *catalog.Resource) string { return sourceOf(r.Upstream) }, at)...)
	left = append(left, replaceFrom(ctx, tx, s.validator, resourceTemplateKind, server, o.Templates, func(t *catalog.ResourceTemplate) string { return sourceOf(t.Upstream) }, at)...)
	for _, p := range left {
		if p.Field == "" && strings.HasPrefix(p.Message, "write failed: ") {
			return nil, errors.New(strings.TrimPrefix(p.Message, "write failed: "))
		}
	}
	return left, nil
}

func upstreamOf(p *catalog.UpstreamPrompt) string {
	if p == nil {
		return ""
	}
	return p.Server
}

func sourceOf(s *catalog.UpstreamSource) string {
	if s == nil {
		return ""
	}
	return s.Server
}

// replaceFrom deletes k's entries whose source is server and stores want
// in their place, leaving out (and listing) an invalid one and one whose
// key an entry of another source has.
func replaceFrom[T any](ctx context.Context, tx *sql.Tx, v Validator, k *kind[T], server string, want []T, source func(*T) string, at string) []catalog.Problem {
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`DELETE FROM %s WHERE json_extract(definition, '$.upstream.server') = ?`, k.table), server); err != nil {
		return []catalog.Problem{{Message: "write failed: " + fmt.Sprintf("clear server %q's %ss: %v", server, k.noun, err)}}
	}
	var left []catalog.Problem
	for i := range want {
		e := &want[i]
		entry := fmt.Sprintf("%s %q", k.noun, k.key(e))
		if ps := k.validate(v, *e); len(ps) > 0 {
			left = append(left, ps...)
			continue
		}
		cur, err := get(ctx, tx, k, k.key(e))
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			return []catalog.Problem{{Message: "write failed: " + err.Error()}}
		case source(&cur) != server:
			left = append(left, catalog.Problem{Entry: entry, Field: k.keyField, Message: k.taken(k.key(e)) + ": the server's is left out"})
			continue
		}
		if err := k.upsert(ctx, tx, e, at); err != nil {
			return []catalog.Problem{{Message: "write failed: " + err.Error()}}
		}
	}
	return left
}
