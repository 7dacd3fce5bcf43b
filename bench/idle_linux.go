package bench

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is USER_HZ, the unit of /proc/<pid>/stat's times: 100 on every
// Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// ProcessCost returns the context switches (voluntary and involuntary,
// summed over all of its threads) and CPU time (user + system) process pid
// has had so far, from /proc.
func ProcessCost(pid int) (switches uint64, cpu time.Duration, err error) {
	dir := fmt.Sprintf("/proc/%d", pid)
	tasks, err := filepath.Glob(filepath.Join(dir, "task", "*", "status"))
	if err != nil || len(tasks) == 0 {
		return 0, 0, fmt.Errorf("threads of process %d: none found in %s/task", pid, dir)
	}
	for _, status := range tasks {
		n, err := statusSwitches(status)
		if err != nil {
			continue // the thread ended meanwhile
		}
		switches += n
	}
	b, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return 0, 0, fmt.Errorf("CPU time of process %d: %w", pid, err)
	}
	// The command name, field 2, is in parentheses and may hold spaces;
	// utime and stime are fields 14 and 15, the 12th and 13th after it.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, 0, fmt.Errorf("CPU time of process %d: short %s/stat", pid, dir)
	}
	var ticks uint64
	for _, f := range fields[11:13] {
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("CPU time of process %d: %w", pid, err)
		}
		ticks += v
	}
	return switches, time.Duration(ticks) * clockTick, nil
}

// statusSwitches sums a /proc/.../status file's context switch counts.
func statusSwitches(path string) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var n uint64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), ":")
		if ok && (name == "voluntary_ctxt_switches" || name == "nonvoluntary_ctxt_switches") {
			v, err := strconv.ParseUint(strings.TrimSpace(val), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("%s: %w", path, err)
			}
			n += v
		}
	}
	return n, sc.Err()
}

// ProcessRSS returns process pid's resident memory in bytes (VmRSS).
func ProcessRSS(pid int) (int64, error) {
	m, err := ProcessMemory(pid)
	return m.RSS, err
}

// ProcessMemory returns process pid's resident memory, whole and its
// private part, from /proc/PID/status.
func ProcessMemory(pid int) (Memory, error) {
	path := fmt.Sprintf("/proc/%d/status", pid)
	b, err := os.ReadFile(path)
	if err != nil {
		return Memory{}, fmt.Errorf("memory of process %d: %w", pid, err)
	}
	var m Memory
	fields := map[string]*int64{"VmRSS": &m.RSS, "RssAnon": &m.Private}
	for line := range strings.Lines(string(b)) {
		name, v, _ := strings.Cut(line, ":")
		to, ok := fields[name]
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return Memory{}, fmt.Errorf("%s: %s: %w", path, name, err)
		}
		*to = kb << 10
		delete(fields, name)
	}
	if len(fields) > 0 {
		return Memory{}, fmt.Errorf("%s: no VmRSS or RssAnon", path)
	}
	return m, nil
}
