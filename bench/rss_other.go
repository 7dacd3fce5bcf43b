//go:build !unix

package bench

import "os"

// peakRSS is the peak resident memory of an exited process; it is not
// measured on this platform, so it is always 0.
func peakRSS(*os.ProcessState) int64 { return 0 }
