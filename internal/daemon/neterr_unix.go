//go:build !windows

package daemon

import (
	"errors"
	"syscall"
)

// addrInUse says whether a listen failed because the port is taken.
func addrInUse(err error) bool { return errors.Is(err, syscall.EADDRINUSE) }

// connRefused says whether a dial found nobody listening.
func connRefused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }
