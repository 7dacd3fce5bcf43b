package bench

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestProcessCostCounts: ProcessCost sees this process's own sleeps as
// context switches and its own busy loop as CPU time.
func TestProcessCostCounts(t *testing.T) {
	sw0, cpu0, err := ProcessCost(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		time.Sleep(time.Millisecond)
	}
	// Busy until getrusage says 100 ms of CPU went by: wall time would
	// not do on a loaded machine.
	for start := ProcessCPU(); ProcessCPU()-start < 100*time.Millisecond; {
	}
	sw1, cpu1, err := ProcessCost(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if sw1-sw0 < 50 {
		t.Errorf("%d context switches over 100 sleeps, want at least 50", sw1-sw0)
	}
	if cpu1-cpu0 < 50*time.Millisecond {
		t.Errorf("%v CPU over 100 ms of busy loop, want at least 50ms", cpu1-cpu0)
	}
	if _, _, err := ProcessCost(-1); err == nil {
		t.Error("ProcessCost of no process: no error")
	}
}

func TestChildrenListsTheProcessesStartedAndStillRunning(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Started is not yet exec'd: its command line comes a moment later.
	var kids map[int]string
	var err error
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if kids, err = Children(os.Getpid()); err != nil || kids[cmd.Process.Pid] == "sleep 30" {
			break
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if err != nil || kids[cmd.Process.Pid] != "sleep 30" {
		t.Fatalf("Children = %v, %v; want sleep 30 as %d", kids, err, cmd.Process.Pid)
	}
	if kids, err := Children(os.Getpid()); err != nil || len(kids) != 0 {
		t.Fatalf("after it ended: %v, %v; want none", kids, err)
	}
}
