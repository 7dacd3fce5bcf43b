//go:build unix

package actions

import (
	"os/exec"
	"syscall"
)

// killGroupOnCancel puts the command in its own process group and kills the
// whole group on cancellation, so grandchildren do not outlive the call.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
