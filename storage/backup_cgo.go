//go:build cgo

package storage

import (
	"context"
	"database/sql"
	"fmt"
	"os"

	"github.com/mattn/go-sqlite3"
)

// backup copies the database, as one consistent snapshot, to path (mode
// 0600) with SQLite's online backup API, replacing the file atomically.
func (s *Store) backup(ctx context.Context, path string) error {
	tmp := path + ".tmp"
	_ = os.Remove(tmp)
	if err := createFile(tmp); err != nil {
		return err
	}
	defer os.Remove(tmp)
	dst, err := sql.Open("sqlite3", dsn(tmp))
	if err != nil {
		return err
	}
	defer dst.Close()
	dconn, err := dst.Conn(ctx)
	if err != nil {
		return err
	}
	defer dconn.Close()
	sconn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer sconn.Close()
	err = dconn.Raw(func(d any) error {
		return sconn.Raw(func(src any) error {
			bk, err := d.(*sqlite3.SQLiteConn).Backup("main", src.(*sqlite3.SQLiteConn), "main")
			if err != nil {
				return err
			}
			if _, err := bk.Step(-1); err != nil {
				_ = bk.Finish()
				return err
			}
			return bk.Finish()
		})
	})
	if err != nil {
		return fmt.Errorf("copying the database: %w", err)
	}
	// The copy is whole in its own file (not in a -wal beside it) before
	// it takes the backup's name.
	if _, err := dconn.ExecContext(ctx, `PRAGMA journal_mode=DELETE`); err != nil {
		return fmt.Errorf("finishing the copy: %w", err)
	}
	if err := dconn.Close(); err != nil {
		return err
	}
	if err := dst.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
