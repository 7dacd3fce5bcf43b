//go:build !cgo

package storage

import (
	"context"
	"errors"
)

// backup needs SQLite's backup API, which only the cgo build of the driver
// has (without cgo the driver opens no database at all).
func (s *Store) backup(context.Context, string) error {
	return errors.New("backing up the database needs mcptray built with cgo")
}
