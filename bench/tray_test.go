package bench

import (
	"testing"
	"time"
)

func TestTrayWithin(t *testing.T) {
	window := 20 * time.Second
	// 400 switches/s, 12 ms/s: the bounds are 501/s and 15.2 ms/s.
	hello := TrayIdle{Idle: Idle{Window: window, Switches: 8000}, ExactCPU: 240 * time.Millisecond}
	for _, c := range []struct {
		name            string
		ours            TrayIdle
		wantSw, wantCPU bool
	}{
		{"the same", hello, true, true},
		{"at the bounds", TrayIdle{Idle: Idle{Window: window, Switches: 10020}, ExactCPU: 304 * time.Millisecond}, true, true},
		{"above both", TrayIdle{Idle: Idle{Window: window, Switches: 10040}, ExactCPU: 320 * time.Millisecond}, false, false},
	} {
		sw, cpu := TrayWithin(c.ours, hello)
		if sw != c.wantSw || cpu != c.wantCPU {
			t.Errorf("%s: within = %v, %v; want %v, %v (bounds %.1f/s, %s/s)", c.name, sw, cpu, c.wantSw, c.wantCPU,
				TraySwitchBound(hello), TrayCPUBound(hello))
		}
	}
}

func TestTrayMemoryWithin(t *testing.T) {
	hello := TrayIdle{Memory: Memory{RSS: 130 << 20, Private: 50 << 20}}
	for _, c := range []struct {
		ours Memory
		want bool
	}{
		{Memory{RSS: 130 << 20, Private: 50 << 20}, true},
		{Memory{RSS: 120 << 20, Private: 40 << 20}, true},
		{Memory{RSS: 131 << 20, Private: 40 << 20}, false},
		{Memory{RSS: 120 << 20, Private: 51 << 20}, false},
	} {
		if got := TrayMemoryWithin(TrayIdle{Memory: c.ours}, hello); got != c.want {
			t.Errorf("TrayMemoryWithin(%+v, %+v) = %v, want %v", c.ours, hello.Memory, got, c.want)
		}
	}
}
