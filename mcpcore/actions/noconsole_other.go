//go:build !windows

package actions

import "os/exec"

// noConsoleWindow does nothing where programs open no console window.
func noConsoleWindow(*exec.Cmd) {}
