//go:build linux || darwin

package actions

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/process"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/record"
)

// TestKillLeftoversOnlyKillsTheRecordedGroup: a group recorded by a
// crashed run is killed whole — its leader and what the leader started —
// only when the leader's start time is the one recorded. A pid now used by
// another program (another start time), or a group recorded without a
// start time, is left alone.
func TestKillLeftoversOnlyKillsTheRecordedGroup(t *testing.T) {
	testutil.Long(t, "starts process groups and kills them")
	cmd := exec.Command("sh", "-c", "sleep 30 & sleep 30; wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	pid := cmd.Process.Pid
	t.Cleanup(func() { syscall.Kill(-pid, syscall.SIGKILL) })
	testutil.Eventually(t, "the leader and its two sleeps", func() bool {
		m, err := groupMembers(pid)
		return err == nil && len(m) == 3
	})
	started, err := startTime(pid)
	if err != nil || started == 0 {
		t.Fatalf("startTime(%d) = %d, %v", pid, started, err)
	}

	for _, g := range []record.ProcessGroup{
		{ID: pid, Started: started + 1, Program: "reused pid"},
		{ID: pid, Started: 0, Program: "no start time"},
	} {
		if n := KillLeftovers([]record.ProcessGroup{g}); n != 0 {
			t.Errorf("%s: killed %d processes", g.Program, n)
		}
		if m, _ := groupMembers(pid); len(m) != 3 {
			t.Fatalf("%s: %d processes left of the group's 3", g.Program, len(m))
		}
	}

	if n := KillLeftovers([]record.ProcessGroup{{ID: pid, Started: started, Program: "sh"}}); n != 3 {
		t.Errorf("the recorded group: killed %d processes, want 3", n)
	}
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("the leader outlived KillLeftovers")
	}
	testutil.Eventually(t, "the group to be gone", func() bool {
		m, _ := groupMembers(pid)
		return len(m) == 0 && !process.Alive(pid)
	})
}
