package bench

import (
	"testing"
	"time"
)

func TestTrayVerdicts(t *testing.T) {
	window := 20 * time.Second
	for _, c := range []struct {
		name                 string
		t                    TrayIdle
		wantSw, wantCPU, rss bool
	}{
		{"idle", TrayIdle{Idle: Idle{Window: window, Switches: 4}, ExactCPU: time.Millisecond, Memory: Memory{RSS: 40 << 20}}, true, true, true},
		{"at the targets", TrayIdle{Idle: Idle{Window: window, Switches: 100}, ExactCPU: 20 * time.Millisecond, Memory: Memory{RSS: 60 << 20}}, true, true, true},
		{"a Fyne main loop", TrayIdle{Idle: Idle{Window: window, Switches: 8000}, ExactCPU: 240 * time.Millisecond, Memory: Memory{RSS: 130 << 20}}, false, false, false},
	} {
		sw, cpu, rss := TrayVerdicts(c.t)
		if sw != c.wantSw || cpu != c.wantCPU || rss != c.rss {
			t.Errorf("%s: verdicts %v %v %v; want %v %v %v", c.name, sw, cpu, rss, c.wantSw, c.wantCPU, c.rss)
		}
	}
}
