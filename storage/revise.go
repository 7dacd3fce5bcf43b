package storage

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/mcptray/mcptray/catalog"
)

// Revise changes a few entries on what they are now, in one transaction:
// it reads the stored entries under the keys of want's entries (tool and
// prompt names, resource URIs, URI templates, server names; those not
// stored are left out) and stores in their place the entries revise
// returns from them, each validated as PutTool and the others do, merged
// over the stored catalog as Import merges. Nothing changes when revise
// fails or an entry is invalid. Unlike Catalog and Import, it never reads
// the whole catalog, which may hold thousands of tools.
func (s *Store) Revise(ctx context.Context, want *catalog.Catalog, revise func(stored *catalog.Catalog) (*catalog.Catalog, error)) error {
	kinds := catalogKinds()
	return s.write(ctx, func(tx *sql.Tx) error {
		stored, err := readEntries(ctx, tx, kinds, want)
		if err != nil {
			return err
		}
		out, err := revise(stored)
		if err != nil || out == nil {
			return err
		}
		var ps []catalog.Problem
		for _, k := range kinds {
			ps = append(ps, k.check(s.validator, out)...)
		}
		if len(ps) > 0 {
			return &catalog.ValidationError{Problems: ps}
		}
		return writeCatalog(ctx, tx, kinds, out, false)
	})
}

// readEntries reads the entries of every kind stored under the keys of
// want's entries of that kind.
func readEntries(ctx context.Context, q queryer, kinds []catalogKind, want *catalog.Catalog) (*catalog.Catalog, error) {
	c := &catalog.Catalog{Format: catalog.CatalogFormat, Version: catalog.CatalogVersion}
	for _, k := range kinds {
		query, args := k.selectKeys(want)
		if query == "" {
			continue
		}
		rows, err := q.QueryContext(ctx, query, args...)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", k.tableName(), err)
		}
		err = appendRows(rows, c, k)
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", k.tableName(), err)
		}
	}
	return c, nil
}

// appendRows decodes rows of (key, definition) of kind k onto c.
func appendRows(rows *sql.Rows, c *catalog.Catalog, k catalogKind) error {
	for rows.Next() {
		var (
			key string
			def []byte
		)
		if err := rows.Scan(&key, &def); err != nil {
			return err
		}
		if err := k.appendJSON(c, key, def); err != nil {
			return err
		}
	}
	return rows.Err()
}

// selectKeys is a SELECT of (key, definition) of the entries of this kind
// stored under the keys of c's entries of this kind, by key; "" when c
// has none.
func (k *kind[T]) selectKeys(c *catalog.Catalog) (string, []any) {
	l := *k.list(c)
	if len(l) == 0 {
		return "", nil
	}
	args := make([]any, len(l))
	for i := range l {
		args[i] = k.key(&l[i])
	}
	return fmt.Sprintf(`SELECT %s, definition FROM %s WHERE %s IN (?%s) ORDER BY 1`,
		k.keyCol, k.table, k.keyCol, strings.Repeat(", ?", len(l)-1)), args
}

// check validates each entry of this kind in c on its own.
func (k *kind[T]) check(v Validator, c *catalog.Catalog) []catalog.Problem {
	var ps []catalog.Problem
	for _, e := range *k.list(c) {
		ps = append(ps, k.validate(v, e)...)
	}
	return ps
}
