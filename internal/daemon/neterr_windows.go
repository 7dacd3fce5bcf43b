//go:build windows

package daemon

import (
	"errors"
	"syscall"
)

// Winsock's codes: Go's syscall.EADDRINUSE and ECONNREFUSED are invented
// values on Windows that no socket call returns.
const (
	wsaEADDRINUSE   = syscall.Errno(10048)
	wsaECONNREFUSED = syscall.Errno(10061)
)

// addrInUse says whether a listen failed because the port is taken.
func addrInUse(err error) bool { return errors.Is(err, wsaEADDRINUSE) }

// connRefused says whether a dial found nobody listening.
func connRefused(err error) bool { return errors.Is(err, wsaECONNREFUSED) }
