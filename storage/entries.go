package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcptray/mcptray/mcpcore"
)

// kind describes how one kind of catalog entry is stored: its table, key
// column, and how to reach its key, validation, Disabled flag and list in a
// catalog. One generic implementation serves all four kinds.
type kind[T any] struct {
	noun     string // for messages: "tool", "resource"…
	table    string
	keyCol   string
	key      func(*T) string
	validate func(T) []mcpcore.Problem
	disabled func(*T) *bool
	list     func(*mcpcore.Catalog) *[]T
}

// The four kinds, in catalog order. They are read-only descriptors.
var (
	toolKind = &kind[mcpcore.Tool]{
		noun: "tool", table: "tools", keyCol: "name",
		key:      func(t *mcpcore.Tool) string { return t.Name },
		validate: mcpcore.ValidateTool,
		disabled: func(t *mcpcore.Tool) *bool { return &t.Disabled },
		list:     func(c *mcpcore.Catalog) *[]mcpcore.Tool { return &c.Tools },
	}
	resourceKind = &kind[mcpcore.Resource]{
		noun: "resource", table: "resources", keyCol: "uri",
		key:      func(r *mcpcore.Resource) string { return r.URI },
		validate: mcpcore.ValidateResource,
		disabled: func(r *mcpcore.Resource) *bool { return &r.Disabled },
		list:     func(c *mcpcore.Catalog) *[]mcpcore.Resource { return &c.Resources },
	}
	resourceTemplateKind = &kind[mcpcore.ResourceTemplate]{
		noun: "resource template", table: "resource_templates", keyCol: "uri_template",
		key:      func(t *mcpcore.ResourceTemplate) string { return t.URITemplate },
		validate: mcpcore.ValidateResourceTemplate,
		disabled: func(t *mcpcore.ResourceTemplate) *bool { return &t.Disabled },
		list:     func(c *mcpcore.Catalog) *[]mcpcore.ResourceTemplate { return &c.ResourceTemplates },
	}
	promptKind = &kind[mcpcore.Prompt]{
		noun: "prompt", table: "prompts", keyCol: "name",
		key:      func(p *mcpcore.Prompt) string { return p.Name },
		validate: mcpcore.ValidatePrompt,
		disabled: func(p *mcpcore.Prompt) *bool { return &p.Disabled },
		list:     func(c *mcpcore.Catalog) *[]mcpcore.Prompt { return &c.Prompts },
	}
)

// PutTool stores a tool, replacing the one with the same name. An invalid
// tool is not stored: the error is a *mcpcore.ValidationError.
func (s *Store) PutTool(ctx context.Context, t mcpcore.Tool) error { return put(ctx, s, toolKind, t) }

// Tool returns the named tool, or an error wrapping ErrNotFound.
func (s *Store) Tool(ctx context.Context, name string) (mcpcore.Tool, error) {
	return get(ctx, s.db, toolKind, name)
}

// DeleteTool removes the named tool, or returns an error wrapping ErrNotFound.
func (s *Store) DeleteTool(ctx context.Context, name string) error {
	return remove(ctx, s, toolKind, name)
}

// SetToolDisabled keeps the named tool but stops (or resumes) serving it.
func (s *Store) SetToolDisabled(ctx context.Context, name string, disabled bool) error {
	return setDisabled(ctx, s, toolKind, name, disabled)
}

// ToggleTool flips whether the named tool is served, and returns whether it
// is disabled now.
func (s *Store) ToggleTool(ctx context.Context, name string) (disabled bool, err error) {
	return changeDisabled(ctx, s, toolKind, name, func(was bool) bool { return !was })
}

// PutResource stores a resource, replacing the one with the same URI. An
// invalid resource is not stored: the error is a *mcpcore.ValidationError.
func (s *Store) PutResource(ctx context.Context, r mcpcore.Resource) error {
	return put(ctx, s, resourceKind, r)
}

// Resource returns the resource with the given URI, or an error wrapping
// ErrNotFound.
func (s *Store) Resource(ctx context.Context, uri string) (mcpcore.Resource, error) {
	return get(ctx, s.db, resourceKind, uri)
}

// DeleteResource removes the resource with the given URI, or returns an
// error wrapping ErrNotFound.
func (s *Store) DeleteResource(ctx context.Context, uri string) error {
	return remove(ctx, s, resourceKind, uri)
}

// SetResourceDisabled keeps the resource but stops (or resumes) serving it.
func (s *Store) SetResourceDisabled(ctx context.Context, uri string, disabled bool) error {
	return setDisabled(ctx, s, resourceKind, uri, disabled)
}

// PutResourceTemplate stores a resource template, replacing the one with the
// same URI template. An invalid template is not stored: the error is a
// *mcpcore.ValidationError.
func (s *Store) PutResourceTemplate(ctx context.Context, t mcpcore.ResourceTemplate) error {
	return put(ctx, s, resourceTemplateKind, t)
}

// ResourceTemplate returns the resource template with the given URI
// template, or an error wrapping ErrNotFound.
func (s *Store) ResourceTemplate(ctx context.Context, uriTemplate string) (mcpcore.ResourceTemplate, error) {
	return get(ctx, s.db, resourceTemplateKind, uriTemplate)
}

// DeleteResourceTemplate removes the resource template with the given URI
// template, or returns an error wrapping ErrNotFound.
func (s *Store) DeleteResourceTemplate(ctx context.Context, uriTemplate string) error {
	return remove(ctx, s, resourceTemplateKind, uriTemplate)
}

// SetResourceTemplateDisabled keeps the resource template but stops (or
// resumes) serving it.
func (s *Store) SetResourceTemplateDisabled(ctx context.Context, uriTemplate string, disabled bool) error {
	return setDisabled(ctx, s, resourceTemplateKind, uriTemplate, disabled)
}

// PutPrompt stores a prompt, replacing the one with the same name. An
// invalid prompt is not stored: the error is a *mcpcore.ValidationError.
func (s *Store) PutPrompt(ctx context.Context, p mcpcore.Prompt) error {
	return put(ctx, s, promptKind, p)
}

// Prompt returns the named prompt, or an error wrapping ErrNotFound.
func (s *Store) Prompt(ctx context.Context, name string) (mcpcore.Prompt, error) {
	return get(ctx, s.db, promptKind, name)
}

// DeletePrompt removes the named prompt, or returns an error wrapping
// ErrNotFound.
func (s *Store) DeletePrompt(ctx context.Context, name string) error {
	return remove(ctx, s, promptKind, name)
}

// SetPromptDisabled keeps the named prompt but stops (or resumes) serving it.
func (s *Store) SetPromptDisabled(ctx context.Context, name string, disabled bool) error {
	return setDisabled(ctx, s, promptKind, name, disabled)
}

// TogglePrompt flips whether the named prompt is served, and returns
// whether it is disabled now.
func (s *Store) TogglePrompt(ctx context.Context, name string) (disabled bool, err error) {
	return changeDisabled(ctx, s, promptKind, name, func(was bool) bool { return !was })
}

// put validates v and upserts it.
func put[T any](ctx context.Context, s *Store, k *kind[T], v T) error {
	if ps := k.validate(v); len(ps) > 0 {
		return &mcpcore.ValidationError{Problems: ps}
	}
	return s.write(ctx, func(tx *sql.Tx) error { return k.upsert(ctx, tx, &v, now()) })
}

// get reads one entry by key.
func get[T any](ctx context.Context, q queryer, k *kind[T], key string) (T, error) {
	var v T
	var def []byte
	err := q.QueryRowContext(ctx, fmt.Sprintf(`SELECT definition FROM %s WHERE %s = ?`, k.table, k.keyCol), key).Scan(&def)
	if errors.Is(err, sql.ErrNoRows) {
		return v, fmt.Errorf("%s %q: %w", k.noun, key, ErrNotFound)
	}
	if err != nil {
		return v, fmt.Errorf("read %s %q: %w", k.noun, key, err)
	}
	if err := json.Unmarshal(def, &v); err != nil {
		return v, fmt.Errorf("decode %s %q: %w", k.noun, key, err)
	}
	return v, nil
}

// remove deletes one entry by key.
func remove[T any](ctx context.Context, s *Store, k *kind[T], key string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, fmt.Sprintf(`DELETE FROM %s WHERE %s = ?`, k.table, k.keyCol), key)
		if err != nil {
			return fmt.Errorf("delete %s %q: %w", k.noun, key, err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return fmt.Errorf("delete %s %q: %w", k.noun, key, errors.Join(ErrNotFound, err))
		}
		return nil
	})
}

// setDisabled rewrites one entry with its Disabled flag set as asked.
func setDisabled[T any](ctx context.Context, s *Store, k *kind[T], key string, disabled bool) error {
	_, err := changeDisabled(ctx, s, k, key, func(bool) bool { return disabled })
	return err
}

// changeDisabled rewrites one entry's Disabled flag as to says, given the
// stored one, in one transaction; it returns the flag as stored.
func changeDisabled[T any](ctx context.Context, s *Store, k *kind[T], key string, to func(was bool) bool) (bool, error) {
	var disabled bool
	err := s.write(ctx, func(tx *sql.Tx) error {
		v, err := get(ctx, tx, k, key)
		if err != nil {
			return err
		}
		flag := k.disabled(&v)
		*flag = to(*flag)
		disabled = *flag
		return k.upsert(ctx, tx, &v, now())
	})
	return disabled, err
}

// upsert writes v under its key.
func (k *kind[T]) upsert(ctx context.Context, tx *sql.Tx, v *T, at string) error {
	key := k.key(v)
	def, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s %q: %w", k.noun, key, err)
	}
	q := fmt.Sprintf(`INSERT INTO %[1]s (%[2]s, definition, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (%[2]s) DO UPDATE SET definition = excluded.definition, updated_at = excluded.updated_at`,
		k.table, k.keyCol)
	if _, err := tx.ExecContext(ctx, q, key, string(def), at); err != nil {
		return fmt.Errorf("write %s %q: %w", k.noun, key, err)
	}
	return nil
}

// tableName is the table holding this kind.
func (k *kind[T]) tableName() string { return k.table }

// selectAll is a SELECT of (ordinal, key, definition) over this kind's
// table, for the catalog's UNION ALL query.
func (k *kind[T]) selectAll(ordinal int) string {
	return fmt.Sprintf(`SELECT %d, %s, definition FROM %s`, ordinal, k.keyCol, k.table)
}

// appendJSON decodes one stored definition onto c's list of this kind.
func (k *kind[T]) appendJSON(c *mcpcore.Catalog, key string, def []byte) error {
	var v T
	if err := json.Unmarshal(def, &v); err != nil {
		return fmt.Errorf("decode %s %q: %w", k.noun, key, err)
	}
	l := k.list(c)
	*l = append(*l, v)
	return nil
}

// merge sets dst's list of this kind to old's entries whose key is not in
// in, followed by all of in's (duplicates within in are kept, so validation
// still reports them).
func (k *kind[T]) merge(dst, old, in *mcpcore.Catalog) {
	incoming := *k.list(in)
	seen := make(map[string]bool, len(incoming))
	for i := range incoming {
		seen[k.key(&incoming[i])] = true
	}
	var out []T
	for _, v := range *k.list(old) {
		if !seen[k.key(&v)] {
			out = append(out, v)
		}
	}
	*k.list(dst) = append(out, incoming...)
}

// writeAll upserts every entry of this kind in c.
func (k *kind[T]) writeAll(ctx context.Context, tx *sql.Tx, c *mcpcore.Catalog, at string) error {
	l := *k.list(c)
	for i := range l {
		if err := k.upsert(ctx, tx, &l[i], at); err != nil {
			return err
		}
	}
	return nil
}
