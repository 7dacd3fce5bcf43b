package testutil

import (
	"bufio"
	"os/exec"
	"strings"
	"testing"
)

// SessionBus starts a D-Bus session daemon of the test's own, ended with
// the test, and returns its address; without dbus-daemon the test is
// skipped.
func SessionBus(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		t.Skip("no dbus-daemon (apt install dbus)")
	}
	// Its socket in the test's folder: killed, dbus-daemon leaves it
	// behind, and /tmp would fill with them.
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address=1", "--address=unix:dir="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon printed no address: %v", err)
	}
	return strings.TrimSpace(addr)
}
