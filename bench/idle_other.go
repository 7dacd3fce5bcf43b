//go:build !linux

package bench

import (
	"errors"
	"time"
)

// ProcessCost is measured from /proc, so on Linux only.
func ProcessCost(int) (uint64, time.Duration, error) {
	return 0, 0, errors.New("context switches are measured on Linux only")
}

// ProcessRSS is measured from /proc, so on Linux only.
func ProcessRSS(int) (int64, error) {
	return 0, errors.New("resident memory is measured on Linux only")
}

// ProcessMemory is measured from /proc, so on Linux only.
func ProcessMemory(int) (Memory, error) {
	return Memory{}, errors.New("resident memory is measured on Linux only")
}
