package upgrade

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/internal/process"
)

func TestCompare(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
		ok   bool
	}{
		{"0.1.0", "0.1.1", -1, true},
		{"0.1.1", "0.1.0", 1, true},
		{"0.1.0", "0.1.0", 0, true},
		{"v0.1.0", "0.1.0", 0, true},
		{"0.9.0", "0.10.0", -1, true}, // numbers, not text
		{"1.0.0", "0.99.99", 1, true},
		{"0.1.0-dev", "0.1.0", -1, true}, // a prerelease comes before its release
		{"0.1.0", "0.1.0-dev", 1, true},
		{"0.1.1-dev", "0.1.0", 1, true},
		{"1.0.0-alpha", "1.0.0-alpha.1", -1, true},
		{"1.0.0-alpha.1", "1.0.0-alpha.beta", -1, true},
		{"1.0.0-beta.2", "1.0.0-beta.11", -1, true},
		{"1.0.0-rc.1", "1.0.0", -1, true},
		{"1.0.0+a", "1.0.0+b", 0, true}, // build metadata does not order
		{"dev", "0.1.0", 0, false},
		{"0.1.0", "dev", 0, false},
		{"", "0.1.0", 0, false},
		{"0.1", "0.1.0", 0, false},
		{"0.1.0-", "0.1.0", 0, false},
		{"0.1.x", "0.1.0", 0, false},
		{"abc1234-dirty", "0.1.0", 0, false},
	} {
		got, ok := Compare(c.a, c.b)
		if got != c.want || ok != c.ok {
			t.Errorf("Compare(%q, %q) = %d, %v; want %d, %v", c.a, c.b, got, ok, c.want, c.ok)
		}
	}
}

// TestOutdated runs a real process from a copy of this test program, then
// deletes the copy, as an upgrade does.
func TestOutdated(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "mcptray")
	copyFile(t, os.Args[0], exe)
	cmd := exec.Command(exe, "-test.run=^TestHelperWait$")
	cmd.Env = append(os.Environ(), "UPGRADE_TEST_WAIT=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		in.Close() // the helper ends when its input does
		_ = cmd.Wait()
	}()
	ep := paths.Endpoint{PID: cmd.Process.Pid}
	check := func(when string, running, mine string, want bool) {
		t.Helper()
		ep.Version = running
		if got := Outdated(ep, mine); got != want {
			t.Errorf("%s: a server of %s, this program %s: Outdated = %v, want %v", when, running, mine, got, want)
		}
	}
	check("program in place", "0.1.0", "0.1.1", true) // older
	check("program in place", "0.1.1", "0.1.1", false)
	check("program in place", "0.1.2", "0.1.1", false) // newer: another install, left alone
	check("program in place", "dev", "0.1.1", false)
	check("program in place", "0.1.0", "dev", false)
	if err := os.Remove(exe); err != nil {
		t.Fatal(err)
	}
	replaced := runtime.GOOS == "linux"
	if got := process.Replaced(cmd.Process.Pid); got != replaced {
		t.Fatalf("after deleting its program, Replaced = %v on %s", got, runtime.GOOS)
	}
	check("program deleted", "0.1.0", "0.1.1", true)
	check("program deleted", "0.1.1", "0.1.1", false)    // the same version: nothing to gain
	check("program deleted", "0.1.2", "0.1.1", replaced) // a downgrade
	check("program deleted", "dev", "0.1.1", false)
}

// TestHelperWait is the process TestOutdated runs: it waits for its input
// to end.
func TestHelperWait(t *testing.T) {
	if os.Getenv("UPGRADE_TEST_WAIT") != "1" {
		t.Skip("the helper process of TestOutdated")
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}
