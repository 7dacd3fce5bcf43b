package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcptray/mcptray/catalog"
)

// kind describes how one kind of catalog entry is stored: its table, key
// column, and how to reach its key, validation, Disabled flag and list in a
// catalog. One generic implementation serves all four kinds.
type kind[T any] struct {
	noun   string // for messages: "tool", "resource"…
	table  string
	keyCol string
	// keyField is the problem field of the key, e.g. "uri".
	keyField string
	// taken words the refusal of a key another entry has already.
	taken    func(key string) string
	key      func(*T) string
	validate func(Validator, T) []catalog.Problem
	disabled func(*T) *bool
	list     func(*catalog.Catalog) *[]T
}

// The four kinds, in catalog order. They are read-only descriptors.
var (
	toolKind = &kind[catalog.Tool]{
		noun: "tool", table: "tools", keyCol: "name", keyField: "name",
		taken:    func(name string) string { return fmt.Sprintf("a tool named %q exists already", name) },
		key:      func(t *catalog.Tool) string { return t.Name },
		validate: Validator.Tool,
		disabled: func(t *catalog.Tool) *bool { return &t.Disabled },
		list:     func(c *catalog.Catalog) *[]catalog.Tool { return &c.Tools },
	}
	resourceKind = &kind[catalog.Resource]{
		noun: "resource", table: "resources", keyCol: "uri", keyField: "uri",
		taken:    func(string) string { return "a resource with this URI exists already" },
		key:      func(r *catalog.Resource) string { return r.URI },
		validate: Validator.Resource,
		disabled: func(r *catalog.Resource) *bool { return &r.Disabled },
		list:     func(c *catalog.Catalog) *[]catalog.Resource { return &c.Resources },
	}
	resourceTemplateKind = &kind[catalog.ResourceTemplate]{
		noun: "resource template", table: "resource_templates", keyCol: "uri_template", keyField: "uriTemplate",
		taken:    func(string) string { return "a resource template with this URI template exists already" },
		key:      func(t *catalog.ResourceTemplate) string { return t.URITemplate },
		validate: Validator.ResourceTemplate,
		disabled: func(t *catalog.ResourceTemplate) *bool { return &t.Disabled },
		list:     func(c *catalog.Catalog) *[]catalog.ResourceTemplate { return &c.ResourceTemplates },
	}
	promptKind = &kind[catalog.Prompt]{
		noun: "prompt", table: "prompts", keyCol: "name", keyField: "name",
		taken:    func(name string) string { return fmt.Sprintf("a prompt named %q exists already", name) },
		key:      func(p *catalog.Prompt) string { return p.Name },
		validate: Validator.Prompt,
		disabled: func(p *catalog.Prompt) *bool { return &p.Disabled },
		list:     func(c *catalog.Catalog) *[]catalog.Prompt { return &c.Prompts },
	}
)

// PutTool stores a tool, replacing the one with the same name. An invalid
// tool is not stored: the error is a *catalog.ValidationError.
func (s *Store) PutTool(ctx context.Context, t catalog.Tool) error { return put(ctx, s, toolKind, t) }

// Tool returns the named tool, or an error wrapping ErrNotFound.
func (s *Store) Tool(ctx context.Context, name string) (catalog.Tool, error) {
	return get(ctx, s.db, toolKind, name)
}

// ToolAccess says which restricted client tokens see a tool, by token
// name: true puts the tool in the token's allowlist, false takes it out.
// A restricted token it does not name keeps seeing the tool or not (under
// its new name when it is renamed); a token without an allowlist sees
// every tool whatever it says.
type ToolAccess map[string]bool

// SaveTool stores t in place of the tool stored as oldName ("" for a new
// tool), in one transaction: an invalid tool, or a name another tool has
// already, is refused with a *catalog.ValidationError (the latter with its
// problem on the "name" field); the stored tool's Disabled flag is kept;
// on a rename the tool under oldName goes; and every restricted token's
// allowlist follows, oldName becoming t's name and access applied. It
// returns the tool as stored.
func (s *Store) SaveTool(ctx context.Context, oldName string, t catalog.Tool, access ToolAccess) (catalog.Tool, error) {
	return save(ctx, s, toolKind, oldName, t, func(tx *sql.Tx) error {
		return editAllowlists(ctx, tx, func(token string, tools []string) []string {
			want, named := access[token]
			if !named {
				want = slices.Contains(tools, t.Name) || (oldName != "" && slices.Contains(tools, oldName))
			}
			tools = slices.DeleteFunc(tools, func(x string) bool { return x == t.Name || x == oldName })
			if want {
				tools = append(tools, t.Name)
			}
			return tools
		})
	})
}

// DeleteTool removes the named tool, and drops it from every token's
// allowlist in the same transaction (a tool made later under that name is
// another tool), or returns an error wrapping ErrNotFound.
func (s *Store) DeleteTool(ctx context.Context, name string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if err := toolKind.delete(ctx, tx, name); err != nil {
			return err
		}
		return editAllowlists(ctx, tx, func(_ string, tools []string) []string {
			return slices.DeleteFunc(tools, func(x string) bool { return x == name })
		})
	})
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
// invalid resource is not stored: the error is a *catalog.ValidationError.
func (s *Store) PutResource(ctx context.Context, r catalog.Resource) error {
	return put(ctx, s, resourceKind, r)
}

// Resource returns the resource with the given URI, or an error wrapping
// ErrNotFound.
func (s *Store) Resource(ctx context.Context, uri string) (catalog.Resource, error) {
	return get(ctx, s.db, resourceKind, uri)
}

// SaveResource stores r in place of the resource stored at oldURI ("" for
// a new resource), in one transaction: an invalid resource, or a URI
// another resource has already, is refused with a
// *catalog.ValidationError (the latter with its problem on the "uri"
// field); the stored resource's Disabled flag is kept; on a URI change the
// resource at oldURI goes. It returns the resource as stored.
func (s *Store) SaveResource(ctx context.Context, oldURI string, r catalog.Resource) (catalog.Resource, error) {
	return save(ctx, s, resourceKind, oldURI, r, nil)
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
// *catalog.ValidationError.
func (s *Store) PutResourceTemplate(ctx context.Context, t catalog.ResourceTemplate) error {
	return put(ctx, s, resourceTemplateKind, t)
}

// ResourceTemplate returns the resource template with the given URI
// template, or an error wrapping ErrNotFound.
func (s *Store) ResourceTemplate(ctx context.Context, uriTemplate string) (catalog.ResourceTemplate, error) {
	return get(ctx, s.db, resourceTemplateKind, uriTemplate)
}

// SaveResourceTemplate stores t in place of the resource template stored
// as oldURITemplate ("" for a new one), as SaveResource does; a taken URI
// template is a problem on the "uriTemplate" field. It returns the
// template as stored.
func (s *Store) SaveResourceTemplate(ctx context.Context, oldURITemplate string, t catalog.ResourceTemplate) (catalog.ResourceTemplate, error) {
	return save(ctx, s, resourceTemplateKind, oldURITemplate, t, nil)
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
// invalid prompt is not stored: the error is a *catalog.ValidationError.
func (s *Store) PutPrompt(ctx context.Context, p catalog.Prompt) error {
	return put(ctx, s, promptKind, p)
}

// Prompt returns the named prompt, or an error wrapping ErrNotFound.
func (s *Store) Prompt(ctx context.Context, name string) (catalog.Prompt, error) {
	return get(ctx, s.db, promptKind, name)
}

// SavePrompt stores p in place of the prompt stored as oldName ("" for a
// new prompt), as SaveResource does; a taken name is a problem on the
// "name" field. It returns the prompt as stored.
func (s *Store) SavePrompt(ctx context.Context, oldName string, p catalog.Prompt) (catalog.Prompt, error) {
	return save(ctx, s, promptKind, oldName, p, nil)
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
	if ps := k.validate(s.validator, v); len(ps) > 0 {
		return &catalog.ValidationError{Problems: ps}
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

// save validates v and stores it in place of the entry stored under oldKey
// ("" for a new entry), all in one transaction with also (nil for
// nothing more): it refuses a key another entry has already, keeps the
// stored Disabled flag — the list's enable toggle may have changed it
// since an editor read the entry — and on a key change deletes the entry
// under oldKey. It returns v as stored.
func save[T any](ctx context.Context, s *Store, k *kind[T], oldKey string, v T, also func(tx *sql.Tx) error) (T, error) {
	if ps := k.validate(s.validator, v); len(ps) > 0 {
		return v, &catalog.ValidationError{Problems: ps}
	}
	key := k.key(&v)
	err := s.write(ctx, func(tx *sql.Tx) error {
		if key != oldKey {
			taken, err := k.has(ctx, tx, key)
			if err != nil {
				return err
			}
			if taken {
				return &catalog.ValidationError{Problems: []catalog.Problem{
					{Entry: fmt.Sprintf("%s %q", k.noun, key), Field: k.keyField, Message: k.taken(key)}}}
			}
		}
		if oldKey != "" {
			switch cur, err := get(ctx, tx, k, oldKey); {
			case err == nil:
				*k.disabled(&v) = *k.disabled(&cur)
			case !errors.Is(err, ErrNotFound):
				return err
			}
		}
		if err := k.upsert(ctx, tx, &v, now()); err != nil {
			return err
		}
		if oldKey != "" && oldKey != key {
			if err := k.delete(ctx, tx, oldKey); err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
		}
		if also != nil {
			return also(tx)
		}
		return nil
	})
	if ve := (*catalog.ValidationError)(nil); err != nil && !errors.As(err, &ve) {
		err = fmt.Errorf("save %s %q: %w", k.noun, key, err)
	}
	return v, err
}

// remove deletes one entry by key.
func remove[T any](ctx context.Context, s *Store, k *kind[T], key string) error {
	return s.write(ctx, func(tx *sql.Tx) error { return k.delete(ctx, tx, key) })
}

// has says whether an entry is stored under key.
func (k *kind[T]) has(ctx context.Context, q queryer, key string) (bool, error) {
	var found bool
	err := q.QueryRowContext(ctx, fmt.Sprintf(`SELECT EXISTS (SELECT 1 FROM %s WHERE %s = ?)`, k.table, k.keyCol), key).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("look for %s %q: %w", k.noun, key, err)
	}
	return found, nil
}

// delete deletes the entry under key, or fails wrapping ErrNotFound.
func (k *kind[T]) delete(ctx context.Context, tx *sql.Tx, key string) error {
	res, err := tx.ExecContext(ctx, fmt.Sprintf(`DELETE FROM %s WHERE %s = ?`, k.table, k.keyCol), key)
	if err != nil {
		return fmt.Errorf("delete %s %q: %w", k.noun, key, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return fmt.Errorf("delete %s %q: %w", k.noun, key, errors.Join(ErrNotFound, err))
	}
	return nil
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
	return k.upsertWith(ctx, func(args ...any) (sql.Result, error) {
		return tx.ExecContext(ctx, k.upsertSQL(), args...)
	}, v, at)
}

// upsertSQL inserts or replaces one entry: (key, definition, updated_at).
func (k *kind[T]) upsertSQL() string {
	return fmt.Sprintf(`INSERT INTO %[1]s (%[2]s, definition, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (%[2]s) DO UPDATE SET definition = excluded.definition, updated_at = excluded.updated_at`,
		k.table, k.keyCol)
}

// upsertWith encodes v and runs upsertSQL through exec: a plain Exec for
// one entry, a statement prepared once for a whole import.
func (k *kind[T]) upsertWith(ctx context.Context, exec func(args ...any) (sql.Result, error), v *T, at string) error {
	key := k.key(v)
	def, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s %q: %w", k.noun, key, err)
	}
	if _, err := exec(key, string(def), at); err != nil {
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
func (k *kind[T]) appendJSON(c *catalog.Catalog, key string, def []byte) error {
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
func (k *kind[T]) merge(dst, old, in *catalog.Catalog) {
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
func (k *kind[T]) writeAll(ctx context.Context, tx *sql.Tx, c *catalog.Catalog, at string) error {
	l := *k.list(c)
	if len(l) == 0 {
		return nil
	}
	// One statement for all: preparing it per entry was a third of a
	// 10,000-tool import.
	stmt, err := tx.PrepareContext(ctx, k.upsertSQL())
	if err != nil {
		return fmt.Errorf("write %s: %w", k.table, err)
	}
	defer stmt.Close()
	exec := func(args ...any) (sql.Result, error) { return stmt.ExecContext(ctx, args...) }
	for i := range l {
		if err := k.upsertWith(ctx, exec, &l[i], at); err != nil {
			return err
		}
	}
	return nil
}
