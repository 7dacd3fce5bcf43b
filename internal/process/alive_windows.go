//go:build windows

// Package process says whether a process (of the endpoint file, say) still
// runs, the same way on every system.
package process

import "os"

// Alive says whether a process with this id exists.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid) // fails when no such process exists
	if err != nil {
		return false
	}
	p.Release()
	return true
}
