package actions

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
)

// dieWithParent makes the kernel kill the program when the thread that
// started it ends — which pinThread makes the same as mcptray ending.
func dieWithParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }

// pinThread keeps the calling goroutine on its OS thread until the
// returned function runs: Pdeathsig fires when the thread that forked the
// program exits, and Go exits a thread only when a goroutine locked to it
// returns still locked — this one unlocks once the program has ended (see
// golang.org/issue/27505).
func pinThread() (unpin func()) {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}

// procStat reads a process's process group and start time (fields 5 and
// 22 of /proc/PID/stat, counted after the command name, which may hold
// spaces and parentheses).
func procStat(pid int) (pgrp int, started uint64, err error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := bytes.Fields(b[i+1:])
	// f[0] is field 3 (state): field N is f[N-3].
	if len(f) < 20 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	if pgrp, err = strconv.Atoi(string(f[2])); err != nil {
		return 0, 0, fmt.Errorf("/proc/%d/stat: pgrp: %w", pid, err)
	}
	if started, err = strconv.ParseUint(string(f[19]), 10, 64); err != nil {
		return 0, 0, fmt.Errorf("/proc/%d/stat: starttime: %w", pid, err)
	}
	return pgrp, started, nil
}

// startTime is a process's start time, in clock ticks since boot.
func startTime(pid int) (uint64, error) {
	_, started, err := procStat(pid)
	return started, err
}

// groupMembers lists the processes whose process group is pgid.
func groupMembers(pgid int) ([]member, error) {
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []member
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		pgrp, started, err := procStat(pid)
		if errors.Is(err, os.ErrNotExist) || err != nil || pgrp != pgid {
			continue
		}
		out = append(out, member{pid: pid, started: started})
	}
	return out, nil
}
