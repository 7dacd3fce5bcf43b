//go:build !windows

// Package process says whether a process (of the endpoint file, say) still
// runs, the same way on every system.
package process

import (
	"errors"
	"syscall"
)

// Alive says whether a process with this id exists (someone else's
// counts: signalling it is refused, not absent).
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
