package main

import (
	"os"
	"syscall"
)

// mcptray.exe is a GUI-subsystem program (-H windowsgui): started from the
// Start menu it opens no console window. Windows then gives it no standard
// handles, so a command run from a terminal (`mcptray config claude-desktop`)
// would print nothing. Before main runs, a command line with a command
// attaches to the terminal it was started from, and standard output and
// error that lead nowhere are pointed at that console; redirected ones
// (`mcptray export > catalog.json`) are kept.
func init() {
	if len(os.Args) < 2 {
		return // the desktop app: no console
	}
	const attachParentProcess = ^uintptr(0) // ATTACH_PARENT_PROCESS, (DWORD)-1
	attach := syscall.NewLazyDLL("kernel32.dll").NewProc("AttachConsole")
	if r, _, _ := attach.Call(attachParentProcess); r == 0 {
		return // started without a terminal, or it has gone
	}
	con, err := os.OpenFile("CONOUT$", os.O_WRONLY, 0)
	if err != nil {
		return
	}
	for _, f := range []**os.File{&os.Stdout, &os.Stderr} {
		if !usable(*f) {
			*f = con
		}
	}
	if !usable(os.Stdin) {
		if in, err := os.Open("CONIN$"); err == nil {
			os.Stdin = in
		}
	}
}

// usable says whether f leads somewhere: a GUI program started from a
// terminal has no standard handles unless they were redirected.
func usable(f *os.File) bool {
	if f == nil || syscall.Handle(f.Fd()) == syscall.InvalidHandle || f.Fd() == 0 {
		return false
	}
	_, err := f.Stat()
	return err == nil
}
