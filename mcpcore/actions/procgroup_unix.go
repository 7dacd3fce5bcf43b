//go:build unix

package actions

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// killGroupOnCancel puts the command in its own process group and kills the
// whole group (SIGKILL) when the command's context is done — cancellation or
// timeout — so grandchildren do not outlive the call. A process that moved
// itself to another group or session (setsid, a daemon) escapes this.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
}
