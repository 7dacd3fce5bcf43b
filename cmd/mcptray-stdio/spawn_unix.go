//go:build !windows

package main

import (
	"errors"
	"os/exec"
	"syscall"
)

// detach starts cmd in its own session, so it outlives the shim and the
// client's process group.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
