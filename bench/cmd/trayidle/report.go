package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcptray/mcptray/bench"
)

// report prints the verdicts and what stands behind them, and says whether
// every target was met.
// windows are ours's window processes still running at rest.
func report(w io.Writer, host string, ours, hello bench.TrayIdle, windows []string, serve *bench.Idle, serveRSS int64) bool {
	swOK, cpuOK, rssOK := bench.TrayVerdicts(ours)
	ok := swOK && cpuOK && rssOK && len(windows) == 0
	fmt.Fprintf(w, "%s the desktop app at rest (tray host %s), window opened once and closed: %s context switches/s (target ≤ %.0f), "+
		"%s CPU per second (≤ %s), RSS %s (≤ %s), private %s\n",
		verdict(ok), host, verdictOf(swOK, fmt.Sprintf("%.1f", ours.SwitchesPerSecond())), bench.TraySwitchesTarget,
		verdictOf(cpuOK, ms(ours.CPUPerSecond())), ms(bench.TrayCPUTarget),
		verdictOf(rssOK, mb(ours.RSS)), mb(bench.TrayRSSTarget), mb(ours.Private))
	fmt.Fprintf(w, "     beside it, a Fyne hello world with a tray (no target; its main loop wakes 60 times a second): %.1f/s, %s/s, RSS %s, private %s\n",
		hello.SwitchesPerSecond(), ms(hello.CPUPerSecond()), mb(hello.RSS), mb(hello.Private))
	if serve != nil {
		fmt.Fprintf(w, "     the server alone (mcptray serve, no desktop): %.1f/s, %s/s, RSS %s\n",
			serve.SwitchesPerSecond(), ms(serve.CPUPerSecond()), mb(serveRSS))
	}
	fmt.Fprintf(w, "     CPU above is from schedstat (ns); in ProcessCost's 10 ms ticks: ours %s/s, hello world %s/s\n",
		ms(ours.Idle.CPUPerSecond()), ms(hello.Idle.CPUPerSecond()))
	fmt.Fprintf(w, "     threads: ours %s\n", threads(ours))
	fmt.Fprintf(w, "              hello %s\n", threads(hello))
	for _, c := range ours.Children {
		fmt.Fprintf(w, "     ours at rest includes its process %s\n", c)
	}
	if len(windows) > 0 {
		fmt.Fprintf(w, "     FAIL: its window process still runs at rest: %s\n", strings.Join(windows, "; "))
	}
	return ok
}

// verdict is PASS or FAIL.
func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// verdictOf is a figure, marked when it missed its target.
func verdictOf(ok bool, figure string) string {
	if ok {
		return figure
	}
	return figure + " (FAIL)"
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
