//go:build !windows

// Package process says whether a process (of the endpoint file, say) still
// runs, the same way on every system.
package process

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Alive says whether a process with this id exists and is not ending
// (someone else's counts: signalling it is refused, not absent). One that
// ended or is ending — a zombie, or one whose threads are on their way out
// after a kill -9 — no longer runs, though a signal to it succeeds: a server
// killed a moment ago is one while its last threads let go of its files,
// its locks among them.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	return !ending(pid)
}

// pfExiting is Linux's PF_EXITING task flag: the task is in its exit.
const pfExiting = 0x4

// ending reads the process's state and flags from /proc (Linux): a zombie,
// or a process whose main thread has begun to exit. Where there is no
// /proc, a process that can be signalled counts as running.
func ending(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The fields follow the command name, which is in parentheses and may
	// itself hold ") ": state, ppid, pgrp, session, tty_nr, tpgid, flags…
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 7 {
		return false
	}
	if f[0] == "Z" || f[0] == "X" || f[0] == "x" {
		return true
	}
	flags, err := strconv.ParseUint(f[6], 10, 64)
	return err == nil && flags&pfExiting != 0
}
