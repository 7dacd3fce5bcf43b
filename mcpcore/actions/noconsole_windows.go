package actions

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// noConsoleWindow starts the program without a console window of its own.
// mcptray's serving process, started from the tray or at login, has no
// console, and Windows gives each console program it starts (cmd,
// findstr, ping… nearly every command) a new console window, which would
// flash on the screen at every call. Its output still comes through the
// pipes.
func noConsoleWindow(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NO_WINDOW
}
