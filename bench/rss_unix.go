//go:build unix

package bench

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSS is the peak resident memory of an exited process, in bytes.
func peakRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) // bytes there, kilobytes elsewhere
	}
	return int64(ru.Maxrss) << 10
}
