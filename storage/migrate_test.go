package storage

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/mcpcore"
)

// asVersion4 turns a current database back into one of schema version 4,
// as an mcptray before process groups (and activity capabilities) left it.
func asVersion4(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite3", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{`DROP TABLE upstream_changes`, `DROP TABLE upstreams`, `DROP TRIGGER tasks_end_is_final`, `DROP TABLE process_groups`,
		`ALTER TABLE activity DROP COLUMN capabilities`, `DELETE FROM schema_migrations WHERE version >= 5`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// TestMigrationBacksUpFirst: before a migration changes an existing
// database, the database as it was is copied beside it, whole and private.
func TestMigrationBacksUpFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	s := openAt(t, path)
	if err := s.PutTool(ctx, greetTool("greet", "says hello")); err != nil {
		t.Fatal(err)
	}
	s.Close()
	asVersion4(t, path)

	s = openAt(t, path)
	if v, err := schemaVersion(ctx, s.db); err != nil || v < 5 {
		t.Fatalf("not migrated: version %d, %v", v, err)
	}
	bak := BackupPath(path, 5)
	st, err := os.Stat(bak)
	if err != nil {
		t.Fatalf("no backup before the migration: %v", err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("backup mode %v, want 0600", st.Mode().Perm())
	}
	for _, leftover := range []string{bak + "-wal", bak + ".tmp"} {
		if _, err := os.Stat(leftover); err == nil {
			t.Errorf("%s left beside the backup", leftover)
		}
	}
	old, err := sql.Open("sqlite3", "file:"+bak+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	var v int
	var name, check string
	if err := old.QueryRow(`SELECT MAX(version) FROM schema_migrations`).Scan(&v); err != nil || v != 4 {
		t.Errorf("backup at schema version %d (%v), want 4", v, err)
	}
	if err := old.QueryRow(`SELECT name FROM tools`).Scan(&name); err != nil || name != "greet" {
		t.Errorf("backup's tool: %q, %v", name, err)
	}
	if err := old.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("backup integrity: %q, %v", check, err)
	}
	// An up-to-date database is not copied again.
	s.Close()
	os.Remove(bak)
	openAt(t, path).Close()
	if _, err := os.Stat(bak); err == nil {
		t.Error("a database already up to date was backed up")
	}
}

// TestNewerDatabaseRefusedUntouched: a database written by a newer mcptray
// is refused with a message that says so and what to do, and not a byte of
// it changes.
func TestNewerDatabaseRefusedUntouched(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "future.db")
	s := openAt(t, path)
	if _, err := s.db.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, '0999_future.sql', '2030-01-01T00:00:00.000Z')`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	before := sum(t, path)
	_, err := Open(path, mcpcore.Validator{})
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("Open = %v, want ErrSchemaTooNew", err)
	}
	for _, want := range []string{path, "newer mcptray", "schema version 999", "left untouched"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not say %q", err, want)
		}
	}
	if sum(t, path) != before {
		t.Error("the newer database changed")
	}
	if m, _ := filepath.Glob(path + ".before-*"); len(m) > 0 {
		t.Errorf("a backup was made of a database that is not migrated: %v", m)
	}
}

func sum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// TestReadOnlyDatabaseSaysSo: a database on a read-only mount (or in a
// folder that cannot be written) fails with a message that says that, not
// SQLite's "no such file or directory".
func TestReadOnlyDatabaseSaysSo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	openAt(t, filepath.Join(src, "r.db")).Close()
	ro := readOnly(t, src)
	_, err := Open(filepath.Join(ro, "r.db"), mcpcore.Validator{})
	if err == nil {
		t.Fatal("opened a database it cannot write")
	}
	if strings.Contains(err.Error(), "no such file") && !strings.Contains(err.Error(), "cannot") ||
		!strings.Contains(err.Error(), "cannot write the database") && !strings.Contains(err.Error(), "cannot create files in the database's folder") {
		t.Errorf("the error does not say the database cannot be written: %v", err)
	}
	t.Log(err)
}

// readOnly makes dir's content reachable read-only and returns where:
// through a read-only bind mount when running as root (who may write any
// file), else by taking the write permission away.
func readOnly(t *testing.T, dir string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
		if err := os.Chmod(filepath.Join(dir, "r.db"), 0o400); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	mnt := filepath.Join(filepath.Dir(dir), "ro")
	if err := os.Mkdir(mnt, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "--bind", "-o", "ro", dir, mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot make a read-only mount here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", mnt).Run() })
	// Older mount(8) ignores ro on a first bind: remount.
	if out, err := exec.Command("mount", "-o", "remount,bind,ro", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot make a read-only mount here: %v %s", err, out)
	}
	return mnt
}
