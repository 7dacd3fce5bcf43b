package clientconfig

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestSharedFileNamesTheShimByName: a file meant to be shared names
// mcptray-stdio without its folder, in every client's format, so that it
// works on each teammate's computer; a person's own file keeps the
// absolute path.
func TestSharedFileNamesTheShimByName(t *testing.T) {
	for _, c := range Clients() {
		for _, shared := range []bool{false, true} {
			p := params
			p.Shared = shared
			out, err := Snippet(c, Stdio, p)
			if err != nil {
				t.Fatalf("%s: %v", c.ID, err)
			}
			entries, err := entryNames(c, out)
			if err != nil {
				t.Fatalf("%s: %v\n%s", c.ID, err, out)
			}
			want := p.ShimPath
			if Shared(c, p) {
				want = ShimName
			}
			if got := str(entries["mcptray"], "command", "cmd"); got != want {
				t.Errorf("%s (shared: %v): the command is %q, want %q", c.ID, Shared(c, p), got, want)
			}
		}
	}
	// Installing again over a shared file that names one person's shim
	// puts the name in its place.
	c := mustLookup("claude-code-project")
	old := []byte(`{"mcpServers": {"mcptray": {"type": "stdio", "command": "/home/ann/.local/bin/mcptray-stdio", "args": []}}}`)
	out, err := Merge(c, old, Stdio, params)
	if err != nil || strings.Contains(string(out), "/home/ann") || !strings.Contains(string(out), `"command": "mcptray-stdio"`) {
		t.Errorf("merge over a shared file (%v):\n%s", err, out)
	}
}

// fakeShim writes an executable file named mcptray-stdio in dir.
func fakeShim(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, ShimName)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSharedShimNote: what a person is told when a shared file gets the
// shim's name: where PATH finds it here, that another copy answers to the
// name, or that it is not on PATH at all — each saying that everyone using
// the project needs mcptray installed.
func TestSharedShimNote(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake shim is a shell script")
	}
	root := t.TempDir()
	shim := fakeShim(t, filepath.Join(root, "installed"))
	linked := filepath.Join(root, "linked")
	os.MkdirAll(linked, 0o755)
	if err := os.Symlink(shim, filepath.Join(linked, ShimName)); err != nil {
		t.Fatal(err)
	}
	other := fakeShim(t, filepath.Join(root, "other"))
	empty := filepath.Join(root, "empty")
	os.MkdirAll(empty, 0o755)

	for _, tc := range []struct {
		path     string
		warn     bool
		has, not []string
	}{
		{filepath.Dir(shim), false, []string{"without its folder", "installed", shim}, []string{"not on"}},
		{linked, false, []string{"without its folder", filepath.Join(linked, ShimName)}, []string{"not on", "another"}},
		{filepath.Dir(other) + string(os.PathListSeparator) + filepath.Dir(shim), true, []string{"another", other, shim, "installed"}, nil},
		{empty, true, []string{"not on your PATH", "add " + filepath.Dir(shim) + " to your PATH", "needs mcptray installed"}, nil},
	} {
		t.Setenv("PATH", tc.path)
		note, warn := SharedShimNote(shim)
		if warn != tc.warn {
			t.Errorf("PATH=%s: warn %v, want %v: %s", tc.path, warn, tc.warn, note)
		}
		for _, s := range tc.has {
			if !strings.Contains(note, s) {
				t.Errorf("PATH=%s: the note does not say %q: %s", tc.path, s, note)
			}
		}
		for _, s := range tc.not {
			if strings.Contains(note, s) {
				t.Errorf("PATH=%s: the note says %q: %s", tc.path, s, note)
			}
		}
	}
}

// TestCheckSharedEntry: --check runs a shared file's entry as its client
// would, finding mcptray-stdio on PATH, and says plainly when it is not
// there.
func TestCheckSharedEntry(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the shim is a symbolic link to the test binary")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "bin")
	os.MkdirAll(bin, 0o755)
	if err := os.Symlink(exe, filepath.Join(bin, ShimName)); err != nil {
		t.Fatal(err)
	}
	c := mustLookup("claude-code-project")
	path := filepath.Join(t.TempDir(), ".mcp.json")
	pl, err := PlanInstall(c, path, Stdio, Params{ShimPath: filepath.Join(bin, ShimName)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pl.Apply(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), `"command": "mcptray-stdio"`) {
		t.Fatalf("the file:\n%s", b)
	}
	serve := []string{"CLIENTCONFIG_TEST_SERVE=1", "CHECK_TOOLS=a b"}

	t.Setenv("PATH", bin)
	got, err := Check(context.Background(), c, path, "", serve)
	if err != nil || got.Tools != 2 || got.Target != ShimName {
		t.Fatalf("check with the shim on PATH: %+v, %v", got, err)
	}
	t.Setenv("PATH", t.TempDir())
	_, err = Check(context.Background(), c, path, "", serve)
	checkFailure(t, err, "mcptray-stdio is not on the PATH", "Install mcptray")
}
