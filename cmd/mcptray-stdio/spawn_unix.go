//go:build !windows

package main

import (
	"os/exec"
	"syscall"
)

// detach starts cmd in its own session, so it outlives the shim and the
// client's process group.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}
