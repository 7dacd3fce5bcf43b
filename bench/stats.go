package bench

import (
	"runtime"
	"time"
)

// Stats are a process's cumulative counters, snapshotted around a measured
// window to get per-call costs.
type Stats struct {
	// Mallocs and Bytes are runtime.MemStats Mallocs and TotalAlloc.
	Mallocs uint64 `json:"mallocs"`
	Bytes   uint64 `json:"bytes"`
	// NumGC counts completed GC cycles.
	NumGC uint32 `json:"numGC"`
	// CPU is the process's user+system CPU time (0 where unknown).
	CPU time.Duration `json:"cpuNs"`
}

// ReadStats snapshots this process's counters.
func ReadStats() Stats {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return Stats{Mallocs: m.Mallocs, Bytes: m.TotalAlloc, NumGC: m.NumGC, CPU: ProcessCPU()}
}

// Sub returns the counters' growth from before to s.
func (s Stats) Sub(before Stats) Stats {
	return Stats{Mallocs: s.Mallocs - before.Mallocs, Bytes: s.Bytes - before.Bytes, NumGC: s.NumGC - before.NumGC, CPU: s.CPU - before.CPU}
}

// Add returns the sum of two counter growths.
func (s Stats) Add(o Stats) Stats {
	return Stats{Mallocs: s.Mallocs + o.Mallocs, Bytes: s.Bytes + o.Bytes, NumGC: s.NumGC + o.NumGC, CPU: s.CPU + o.CPU}
}
