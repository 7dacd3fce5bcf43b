//go:build !unix

package bench

import "time"

// ProcessCPU returns the CPU time this process has used so far; it is not
// measured on this platform, so it is always 0.
func ProcessCPU() time.Duration { return 0 }
