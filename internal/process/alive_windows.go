//go:build windows

// Package process says whether a process (of the endpoint file, say) still
// runs, the same way on every system.
package process

import "golang.org/x/sys/windows"

// stillActive is the exit code GetExitCodeProcess reports for a process
// that has not ended (STILL_ACTIVE).
const stillActive = 259

// Alive says whether a process with this id exists and has not ended. A
// process that ended lives on as an object while anyone holds a handle to
// it (its parent, say), so opening it is not enough: its exit code tells.
// Someone else's process, which we may not query, counts as running.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return err == windows.ERROR_ACCESS_DENIED
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	return code == stillActive
}
