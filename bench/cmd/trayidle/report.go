package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcptray/mcptray/bench"
)

// report prints the verdict and what stands behind it, and says whether
// it passed.
func report(w io.Writer, ours, hello bench.TrayIdle, serve *bench.Idle, serveRSS int64) bool {
	swOK, cpuOK := bench.TrayWithin(ours, hello)
	word := "PASS"
	if !swOK || !cpuOK {
		word = "FAIL"
	}
	fmt.Fprintf(w, "%s tray app at rest: %.1f context switches/s, %s CPU per second; "+
		"Fyne hello world with a tray: %.1f/s, %s/s (target: no more than it, within ×%.2f + %.0f/s and + %s/s: ≤ %.1f/s, ≤ %s/s)\n",
		word, ours.SwitchesPerSecond(), ms(ours.CPUPerSecond()),
		hello.SwitchesPerSecond(), ms(hello.CPUPerSecond()),
		bench.TrayIdleFactor, bench.TraySwitchSlack, ms(bench.TrayCPUBound(hello)-time.Duration(float64(hello.CPUPerSecond())*bench.TrayIdleFactor)),
		bench.TraySwitchBound(hello), ms(bench.TrayCPUBound(hello)))
	if !swOK {
		fmt.Fprintln(w, "     ours wakes up more often than the hello world")
	}
	if !cpuOK {
		fmt.Fprintln(w, "     ours takes more CPU than the hello world")
	}
	// What of ours wakes up: the whole difference from the hello world, and
	// how much of it the server alone explains. Per-thread counts cannot
	// say it (Go runs goroutines on any thread), so they are only compared.
	fmt.Fprintf(w, "     ours - hello world: %+.1f/s, %+.2f ms/s", ours.SwitchesPerSecond()-hello.SwitchesPerSecond(),
		float64(ours.CPUPerSecond()-hello.CPUPerSecond())/float64(time.Millisecond))
	if serve != nil {
		fmt.Fprintf(w, "; the server alone (mcptray serve, no desktop): %.1f/s, %s/s, RSS %s",
			serve.SwitchesPerSecond(), ms(serve.CPUPerSecond()), mb(serveRSS))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "     CPU above is from schedstat (ns); in ProcessCost's 10 ms ticks: ours %s/s, hello world %s/s\n",
		ms(ours.Idle.CPUPerSecond()), ms(hello.Idle.CPUPerSecond()))
	fmt.Fprintf(w, "     threads: ours %s\n", threads(ours))
	fmt.Fprintf(w, "              hello %s\n", threads(hello))
	memOK := bench.TrayMemoryWithin(ours, hello)
	word = "PASS"
	if !memOK {
		word = "FAIL"
	}
	fmt.Fprintf(w, "%s tray app at rest, memory: RSS %s, private %s; Fyne hello world with a tray: RSS %s, private %s (target: no more than it)\n",
		word, mb(ours.RSS), mb(ours.Private), mb(hello.RSS), mb(hello.Private))
	diff := func(a, b int64) float64 { return float64(a-b) / (1 << 20) }
	fmt.Fprintf(w, "     ours - hello world: RSS %+.0f MB: %+.0f MB of mapped files (program code and the GL libraries, which the system can drop and read again) "+
		"and %+.0f MB private (heaps and stacks, what task managers show as an app's memory; ours holds mcptray's server, SQLite and catalog, "+
		"and nothing its manager window drew: the window runs in a process of its own, ended with it)\n",
		diff(ours.RSS, hello.RSS), diff(ours.RSS-ours.Private, hello.RSS-hello.Private), diff(ours.Private, hello.Private))
	for _, t := range []struct {
		name string
		t    bench.TrayIdle
	}{{"ours", ours}, {"hello world", hello}} {
		for _, c := range t.t.Children {
			fmt.Fprintf(w, "     %s at rest includes its process %s\n", t.name, c)
		}
	}
	return swOK && cpuOK && memOK
}

// threads says how many threads there are, how many woke, and the busiest.
func threads(t bench.TrayIdle) string {
	var busiest []string
	for _, th := range t.Threads[:min(4, len(t.Threads))] {
		if th.Switches == 0 {
			break
		}
		busiest = append(busiest, th.String(t.Window))
	}
	return fmt.Sprintf("%d, %d woke; busiest: %s", len(t.Threads), t.Woke(), strings.Join(busiest, ", "))
}

// ms formats d in milliseconds.
func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

// mb formats n bytes in megabytes.
func mb(n int64) string {
	return fmt.Sprintf("%.0f MB", float64(n)/(1<<20))
}
