package paths

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestLayout(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("XDG_CONFIG_HOME decides the config dir on Linux only")
	}
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	dir := filepath.Join(cfg, "mcptray")
	for _, c := range []struct {
		name string
		get  func() (string, error)
		want string
	}{
		{"Dir", Dir, dir},
		{"DefaultDB", DefaultDB, filepath.Join(dir, "mcptray.db")},
		{"EndpointFile", EndpointFile, filepath.Join(dir, "endpoint.json")},
		{"ShimTokenFile", ShimTokenFile, filepath.Join(dir, "shim-token")},
	} {
		if got, err := c.get(); err != nil || got != c.want {
			t.Errorf("%s() = %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	if !IsDefaultDB(filepath.Join(dir, "mcptray.db")) || IsDefaultDB(filepath.Join(cfg, "mcptray.db")) {
		t.Error("IsDefaultDB mistakes which database is the default")
	}
	if got := SecretsFile("/data/work.db"); got != filepath.FromSlash("/data/work.secrets.json") {
		t.Errorf("SecretsFile = %q", got)
	}
}

// TestDirWithoutXDG: clients that start the shim with a trimmed
// environment (no XDG_CONFIG_HOME) still find the usual folder.
func TestDirWithoutXDG(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux layout")
	}
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", home)
	if got, err := Dir(); err != nil || got != filepath.Join(home, ".config", "mcptray") {
		t.Fatalf("Dir() = %q, %v", got, err)
	}
	t.Setenv("HOME", "")
	if _, err := Dir(); err == nil {
		t.Fatal("Dir() without HOME found a folder")
	}
}

func TestEndpointRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "endpoint.json")
	want := Endpoint{URL: "http://127.0.0.1:8731/mcp", PID: 42, Version: "v", DB: "/x.db", App: true, Control: "c"}
	if err := WriteEndpoint(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadEndpoint(path)
	if err != nil || got != want {
		t.Fatalf("read back %+v, %v", got, err)
	}
	if runtime.GOOS != "windows" {
		if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
			t.Errorf("mode %v, want 0600", st.Mode().Perm())
		}
	}
	if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadEndpoint(path); err == nil {
		t.Fatal("a broken endpoint file read without error")
	}
}
