package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/mcptray/mcptray/catalog"
)

// catalogKind is what the whole-catalog operations need from each kind,
// whatever its Go type.
type catalogKind interface {
	tableName() string
	selectAll(ordinal int) string
	appendJSON(c *catalog.Catalog, key string, def []byte) error
	merge(dst, old, in *catalog.Catalog)
	writeAll(ctx context.Context, tx *sql.Tx, c *catalog.Catalog, at string) error
	selectKeys(c *catalog.Catalog) (string, []any)
	check(v Validator, c *catalog.Catalog) []catalog.Problem
}

// catalogKinds lists every kind in catalog order.
func catalogKinds() []catalogKind {
	return []catalogKind{toolKind, resourceKind, resourceTemplateKind, promptKind, upstreamKind}
}

// Catalog returns the stored catalog, each list sorted by key (tool and
// prompt name, resource URI, URI template). It reads all four tables in one
// statement, so it sees a single committed state.
func (s *Store) Catalog(ctx context.Context) (*catalog.Catalog, error) {
	return readCatalog(ctx, s.db)
}

// Export returns the stored catalog in its import/export form; it holds no
// secrets (those live in the keyring).
func (s *Store) Export(ctx context.Context) (*catalog.Catalog, error) {
	c, err := readCatalog(ctx, s.db)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return c, nil
}

// Import stores catalog c in one transaction. With replace, the result is c
// alone; otherwise c's entries are merged over the stored ones, an entry
// with the same key replacing the stored one. The result is validated as a
// whole first: on any problem Import returns a *catalog.ValidationError
// listing them all and changes nothing.
func (s *Store) Import(ctx context.Context, c *catalog.Catalog, replace bool) error {
	if c == nil {
		return errors.New("import: no catalog")
	}
	kinds := catalogKinds()
	return s.write(ctx, func(tx *sql.Tx) error {
		// c's own format and version, when set, are checked with the rest.
		result := &catalog.Catalog{Format: c.Format, Version: c.Version}
		old := &catalog.Catalog{}
		if !replace {
			var err error
			if old, err = readCatalog(ctx, tx); err != nil {
				return fmt.Errorf("import: %w", err)
			}
		}
		for _, k := range kinds {
			k.merge(result, old, c)
		}
		// Validation runs beside the writes, on the other core, as for a big
		// catalog each takes about half of the import; the transaction
		// commits only once it passed, and its problems win over any write
		// error, so a bad catalog still changes nothing and is reported as
		// such. Both only read c.
		invalid := make(chan error, 1)
		go func() { invalid <- s.validator.Catalog(result) }()
		werr := writeCatalog(ctx, tx, kinds, c, replace)
		if err := <-invalid; err != nil {
			return err
		}
		return werr
	})
}

// writeCatalog writes c's entries, first clearing each kind's table with
// replace.
func writeCatalog(ctx context.Context, tx *sql.Tx, kinds []catalogKind, c *catalog.Catalog, replace bool) error {
	at := now()
	for _, k := range kinds {
		if replace {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+k.tableName()); err != nil {
				return fmt.Errorf("import: clear %s: %w", k.tableName(), err)
			}
		}
		if err := k.writeAll(ctx, tx, c, at); err != nil {
			return fmt.Errorf("import: %w", err)
		}
	}
	return nil
}

// readCatalog reads every entry with a single UNION ALL query.
func readCatalog(ctx context.Context, q queryer) (*catalog.Catalog, error) {
	kinds := catalogKinds()
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = k.selectAll(i)
	}
	rows, err := q.QueryContext(ctx, strings.Join(parts, " UNION ALL ")+" ORDER BY 1, 2")
	if err != nil {
		return nil, fmt.Errorf("read catalog: %w", err)
	}
	defer rows.Close()
	c := &catalog.Catalog{Format: catalog.CatalogFormat, Version: catalog.CatalogVersion}
	for rows.Next() {
		var (
			i   int
			key string
			def []byte
		)
		if err := rows.Scan(&i, &key, &def); err != nil {
			return nil, fmt.Errorf("read catalog: %w", err)
		}
		if i < 0 || i >= len(kinds) {
			return nil, fmt.Errorf("read catalog: unexpected kind %d", i)
		}
		if err := kinds[i].appendJSON(c, key, def); err != nil {
			return nil, fmt.Errorf("read catalog: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read catalog: %w", err)
	}
	return c, nil
}
