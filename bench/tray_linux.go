package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ThreadCosts returns the context switches and CPU time so far of each
// thread of process pid; threads that end while it reads are left out.
func ThreadCosts(pid int) ([]ThreadCost, error) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("threads of process %d: %w", pid, err)
	}
	var out []ThreadCost
	for _, e := range entries {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		sw, err := statusSwitches(filepath.Join(dir, e.Name(), "status"))
		if err != nil {
			continue // the thread ended meanwhile
		}
		t := ThreadCost{TID: tid, Switches: sw}
		if b, err := os.ReadFile(filepath.Join(dir, e.Name(), "comm")); err == nil {
			t.Name = strings.TrimSpace(string(b))
		}
		// schedstat's first field is the time on a CPU in nanoseconds; it
		// is absent on kernels without schedstats, leaving CPU zero.
		if b, err := os.ReadFile(filepath.Join(dir, e.Name(), "schedstat")); err == nil {
			if f := strings.Fields(string(b)); len(f) > 0 {
				if ns, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					t.CPU = time.Duration(ns)
				}
			}
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("threads of process %d: none found in %s", pid, dir)
	}
	return out, nil
}

// Children lists the processes that process pid started and that still
// run, with their command lines.
func Children(pid int) (map[int]string, error) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("threads of process %d: %w", pid, err)
	}
	out := map[int]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "children"))
		if err != nil {
			continue // the thread ended meanwhile
		}
		for _, f := range strings.Fields(string(b)) {
			child, err := strconv.Atoi(f)
			if err != nil {
				continue
			}
			cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", child))
			out[child] = strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))
		}
	}
	return out, nil
}
