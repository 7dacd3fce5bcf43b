package storage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/atomicfile"
)

// ReadCatalogFile reads the catalog file at path and checks it with v on
// its own, without storing it: a file that does not parse, or breaks a
// rule, is an error listing every problem.
func ReadCatalogFile(path string, v Validator) (*catalog.Catalog, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("importing: %w", err)
	}
	c, err := catalog.Decode(b)
	if err == nil {
		err = v.Catalog(c)
	}
	if err != nil {
		return nil, fmt.Errorf("importing %s: %w", filepath.Base(path), err)
	}
	return c, nil
}

// ImportFile imports the catalog file at path, all or nothing (see Import),
// and returns the file's catalog.
func (s *Store) ImportFile(ctx context.Context, path string, replace bool) (*catalog.Catalog, error) {
	c, err := ReadCatalogFile(path, s.validator)
	if err != nil {
		return nil, err
	}
	if err := s.Import(ctx, c, replace); err != nil {
		return nil, fmt.Errorf("importing %s: %w", filepath.Base(path), err)
	}
	return c, nil
}

// ExportFile writes the stored catalog to path as indented JSON, readable
// by others: it names secrets, never their values. The file is replaced
// atomically: a failed write leaves the old file, never half of the new one.
func (s *Store) ExportFile(ctx context.Context, path string) error {
	c, err := s.Export(ctx)
	if err != nil {
		return fmt.Errorf("exporting the catalog: %w", err)
	}
	b, err := catalog.Marshal(c)
	if err != nil {
		return fmt.Errorf("exporting the catalog: %w", err)
	}
	if err := atomicfile.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("exporting the catalog: %w", err)
	}
	return nil
}
