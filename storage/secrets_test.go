package storage

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zalando/go-keyring"
)

// TestMain puts go-keyring's in-memory mock in place of the OS keyring, so
// no test touches the user's keyring. With KEYRING_REAL=1 the tests use the
// real keyring instead (run them in a throwaway session: see
// docs/ARCHITECTURE.md, "Secrets and the keyring"); every test database
// has its own keyring service ("mcptray:" + its path), and tests that need
// a failing keyring are skipped.
func TestMain(m *testing.M) {
	if !realKeyring() {
		keyring.MockInit()
	}
	os.Exit(m.Run())
}

func realKeyring() bool { return os.Getenv("KEYRING_REAL") == "1" }

// setKeyring replaces the mock keyring: by one where every call fails with
// err, or by an empty working one when err is nil. The provider is
// process-global: tests using this must not run in parallel.
func setKeyring(t *testing.T, err error) {
	t.Helper()
	if realKeyring() {
		t.Skip("needs the mock keyring (KEYRING_REAL=1)")
	}
	keyringMu.Lock()
	defer keyringMu.Unlock()
	if err != nil {
		keyring.MockInitWithError(err)
	} else {
		keyring.MockInit()
	}
}

// errNoSecretService is what the failing mock answers, like a Linux
// without a Secret Service.
var errNoSecretService = errors.New(`exec: "dbus-launch": executable file not found in $PATH`)

// withoutKeyring makes every keyring call fail until the test ends.
func withoutKeyring(t *testing.T) {
	t.Helper()
	setKeyring(t, errNoSecretService)
	t.Cleanup(func() { setKeyring(t, nil) })
}

func openSecrets(t *testing.T, s *Store, opts ...SecretsOption) *Secrets {
	t.Helper()
	x, err := s.OpenSecrets(context.Background(), opts...)
	if err != nil {
		t.Fatalf("OpenSecrets: %v", err)
	}
	return x
}

// fileBytes is the content of the database file and its WAL.
func fileBytes(t *testing.T, s *Store) []byte {
	t.Helper()
	var all []byte
	for _, p := range []string{s.Path(), s.Path() + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

func TestRealKeyring(t *testing.T) {
	if !realKeyring() {
		t.Skip("set KEYRING_REAL=1 to test the OS keyring (e.g. under dbus-run-session with gnome-keyring)")
	}
	ctx := context.Background()
	x := openSecrets(t, openTest(t))
	if x.Backend() != BackendKeyring || x.Warning() != "" {
		t.Fatalf("Backend = %q, Warning = %q", x.Backend(), x.Warning())
	}
	if err := x.SetSecret(ctx, "real-test", "v4lue"); err != nil {
		t.Fatal(err)
	}
	if v, err := x.Secret(ctx, "real-test"); err != nil || v != "v4lue" {
		t.Errorf("Secret = %q, %v", v, err)
	}
	k1, err := x.Key(ctx, "real-key", 32)
	if err != nil {
		t.Fatal(err)
	}
	if k2, err := x.Key(ctx, "real-key", 32); err != nil || !bytes.Equal(k1, k2) {
		t.Errorf("Key again = %x, %v", k2, err)
	}
	if err := x.DeleteSecret(ctx, "real-test"); err != nil {
		t.Fatal(err)
	}
	if _, err := keyring.Get(x.Service(), "real-test"); !errors.Is(err, keyring.ErrNotFound) {
		t.Errorf("value still in the keyring: %v", err)
	}
	_ = keyring.DeleteAll(x.Service())
}

func TestSecretsInKeyring(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	x := openSecrets(t, s)
	if x.Backend() != BackendKeyring || x.Warning() != "" {
		t.Fatalf("Backend = %q, Warning = %q", x.Backend(), x.Warning())
	}
	if want := KeyringService + ":" + s.Path(); x.Service() != want {
		t.Errorf("Service = %q, want %q", x.Service(), want)
	}
	const value = "s3cr3t-VALUE-1"
	if err := x.SetSecret(ctx, "api-token", value); err != nil {
		t.Fatal(err)
	}
	if v, err := x.Secret(ctx, "api-token"); err != nil || v != value {
		t.Fatalf("Secret = %q, %v", v, err)
	}
	if v, err := keyring.Get(x.Service(), "api-token"); err != nil || v != value {
		t.Errorf("keyring holds %q, %v", v, err)
	}
	if _, err := os.Stat(x.File()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("fallback file exists with a keyring: %v", err)
	}
	if bytes.Contains(fileBytes(t, s), []byte(value)) {
		t.Error("the secret value is in the database file")
	}

	list, err := x.ListSecrets(ctx)
	if err != nil || len(list) != 1 || list[0].Name != "api-token" || list[0].CreatedAt.IsZero() {
		t.Fatalf("ListSecrets = %+v, %v", list, err)
	}
	created := list[0].CreatedAt
	time.Sleep(5 * time.Millisecond)
	if err := x.SetSecret(ctx, "api-token", "second"); err != nil {
		t.Fatal(err)
	}
	if v, _ := x.Secret(ctx, "api-token"); v != "second" {
		t.Errorf("after replacing, Secret = %q", v)
	}
	list, _ = x.ListSecrets(ctx)
	if len(list) != 1 || !list[0].CreatedAt.Equal(created) || !list[0].UpdatedAt.After(created) {
		t.Errorf("after replacing, ListSecrets = %+v (created %v)", list, created)
	}

	if err := x.SetSecret(ctx, "other", "x"); err != nil {
		t.Fatal(err)
	}
	if err := x.RenameSecret(ctx, "api-token", "other"); !errors.Is(err, ErrExists) {
		t.Errorf("rename onto an existing name: %v", err)
	}
	if err := x.RenameSecret(ctx, "missing", "new"); !errors.Is(err, ErrNotFound) {
		t.Errorf("rename a missing secret: %v", err)
	}
	if err := x.RenameSecret(ctx, "api-token", "github.token"); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Secret(ctx, "api-token"); !errors.Is(err, ErrNotFound) {
		t.Errorf("old name after rename: %v", err)
	}
	if _, err := keyring.Get(x.Service(), "api-token"); !errors.Is(err, keyring.ErrNotFound) {
		t.Errorf("old keyring entry after rename: %v", err)
	}
	if v, err := x.Secret(ctx, "github.token"); err != nil || v != "second" {
		t.Errorf("new name after rename = %q, %v", v, err)
	}
	list, _ = x.ListSecrets(ctx)
	if len(list) != 2 || list[0].Name != "github.token" || list[1].Name != "other" {
		t.Errorf("after rename, ListSecrets = %+v", list)
	}

	if err := x.DeleteSecret(ctx, "github.token"); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Secret(ctx, "github.token"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Secret after delete: %v", err)
	}
	if _, err := keyring.Get(x.Service(), "github.token"); !errors.Is(err, keyring.ErrNotFound) {
		t.Errorf("keyring entry after delete: %v", err)
	}
	if err := x.DeleteSecret(ctx, "github.token"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
}

func TestSecretNamesAndValuesChecked(t *testing.T) {
	ctx := context.Background()
	x := openSecrets(t, openTest(t))
	for _, name := range []string{"", "has space", "key:x", ":probe", strings.Repeat("a", 65)} {
		if err := x.SetSecret(ctx, name, "v"); err == nil {
			t.Errorf("SetSecret(%q) succeeded", name)
		}
		if _, err := x.Secret(ctx, name); err == nil {
			t.Errorf("Secret(%q) succeeded", name)
		}
	}
	if err := x.SetSecret(ctx, "empty", ""); err == nil {
		t.Error("an empty value was accepted")
	}
	if err := x.SetSecret(ctx, "big", strings.Repeat("x", MaxSecretSize+1)); err == nil {
		t.Error("an oversized value was accepted")
	}
	// A value in the keyring whose name the database does not list is not
	// a secret of this database.
	if err := keyring.Set(x.Service(), "unlisted", "v"); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Secret(ctx, "unlisted"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unlisted secret: %v", err)
	}
	// A listed name whose value vanished says so, and how to fix it.
	if err := x.SetSecret(ctx, "vanished", "v"); err != nil {
		t.Fatal(err)
	}
	if err := keyring.Delete(x.Service(), "vanished"); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Secret(ctx, "vanished"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "secret set vanished") {
		t.Errorf("vanished value: %v", err)
	}
}

func TestSecretsFileFallback(t *testing.T) {
	withoutKeyring(t)
	ctx := context.Background()
	dir := t.TempDir()
	s := openAt(t, filepath.Join(dir, "mcptray.db"))
	x := openSecrets(t, s)
	wantFile := filepath.Join(dir, "mcptray.secrets.json")
	if x.Backend() != BackendFile || x.File() != wantFile {
		t.Fatalf("Backend = %q, File = %q", x.Backend(), x.File())
	}
	wantWarning := "no keyring service reachable (" + errNoSecretService.Error() + "); secrets are kept in " +
		wantFile + ", readable only by you"
	if x.Warning() != wantWarning {
		t.Errorf("Warning =\n%s\nwant\n%s", x.Warning(), wantWarning)
	}

	const value = "fallback-VALUE-2"
	if err := x.SetSecret(ctx, "api-token", value); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(wantFile)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", fi.Mode().Perm())
	}
	var m map[string]string
	b, _ := os.ReadFile(wantFile)
	if err := json.Unmarshal(b, &m); err != nil || m["api-token"] != value {
		t.Errorf("file holds %s (%v)", b, err)
	}
	if bytes.Contains(fileBytes(t, s), []byte(value)) {
		t.Error("the secret value is in the database file")
	}
	if v, err := x.Secret(ctx, "api-token"); err != nil || v != value {
		t.Errorf("Secret = %q, %v", v, err)
	}
	key, err := x.Key(ctx, "request-state", 32)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(wantFile)
	_ = json.Unmarshal(b, &m)
	if m["key:request-state"] != base64.StdEncoding.EncodeToString(key) {
		t.Errorf("key not in the file: %s", b)
	}

	// Another process on the same database sees the same values.
	other := openSecrets(t, openAt(t, s.Path()))
	if v, err := other.Secret(ctx, "api-token"); err != nil || v != value {
		t.Errorf("other store: Secret = %q, %v", v, err)
	}
	if k, err := other.Key(ctx, "request-state", 32); err != nil || !bytes.Equal(k, key) {
		t.Errorf("other store: Key = %x, %v", k, err)
	}

	if err := x.RenameSecret(ctx, "api-token", "renamed"); err != nil {
		t.Fatal(err)
	}
	if v, err := other.Secret(ctx, "renamed"); err != nil || v != value {
		t.Errorf("after rename: %q, %v", v, err)
	}
	// A value missing from the file may be in the unreachable keyring.
	if err := x.SetSecret(ctx, "elsewhere", "v"); err != nil {
		t.Fatal(err)
	}
	if err := x.file.del(ctx, "elsewhere"); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Secret(ctx, "elsewhere"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "not reachable") {
		t.Errorf("value missing from the file: %v", err)
	}

	// No temporary file is left behind; a loosened mode is restored.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
	if err := os.Chmod(wantFile, 0o644); err != nil {
		t.Fatal(err)
	}
	openSecrets(t, s)
	if fi, _ := os.Stat(wantFile); fi.Mode().Perm() != 0o600 {
		t.Errorf("after reopening, file mode %v, want 0600", fi.Mode().Perm())
	}

	for _, n := range []string{"renamed", "elsewhere"} {
		if err := x.DeleteSecret(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	b, _ = os.ReadFile(wantFile)
	if bytes.Contains(b, []byte(value)) {
		t.Errorf("deleted value still in the file: %s", b)
	}
}

func TestSecretsFileErrorsDoNotQuoteIt(t *testing.T) {
	withoutKeyring(t)
	ctx := context.Background()
	s := openTest(t)
	x := openSecrets(t, s)
	if err := x.SetSecret(ctx, "tok", "v"); err != nil {
		t.Fatal(err)
	}
	const value = "TOPSECRET-in-a-broken-file"
	if err := os.WriteFile(x.File(), []byte(`{"tok": "`+value), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := x.Secret(ctx, "tok")
	if err == nil || strings.Contains(err.Error(), "TOPSECRET") {
		t.Errorf("Secret on a broken file: %v", err)
	}
	if err := os.WriteFile(x.File(), []byte(`{"tok": 1, "x": "`+value+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	err = x.SetSecret(ctx, "tok", "w")
	if err == nil || strings.Contains(err.Error(), "TOPSECRET") {
		t.Errorf("SetSecret on a broken file: %v", err)
	}
}

func TestSecretsMoveFromFileToKeyring(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)

	setKeyring(t, errNoSecretService)
	t.Cleanup(func() { setKeyring(t, nil) })
	headless := openSecrets(t, s)
	if headless.Backend() != BackendFile {
		t.Fatalf("Backend = %q", headless.Backend())
	}
	if err := headless.SetSecret(ctx, "api-token", "moved-value"); err != nil {
		t.Fatal(err)
	}
	key, err := headless.Key(ctx, "request-state", 32)
	if err != nil {
		t.Fatal(err)
	}

	setKeyring(t, nil)
	x := openSecrets(t, s)
	if x.Backend() != BackendKeyring || x.Warning() != "" {
		t.Fatalf("Backend = %q, Warning = %q", x.Backend(), x.Warning())
	}
	if _, err := os.Stat(x.File()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the file is still there: %v", err)
	}
	if v, err := keyring.Get(x.Service(), "api-token"); err != nil || v != "moved-value" {
		t.Errorf("keyring holds %q, %v", v, err)
	}
	if v, err := x.Secret(ctx, "api-token"); err != nil || v != "moved-value" {
		t.Errorf("Secret = %q, %v", v, err)
	}
	if k, err := x.Key(ctx, "request-state", 32); err != nil || !bytes.Equal(k, key) {
		t.Errorf("Key = %x, %v; want %x", k, err, key)
	}

	// A value still in the file (written by a headless process after the
	// move) is found there until it moves.
	if err := x.file.set(ctx, "late", "late-value"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`INSERT INTO secrets (name, created_at, updated_at) VALUES ('late', ?, ?)`, now(), now()); err != nil {
		t.Fatal(err)
	}
	if v, err := x.Secret(ctx, "late"); err != nil || v != "late-value" {
		t.Errorf("Secret from the file = %q, %v", v, err)
	}
	// Replacing it with a keyring writes the keyring and drops the copy.
	if err := x.SetSecret(ctx, "late", "newer"); err != nil {
		t.Fatal(err)
	}
	if _, err := x.file.get(ctx, "late"); !errors.Is(err, ErrNotFound) {
		t.Errorf("stale copy in the file: %v", err)
	}
}

func TestSecretsProbeTimeout(t *testing.T) {
	if realKeyring() {
		t.Skip("needs the mock keyring")
	}
	// A keyring that never answers (held lock) counts as unreachable.
	keyringMu.Lock()
	x, err := openTest(t).OpenSecrets(context.Background(), WithProbeTimeout(50*time.Millisecond))
	keyringMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if x.Backend() != BackendFile || !strings.Contains(x.Warning(), "did not answer within 50ms") {
		t.Errorf("Backend = %q, Warning = %q", x.Backend(), x.Warning())
	}
}

func TestKeyringServiceOfDefaultDatabase(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("HOME", cfg) // macOS
	dir, err := os.UserConfigDir()
	if err != nil {
		t.Skip(err)
	}
	s := openAt(t, filepath.Join(dir, "mcptray", "mcptray.db"))
	x := openSecrets(t, s)
	if x.Service() != KeyringService {
		t.Errorf("Service = %q, want %q", x.Service(), KeyringService)
	}
	if want := filepath.Join(dir, "mcptray", "mcptray.secrets.json"); x.File() != want {
		t.Errorf("File = %q, want %q", x.File(), want)
	}
	y := openSecrets(t, s, WithKeyringService("custom"), WithSecretsFile(filepath.Join(cfg, "s.json")))
	if y.Service() != "custom" || y.File() != filepath.Join(cfg, "s.json") {
		t.Errorf("with options: %q, %q", y.Service(), y.File())
	}
}

func TestKeyMovesFromServerKeys(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	old := bytes.Repeat([]byte{7}, 32)
	if _, err := s.db.Exec(`INSERT INTO server_keys (name, value) VALUES ('request-state', ?)`, old); err != nil {
		t.Fatal(err)
	}
	x := openSecrets(t, s)
	k, err := x.Key(ctx, "request-state", 32)
	if err != nil || !bytes.Equal(k, old) {
		t.Fatalf("Key = %x, %v; want the stored %x", k, err, old)
	}
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM server_keys`).Scan(&n); err != nil || n != 0 {
		t.Errorf("server_keys rows left: %d, %v", n, err)
	}
	if v, err := keyring.Get(x.Service(), "key:request-state"); err != nil || v != base64.StdEncoding.EncodeToString(old) {
		t.Errorf("keyring holds %q, %v", v, err)
	}
	if k, err := storeKey(ctx, s, "request-state", 32); err != nil || !bytes.Equal(k, old) {
		t.Errorf("Store.Key = %x, %v", k, err)
	}
}

func TestKeyRaceWithoutKeyring(t *testing.T) {
	withoutKeyring(t)
	checkKeyRace(t)
}

// The manager window's process opens the backend the server found: the
// file, with the server's reason, even when the keyring answers now (no
// probe, and nothing moved behind the server's back); the keyring without
// a probe when the server uses it.
func TestSecretsKnownBackendIsTakenAsItIs(t *testing.T) {
	withoutKeyring(t)
	ctx := context.Background()
	s := openAt(t, filepath.Join(t.TempDir(), "mcptray.db"))
	served := openSecrets(t, s)
	if err := served.SetSecret(ctx, "api-token", "in-the-file"); err != nil {
		t.Fatal(err)
	}
	setKeyring(t, nil) // the keyring answers from now on
	x, err := s.OpenSecrets(ctx, WithKnownBackend(BackendFile, "the server's reason"))
	if err != nil {
		t.Fatal(err)
	}
	if x.Backend() != BackendFile || !strings.Contains(x.Warning(), "the server's reason") {
		t.Fatalf("Backend = %q, Warning = %q; want the file, for the server's reason", x.Backend(), x.Warning())
	}
	if v, err := x.Secret(ctx, "api-token"); err != nil || v != "in-the-file" {
		t.Fatalf("Secret = %q, %v; the file's value was moved or lost", v, err)
	}
	k, err := s.OpenSecrets(ctx, WithKnownBackend(BackendKeyring, ""))
	if err != nil || k.Backend() != BackendKeyring || k.Warning() != "" {
		t.Fatalf("keyring: Backend = %q, Warning = %q, %v", k.Backend(), k.Warning(), err)
	}
	if b, _ := os.ReadFile(served.File()); !bytes.Contains(b, []byte("in-the-file")) {
		t.Fatalf("the file's secret moved on opening the known keyring: the file holds %s", b)
	}
}
