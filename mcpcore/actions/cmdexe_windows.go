package actions

import (
	"os/exec"
	"syscall"
)

// passCmdLine starts cmd with line as its command line, as written.
func passCmdLine(cmd *exec.Cmd, line string) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CmdLine = line
}
