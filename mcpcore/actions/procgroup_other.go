//go:build !unix

package actions

import "os/exec"

// killGroupOnCancel kills only the process where process groups are not
// available; exec.CommandContext's default does that already.
func killGroupOnCancel(*exec.Cmd) {}
