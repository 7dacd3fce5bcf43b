package process

import (
	"os"
	"runtime"
)

// Self is the file of the running program, to start another process of
// it (the desktop app's window process): the program as it was when this
// process started, even after an upgrade replaced or deleted its file —
// on Linux /proc/self/exe, which the kernel keeps pointing at the old
// file. os.Executable names the path, where the new version now lives,
// and a process of the new version would speak to this one across a
// link whose methods may have changed. Elsewhere it is os.Executable:
// Windows cannot replace a running program's file, and macOS keeps no
// such link.
func Self() (string, error) {
	if runtime.GOOS == "linux" {
		if _, err := os.Stat("/proc/self/exe"); err == nil {
			return "/proc/self/exe", nil
		}
	}
	return os.Executable()
}
