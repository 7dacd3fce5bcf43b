//go:build !unix

package actions

import (
	"os/exec"
	"runtime"
	"strconv"
)

// killGroupOnCancel kills the process and, on Windows, its process tree
// (taskkill /T) when the command's context is done. Elsewhere only the
// process is killed, as exec.CommandContext does by default.
func killGroupOnCancel(cmd *exec.Cmd) {
	if runtime.GOOS != "windows" {
		return
	}
	cmd.Cancel = func() error {
		_ = exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(cmd.Process.Pid)).Run()
		return cmd.Process.Kill()
	}
}
