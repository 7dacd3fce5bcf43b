//go:build unix

package upstream

import "syscall"

// terminate asks the program's process group to end (SIGTERM), the step
// of MCP's stdio shutdown between closing its input and killing it.
func terminate(pid int) { _ = syscall.Kill(-pid, syscall.SIGTERM) }
