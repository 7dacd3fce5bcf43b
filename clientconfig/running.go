package clientconfig

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// clientProcesses are the process names of the GUI clients that read their
// config only at start (compared without case and without ".exe").
var clientProcesses = map[string][]string{
	"claude-desktop": {"claude", "claude-desktop"},
	"cursor":         {"cursor"},
	"vscode":         {"code"},
	"windsurf":       {"windsurf"},
	"zed":            {"zed", "zed-editor"},
}

// RunningProcesses lists the names of the running processes (lower case,
// without ".exe"), best effort: an empty map when they cannot be listed.
func RunningProcesses() map[string]bool {
	names := map[string]bool{}
	add := func(n string) {
		n = strings.ToLower(strings.TrimSpace(strings.Trim(strings.TrimSpace(n), `"`)))
		n = strings.TrimSuffix(n, ".exe")
		if n != "" {
			names[n] = true
		}
	}
	switch runtime.GOOS {
	case "linux":
		files, _ := filepath.Glob("/proc/[0-9]*/comm")
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil {
				add(string(b))
			}
		}
	case "windows":
		out, _ := exec.Command("tasklist", "/fo", "csv", "/nh").Output()
		for _, l := range strings.Split(string(out), "\n") {
			first, _, _ := strings.Cut(l, ",")
			add(first)
		}
	default:
		out, _ := exec.Command("ps", "-axco", "comm=").Output()
		for _, l := range strings.Split(string(out), "\n") {
			add(l)
		}
	}
	return names
}

// Running reports whether client c is among procs (RunningProcesses).
// known is false for clients whose process cannot be recognised (the
// command-line ones, which read their config at every start anyway).
func Running(c Client, procs map[string]bool) (running, known bool) {
	names, known := clientProcesses[c.ID]
	for _, n := range names {
		if procs[n] {
			return true, true
		}
	}
	return false, known
}
