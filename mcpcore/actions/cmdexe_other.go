//go:build !windows

package actions

import "os/exec"

// passCmdLine does nothing where programs receive their arguments one by
// one rather than as a command line.
func passCmdLine(*exec.Cmd, string) {}
