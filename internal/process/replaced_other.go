//go:build !linux

package process

// Replaced says whether the program file a process runs was replaced since
// it started. Only Linux tells (through /proc); elsewhere it is false, and
// the versions alone decide (internal/upgrade).
func Replaced(pid int) bool { return false }
