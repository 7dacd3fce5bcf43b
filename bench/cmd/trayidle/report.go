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
	fmt.Fprintf(w, "%s tray app at rest: %.1f context switches/s, %s CPU per second, RSS %s; "+
		"Fyne hello world with a tray: %.1f/s, %s/s, %s (target: no more than it, within ×%.2f + %.0f/s and + %s/s: ≤ %.1f/s, ≤ %s/s)\n",
		word, ours.SwitchesPerSecond(), ms(ours.CPUPerSecond()), mb(ours.RSS),
		hello.SwitchesPerSecond(), ms(hello.CPUPerSecond()), mb(hello.RSS),
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
	fmt.Fprintln(w, "     RSS has no target: mcptray carries SQLite, the HTTP server, the MCP engine and its catalog, which the hello world has not")
	fmt.Fprintf(w, "     threads: ours %s\n", threads(ours))
	fmt.Fprintf(w, "              hello %s\n", threads(hello))
	return swOK && cpuOK
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
