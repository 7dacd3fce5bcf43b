package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/mcptray/mcptray/catalog"
)

// AddTools adds to the catalog, in one transaction, the tools produce
// hands to add: each is checked (Validator.ToolChecks) and written on
// another goroutine while the next ones are made, so that a big import
// (an OpenAPI spec's thousands of operations) takes the work of two cores
// and holds no tool once it is written. A tool of a name the catalog has
// replaces it; every other entry stays as it is. All or nothing: when a
// tool is refused or produce returns an error, nothing is changed. The
// problems are returned as one *catalog.ValidationError: those of
// produce's error when it is one, then the tools'.
func (s *Store) AddTools(ctx context.Context, produce func(add func(catalog.Tool)) error) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, toolKind.upsertSQL())
		if err != nil {
			return fmt.Errorf("add tools: %w", err)
		}
		defer stmt.Close()
		exec := func(args ...any) (sql.Result, error) { return stmt.ExecContext(ctx, args...) }
		check, at := s.validator.ToolChecks(), now()
		// Room for a producer's batch or two (the OpenAPI importer hands
		// over 256 at a time): with less, the producer waited for each
		// batch to be written before converting the next, and one core
		// idled (0.65 s of a 10,000-operation import).
		tools := make(chan catalog.Tool, 512)
		type outcome struct {
			problems []catalog.Problem
			err      error
		}
		done := make(chan outcome, 1)
		go func() {
			var o outcome
			for t := range tools {
				o.problems = append(o.problems, check(t)...)
				// Once one is refused nothing will be kept: the rest
				// are only checked.
				if o.err == nil && len(o.problems) == 0 {
					o.err = toolKind.upsertWith(ctx, exec, &t, at)
				}
			}
			done <- o
		}()
		perr := func() error {
			defer close(tools)
			return produce(func(t catalog.Tool) { tools <- t })
		}()
		o := <-done
		var ps []catalog.Problem
		if ve := (*catalog.ValidationError)(nil); errors.As(perr, &ve) {
			ps = ve.Problems
		} else if perr != nil {
			return perr
		}
		if err := catalog.AsError(slices.Concat(ps, o.problems)); err != nil {
			return err
		}
		if o.err != nil {
			return fmt.Errorf("add tools: %w", o.err)
		}
		return nil
	})
}
