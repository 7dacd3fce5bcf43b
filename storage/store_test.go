package storage

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/mcpcore"
)

func TestOpenCreatesPrivateDirAndFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config", "mcptray", "mcptray.db")
	s := openAt(t, path)
	if err := s.PutTool(context.Background(), greetTool("greet", "Greets.")); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "windows" {
		t.Skip("POSIX modes")
	}
	for p, want := range map[string]os.FileMode{
		filepath.Dir(path): 0o700 | os.ModeDir,
		path:               0o600,
		path + "-wal":      0o600,
	} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode(), want)
		}
	}
}

func TestPragmas(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	for pragma, want := range map[string]string{
		"journal_mode": "wal",
		"busy_timeout": "5000",
		"foreign_keys": "1",
	} {
		var got string
		if err := s.db.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("PRAGMA %s = %q, want %q", pragma, got, want)
		}
	}
}

func TestMigrationsIdempotent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "m.db")
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		s, err := Open(path, mcpcore.Validator{})
		if err != nil {
			t.Fatalf("open #%d: %v", i+1, err)
		}
		var n, max int
		if err := s.db.QueryRow(`SELECT count(*), max(version) FROM schema_migrations`).Scan(&n, &max); err != nil {
			t.Fatal(err)
		}
		if n != len(ms) || max != len(ms) {
			t.Errorf("open #%d: %d migrations recorded, latest %d; want %d", i+1, n, max, len(ms))
		}
		if i == 0 {
			if err := s.PutTool(context.Background(), greetTool("greet", "Greets.")); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Tool(context.Background(), "greet"); err != nil {
			t.Errorf("open #%d: data lost: %v", i+1, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSchemaTooNew(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "new.db")
	s, err := Open(path, mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, '0999_future.sql', '2030-01-01T00:00:00.000Z')`); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(path, mcpcore.Validator{})
	if err == nil {
		s.Close()
		t.Fatal("Open succeeded on a database from the future")
	}
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Errorf("error %v does not wrap ErrSchemaTooNew", err)
	}
}

func TestCloseTwice(t *testing.T) {
	t.Parallel()
	s, err := Open(filepath.Join(t.TempDir(), "c.db"), mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := s.Catalog(context.Background()); err == nil {
		t.Error("Catalog after Close succeeded")
	}
}

func TestOpenPathWithURICharacters(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "we?ird #dir %41 & x=y")
	path := filepath.Join(dir, "my db?.sqlite")
	s := openAt(t, path)
	if err := s.PutTool(context.Background(), greetTool("greet", "Greets.")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database not at the given path: %v", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "my db?.sqlite") {
			t.Errorf("stray file %q", e.Name())
		}
	}
}
