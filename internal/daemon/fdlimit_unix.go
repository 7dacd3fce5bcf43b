//go:build unix

package daemon

import "syscall"

// fdLimit is how many file descriptors the process may open (its soft
// RLIMIT_NOFILE, which Go raises to the hard limit at start), or 0 when
// unknown.
func fdLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<30 {
		return 0
	}
	return int(rl.Cur)
}
