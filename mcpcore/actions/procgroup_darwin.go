package actions

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// dieWithParent does nothing: macOS has no Pdeathsig. The next start of
// mcptray kills what a crash left (KillLeftovers).
func dieWithParent(*syscall.SysProcAttr) {}

// pinThread does nothing: without Pdeathsig the starting thread does not
// matter.
func pinThread() (unpin func()) { return func() {} }

// startTime is a process's start time, in microseconds since 1970.
func startTime(pid int) (uint64, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return 0, err
	}
	return micros(kp.Proc.P_starttime), nil
}

func micros(t unix.Timeval) uint64 { return uint64(t.Sec)*1_000_000 + uint64(t.Usec) }

// groupMembers lists the processes whose process group is pgid.
func groupMembers(pgid int) ([]member, error) {
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.pgrp", pgid)
	if err != nil {
		return nil, err
	}
	out := make([]member, 0, len(kps))
	for _, kp := range kps {
		out = append(out, member{pid: int(kp.Proc.P_pid), started: micros(kp.Proc.P_starttime)})
	}
	return out, nil
}
