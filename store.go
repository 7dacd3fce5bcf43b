package main

import (
	"fmt"
	"path/filepath"

	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// defaultDB is the user's database file.
func defaultDB() (string, error) {
	d, err := mcpcore.ConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "mcptray.db"), nil
}

// openStore opens the database named by --db, or the default one.
func openStore(path string) (*storage.Store, string, error) {
	if path == "" {
		var err error
		if path, err = defaultDB(); err != nil {
			return nil, "", err
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", fmt.Errorf("database path: %w", err)
	}
	st, err := storage.Open(abs)
	if err != nil {
		return nil, "", err
	}
	return st, abs, nil
}
