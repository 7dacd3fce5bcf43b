//go:build !windows

package process

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestZombieIsNotAlive: a child that ended but is not reaped yet (a zombie)
// is not alive, where /proc tells.
func TestZombieIsNotAlive(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	// Not reaped until Wait: once it ended, it is a zombie.
	for i := 0; i < 500 && !ending(cmd.Process.Pid); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if !ending(cmd.Process.Pid) {
		t.Fatal("the child never became a zombie")
	}
	if Alive(cmd.Process.Pid) {
		t.Errorf("zombie %d is alive", cmd.Process.Pid)
	}
}
