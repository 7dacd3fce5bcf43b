//go:build unix && !linux && !darwin

package actions

import (
	"errors"
	"syscall"
)

// dieWithParent does nothing here: Pdeathsig is wired on Linux only.
func dieWithParent(*syscall.SysProcAttr) {}

// pinThread does nothing: without Pdeathsig the starting thread does not
// matter.
func pinThread() (unpin func()) { return func() {} }

// errNoStartTime: reading another process's start time is wired on Linux
// and macOS only; without it a recorded group is never killed.
var errNoStartTime = errors.New("process start times are not read on this system")

func startTime(int) (uint64, error) { return 0, errNoStartTime }

func groupMembers(int) ([]member, error) { return nil, errNoStartTime }
