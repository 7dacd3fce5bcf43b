package process

import (
	"os"
	"os/exec"
	"testing"
)

func TestAlive(t *testing.T) {
	if !Alive(os.Getpid()) {
		t.Error("this process is not alive")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if Alive(cmd.Process.Pid) {
		t.Errorf("process %d ended and was reaped, yet it is alive", cmd.Process.Pid)
	}
	if Alive(0) || Alive(-1) {
		t.Error("no process has id 0 or -1")
	}
}
