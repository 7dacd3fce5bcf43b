package bench

import (
	"context"
	"fmt"
	"sort"
	"time"
)

// Tolerance of "the tray app at rest costs no more than a Fyne hello world
// with a tray" (bench/cmd/trayidle). Both apps are measured over the same
// window, so that load on the machine weighs on both alike; what is left is
// each app's own jitter (Fyne's 60 Hz event loop wakes on a timer whose
// phase against the scheduler varies): a few percent from one 20 s window to
// the next. So ours may be up to 25% above the hello world plus a small
// absolute slack: 1 switch/s and 0.2 ms of CPU per second, or one clock
// tick over the window when the CPU time comes from ticks (no schedstat).
const (
	// TrayIdleFactor is how many times the hello world's figure ours may be.
	TrayIdleFactor = 1.25
	// TraySwitchSlack is the context switches per second added to the bound.
	TraySwitchSlack = 1.0
	// TrayCPUSlack is the least CPU time per second added to the bound.
	TrayCPUSlack = 200 * time.Microsecond
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

// TrayWithin reports whether ours costs no more than hello, within the
// tolerance above: its context switches per second, and its CPU per second.
func TrayWithin(ours, hello TrayIdle) (switches, cpu bool) {
	return ours.SwitchesPerSecond() <= TraySwitchBound(hello), ours.CPUPerSecond() <= TrayCPUBound(hello)
}

// TrayMemoryWithin reports whether ours holds no more memory than hello:
// its RSS and its private part each. Memory does not jitter as wake-ups
// do, so there is no tolerance.
func TrayMemoryWithin(ours, hello TrayIdle) bool {
	return ours.RSS <= hello.RSS && ours.Private <= hello.Private
}

// TrayCPUBound is the most CPU per second ours may take against hello.
func TrayCPUBound(hello TrayIdle) time.Duration {
	slack := TrayCPUSlack
	if hello.ExactCPU == 0 {
		slack = max(slack, time.Duration(float64(clockTickOrZero())/hello.Window.Seconds()))
	}
	return time.Duration(float64(hello.CPUPerSecond())*TrayIdleFactor) + slack
}

// TraySwitchBound is the most context switches per second ours may have
// against hello.
func TraySwitchBound(hello TrayIdle) float64 {
	return hello.SwitchesPerSecond()*TrayIdleFactor + TraySwitchSlack
}

// String is a thread's share, per second of window.
func (t ThreadCost) String(window time.Duration) string {
	return fmt.Sprintf("%d %q %.1f/s %.2f ms/s", t.TID, t.Name,
		float64(t.Switches)/window.Seconds(), float64(t.CPU)/float64(time.Millisecond)/window.Seconds())
}
