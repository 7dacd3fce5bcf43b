package bench

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// Targets of the desktop app at rest in the tray, its window opened once
// and closed (bench/cmd/trayidle): the serving process then draws nothing
// and holds nothing a window drew, so it should cost about what `mcptray
// serve` does. A Fyne hello world with a tray is measured beside it, for
// scale, with no target: its own main loop wakes 60 times a second.
const (
	// TraySwitchesTarget is the most context switches per second, all
	// threads.
	TraySwitchesTarget = 5.0
	// TrayCPUTarget is the most CPU time per second.
	TrayCPUTarget = time.Millisecond
	// TrayRSSTarget is the most resident memory.
	TrayRSSTarget = 60 << 20
)

// TrayIdle is what a desktop app at rest cost over a window: its whole
// process (Idle, from ProcessCost), its resident memory at the end, and
// each thread's share.
type TrayIdle struct {
	Idle
	Memory
	// Threads are the threads that lived through the window, the busiest
	// (most context switches) first.
	Threads []ThreadCost
	// Children are the processes it had started that ran at the end
	// (their command lines); their memory is in Memory.
	Children []string
	// ExactCPU is the threads' CPU time from schedstat, in nanoseconds
	// where Idle.CPU counts 10 ms ticks, which over a 20 s window jitter by
	// a few ms/s; zero when the kernel keeps no schedstat.
	ExactCPU time.Duration
}

// CPUPerSecond is the CPU time per second of the window: from schedstat
// when there is one, else from ProcessCost's ticks.
func (t TrayIdle) CPUPerSecond() time.Duration {
	if t.ExactCPU > 0 {
		return time.Duration(float64(t.ExactCPU) / t.Window.Seconds())
	}
	return t.Idle.CPUPerSecond()
}

// ThreadCost is one thread's context switches and CPU over a window.
type ThreadCost struct {
	TID      int
	Name     string // /proc/<pid>/task/<tid>/comm
	Switches uint64
	CPU      time.Duration // from schedstat: nanoseconds, not ticks
}

// Woke is how many of the threads switched at least once in the window.
func (t TrayIdle) Woke() int {
	n := 0
	for _, th := range t.Threads {
		if th.Switches > 0 {
			n++
		}
	}
	return n
}

// MeasurePID lets the running process pid settle, then measures its context
// switches and CPU (ProcessCost), each thread's, over window, and its RSS at
// the end. Nothing may talk to the process meanwhile.
func MeasurePID(ctx context.Context, pid int, settle, window time.Duration) (TrayIdle, error) {
	if err := Sleep(ctx, settle); err != nil {
		return TrayIdle{}, err
	}
	th0, err := ThreadCosts(pid)
	if err != nil {
		return TrayIdle{}, err
	}
	sw0, cpu0, err := ProcessCost(pid)
	if err != nil {
		return TrayIdle{}, err
	}
	start := time.Now()
	if err := Sleep(ctx, window); err != nil {
		return TrayIdle{}, err
	}
	sw1, cpu1, err := ProcessCost(pid)
	if err != nil {
		return TrayIdle{}, err
	}
	elapsed := time.Since(start)
	th1, err := ThreadCosts(pid)
	if err != nil {
		return TrayIdle{}, err
	}
	mem, err := ProcessMemory(pid)
	if err != nil {
		return TrayIdle{}, err
	}
	// What an app keeps running at rest in processes of its own is its
	// cost too (mcptray's window process, had it not ended).
	kids, err := Children(pid)
	if err != nil {
		return TrayIdle{}, err
	}
	var children []string
	for kid, cmd := range kids {
		m, err := ProcessMemory(kid)
		if err != nil {
			continue // it ended meanwhile
		}
		mem.RSS += m.RSS
		mem.Private += m.Private
		children = append(children, fmt.Sprintf("%d %.40q, RSS %.1f MB, private %.1f MB", kid, cmd, float64(m.RSS)/(1<<20), float64(m.Private)/(1<<20)))
	}
	sort.Strings(children)
	before := make(map[int]ThreadCost, len(th0))
	for _, t := range th0 {
		before[t.TID] = t
	}
	var threads []ThreadCost
	var exact time.Duration
	for _, t := range th1 {
		b, ok := before[t.TID]
		if !ok {
			continue // started during the window: counted in the total only
		}
		threads = append(threads, ThreadCost{TID: t.TID, Name: t.Name, Switches: t.Switches - b.Switches, CPU: t.CPU - b.CPU})
		exact += t.CPU - b.CPU
	}
	sort.SliceStable(threads, func(i, j int) bool { return threads[i].Switches > threads[j].Switches })
	return TrayIdle{Idle: Idle{Window: elapsed, Switches: sw1 - sw0, CPU: cpu1 - cpu0}, Memory: mem, Threads: threads, ExactCPU: exact, Children: children}, nil
}

// TrayVerdicts says whether t meets each target: context switches and CPU
// per second, and RSS.
func TrayVerdicts(t TrayIdle) (switches, cpu, rss bool) {
	return t.SwitchesPerSecond() <= TraySwitchesTarget, t.CPUPerSecond() <= TrayCPUTarget, t.RSS <= TrayRSSTarget
}

// String is a thread's share, per second of window.
func (t ThreadCost) String(window time.Duration) string {
	return fmt.Sprintf("%d %q %.1f/s %.2f ms/s", t.TID, t.Name,
		float64(t.Switches)/window.Seconds(), float64(t.CPU)/float64(time.Millisecond)/window.Seconds())
}
