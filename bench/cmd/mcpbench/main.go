// Command mcpbench compares mcptray's MCP endpoint with a bare go-sdk server
// exposing the same echo tool: tools/call throughput and p50/p99 latency over
// HTTP on 127.0.0.1, in both eras (2026-07-28 stateless, 2025-11-25
// sessions), with 1 and 8 concurrent clients; then the same calls replayed
// in-process straight into each handler (server cost only). It is run by
// scripts/bench.sh (`make bench`).
//
// HTTP load: each server runs in its own child process (this binary with
// -serve NAME), started together at the beginning of the run; the load is
// the official go-sdk client, in this process, identical for every server.
// Within a round the servers take turns in short slices (rotating their
// order), so bursts of outside load on shared cores hit them alike; each
// configuration reports medians over rounds, and ours/bare ratios as the
// median of per-round paired ratios. Server CPU, allocations and bytes per
// call are read from the server process around each slice.
//
// Server only: fresh in-process servers; a tools/call captured from the
// go-sdk client is replayed straight into each handler (see bench.Replay),
// interleaved the same way.
//
// Settings come from the environment (see usage below); every run is bounded
// and the command stops by itself.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/mcptray/mcptray/bench"
	"github.com/mcptray/mcptray/storage"
)

const usage = `usage: mcpbench            run the benchmark (settings from the environment)
       mcpbench -serve NAME [-cpuprofile FILE]   (internal: serve one server)

Environment (defaults in brackets):
  BENCH_DURATION   measured window per configuration and round [3s]
  BENCH_WARMUP     warm-up of each server before each round's window [500ms]
  BENCH_SLICE      the window is run in slices of about this, alternating
                   the servers slice by slice (rotating their order) [250ms]
  BENCH_ROUNDS     rounds; each reports a sample, medians are shown [3]
  BENCH_CONC       concurrent clients, comma-separated [1,8]
  BENCH_ERAS       eras [2026-07-28,2025-11-25]
  BENCH_SERVERS    servers: bare, ours (auth on), ours-noauth, ours-quietlog
                   (auth on, go-sdk INFO logs filtered) [bare,ours,ours-noauth]
  BENCH_TARGET     overhead target over bare, as a fraction [0.10]
  BENCH_HTTP       run the HTTP load: 1 or 0 [1]
  BENCH_REPLAY     run the in-process server-only replay: 1 or 0 [1]
  BENCH_REPLAY_DURATION  its window per configuration and round [1s]
  BENCH_PROFILE_DIR      write each child's CPU profile to DIR/NAME.pprof
  BENCH_STRICT     exit 1 when a verdict is FAIL [0]
  BENCH_MCPTRAY_BIN  an mcptray binary: first measure its idle ` + "`serve`" + ` (context
                   switches and CPU per second), a 10k-tool catalog (import,
                   start, first tools/list page, memory) and ` + "`import-openapi`" + ` of
                   a 10,000-operation spec (time, peak RSS); scripts/bench.sh
                   sets it [unset: skip them]
  BENCH_IDLE_WINDOW  the idle measurement's window [30s: one safety-poll period]
  BENCH_SHIM_BIN   mcptray-stdio: with BENCH_MCPTRAY_BIN, compare calls through
                   it with direct HTTP to the same serve, per era, for
                   BENCH_ROUNDS x BENCH_DURATION each; scripts/bench.sh sets it
                   [unset: skip]
  BENCH_BIG        measure the 10k-tool catalog: 1 or 0 [1]
  BENCH_BIG_UPSTREAM  with BENCH_MCPTRAY_BIN, measure its serve fronting a
                   server (this program, over stdio) of 10,000 tools, all
                   approved: the server's RSS after a client listed them all,
                   every page: 1 or 0 [1]
  BENCH_IMPORT     measure the 10,000-operation OpenAPI import: 1 or 0 [1]
  BENCH_CALLMEM    measure a call of a command printing its whole output cap
                   (16 MiB): the server's peak live heap, in each era: 1 or 0 [1]
  BENCH_UPSTREAM   measure a call through mcptray to a server it fronts over
                   stdio against the same call made directly: 1 or 0 [1]
  BENCH_BASELINE_BIN  the bare server of the HTTP load: bench/baseline built from
                   unpatched go-sdk (scripts/bench.sh sets it) [unset: this
                   program's bench.NewBare, built with the patched go-sdk]
`

// Server names.
const (
	bare       = "bare"
	ours       = "ours"
	oursNoAuth = "ours-noauth"
	// oursQuiet is ours with go-sdk's INFO logging filtered out (a Warn-level
	// Options.Logger): not in the default set; it sizes a suggested fix.
	oursQuiet = "ours-quietlog"
	// callMem serves bench.CallMemTool alone, its live heap followed
	// (bench.HeapPeak); not a server of the load.
	callMem = "callmem"
)

func main() {
	serve := flag.String("serve", "", "internal: serve this server (bare, ours, ours-noauth, ours-quietlog) and print its endpoint")
	cpuprofile := flag.String("cpuprofile", "", "internal: with -serve, write a CPU profile here")
	printBytes := flag.Int("print-bytes", 0, "internal: print this many bytes of text and exit (the command bench.CallMemTool runs)")
	upstreamServe := flag.Bool(strings.TrimPrefix(bench.UpstreamServeFlag, "-"), false, "internal: serve the echo tool over stdio (the upstream server of BENCH_UPSTREAM and BENCH_BIG_UPSTREAM)")
	upstreamTools := flag.Int(strings.TrimPrefix(bench.UpstreamToolsFlag, "-"), 0, "internal: with -upstream-stdio, serve this many generated tools more (BENCH_BIG_UPSTREAM)")
	flag.Usage = func() { fmt.Fprint(os.Stderr, usage) }
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if *printBytes > 0 {
		err = bench.PrintText(os.Stdout, *printBytes)
	} else if *upstreamServe {
		err = bench.ServeUpstream(ctx, *upstreamTools)
	} else if *serve != "" {
		err = child(ctx, *serve, *cpuprofile)
	} else {
		err = run(ctx)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpbench:", err)
		os.Exit(1)
	}
}

// config is the run's settings.
type config struct {
	duration, warmup     time.Duration
	slice                time.Duration
	rounds               int
	conc                 []int
	eras                 []bench.Era
	servers              []string
	target               float64
	http, replay         bool
	replayDuration       time.Duration
	profileDir           string
	strict               bool
	mcptrayBin           string
	shimBin              string
	baselineBin          string
	idleWindow           time.Duration
	big                  bool
	bigUpstream          bool
	specImport           bool
	upstream             bool
	callMem              bool
	gomaxprocs, numCPU   int
	goVersion, goarchStr string
}

func loadConfig() (config, error) {
	c := config{gomaxprocs: runtime.GOMAXPROCS(0), numCPU: runtime.NumCPU(), goVersion: runtime.Version(), goarchStr: runtime.GOOS + "/" + runtime.GOARCH}
	var errs []error
	dur := func(name string, def time.Duration) time.Duration {
		v := os.Getenv(name)
		if v == "" {
			return def
		}
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > 10*time.Minute {
			errs = append(errs, fmt.Errorf("%s=%q: want a duration between 0 and 10m", name, v))
			return def
		}
		return d
	}
	num := func(name string, def, lo, hi int) int {
		v := os.Getenv(name)
		if v == "" {
			return def
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			errs = append(errs, fmt.Errorf("%s=%q: want an integer from %d to %d", name, v, lo, hi))
			return def
		}
		return n
	}
	list := func(name, def string) []string {
		v := os.Getenv(name)
		if v == "" {
			v = def
		}
		var out []string
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
		return out
	}
	c.duration = dur("BENCH_DURATION", 3*time.Second)
	c.warmup = dur("BENCH_WARMUP", 500*time.Millisecond)
	c.slice = dur("BENCH_SLICE", 250*time.Millisecond)
	c.rounds = num("BENCH_ROUNDS", 3, 1, 20)
	for _, s := range list("BENCH_CONC", "1,8") {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 64 {
			errs = append(errs, fmt.Errorf("BENCH_CONC: %q: want 1 to 64", s))
			continue
		}
		c.conc = append(c.conc, n)
	}
	for _, s := range list("BENCH_ERAS", string(bench.Modern)+","+string(bench.Legacy)) {
		if e := bench.Era(s); slices.Contains(bench.Eras, e) {
			c.eras = append(c.eras, e)
		} else {
			errs = append(errs, fmt.Errorf("BENCH_ERAS: %q: want %s or %s", s, bench.Modern, bench.Legacy))
		}
	}
	for _, s := range list("BENCH_SERVERS", bare+","+ours+","+oursNoAuth) {
		if s == bare || s == ours || s == oursNoAuth || s == oursQuiet {
			c.servers = append(c.servers, s)
		} else {
			errs = append(errs, fmt.Errorf("BENCH_SERVERS: %q: want bare, ours, ours-noauth or ours-quietlog", s))
		}
	}
	if !slices.Contains(c.servers, bare) {
		c.servers = append([]string{bare}, c.servers...) // ratios need it
	}
	c.target = 0.10
	if v := os.Getenv("BENCH_TARGET"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || f > 10 {
			errs = append(errs, fmt.Errorf("BENCH_TARGET=%q: want a fraction like 0.10", v))
		} else {
			c.target = f
		}
	}
	c.http = os.Getenv("BENCH_HTTP") != "0"
	c.replay = os.Getenv("BENCH_REPLAY") != "0"
	if !c.http && !c.replay && os.Getenv("BENCH_MCPTRAY_BIN") == "" && os.Getenv("BENCH_CALLMEM") == "0" && os.Getenv("BENCH_UPSTREAM") == "0" {
		errs = append(errs, errors.New("BENCH_HTTP=0, BENCH_REPLAY=0, BENCH_CALLMEM=0, BENCH_UPSTREAM=0 and no BENCH_MCPTRAY_BIN: nothing to run"))
	}
	c.replayDuration = dur("BENCH_REPLAY_DURATION", time.Second)
	c.profileDir = os.Getenv("BENCH_PROFILE_DIR")
	c.strict = os.Getenv("BENCH_STRICT") == "1"
	c.mcptrayBin = os.Getenv("BENCH_MCPTRAY_BIN")
	c.shimBin = os.Getenv("BENCH_SHIM_BIN")
	c.baselineBin = os.Getenv("BENCH_BASELINE_BIN")
	// One period of the server's safety polls (storage.DefaultSafetyPollInterval),
	// so that the window holds one of them wherever it starts.
	c.idleWindow = dur("BENCH_IDLE_WINDOW", storage.DefaultSafetyPollInterval)
	c.big = c.mcptrayBin != "" && os.Getenv("BENCH_BIG") != "0"
	c.bigUpstream = c.mcptrayBin != "" && os.Getenv("BENCH_BIG_UPSTREAM") != "0"
	c.specImport = c.mcptrayBin != "" && os.Getenv("BENCH_IMPORT") != "0"
	c.callMem = os.Getenv("BENCH_CALLMEM") != "0"
	c.upstream = os.Getenv("BENCH_UPSTREAM") != "0"
	return c, errors.Join(errs...)
}

// sample is one measured window of one server in one configuration.
type sample struct {
	rps      float64
	p50, p99 time.Duration
	srv      bench.Stats // server-side counters' growth over the window
	calls    int
	errors   int
	firstErr error
}

func (s sample) perCall(v uint64) float64 { return float64(v) / float64(max(s.calls, 1)) }

// key identifies a configuration.
type key struct {
	era  bench.Era
	conc int
}

// results holds every round's samples by configuration and server.
type results map[key]map[string][]sample

func (r results) add(k key, server string, s sample) {
	if r[k] == nil {
		r[k] = map[string][]sample{}
	}
	r[k][server] = append(r[k][server], s)
}

func run(ctx context.Context) error {
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	perWindow := cfg.warmup + cfg.duration
	var total time.Duration
	if cfg.http {
		total = time.Duration(cfg.rounds*len(cfg.eras)*len(cfg.conc)*len(cfg.servers)) * (perWindow + 300*time.Millisecond)
	}
	if cfg.replay {
		total += time.Duration(cfg.rounds*len(cfg.eras)*len(cfg.conc)*len(cfg.servers)) * (cfg.replayDuration + 300*time.Millisecond)
	}
	if cfg.mcptrayBin != "" {
		total += idleSettle + cfg.idleWindow
	}
	if cfg.big {
		total += 10 * time.Second
	}
	if cfg.bigUpstream {
		total += 20 * time.Second
	}
	if cfg.specImport {
		total += 10 * time.Second // when it meets its target
	}
	if cfg.callMem {
		total += 20 * time.Second
	}
	if cfg.shimBin != "" && cfg.mcptrayBin != "" {
		total += time.Duration(2*len(bench.Eras)*cfg.rounds) * cfg.duration
	}
	fmt.Printf("mcpbench: %s %s, GOMAXPROCS=%d, NumCPU=%d; ~%s expected\n", cfg.goVersion, cfg.goarchStr, cfg.gomaxprocs, cfg.numCPU, total.Round(time.Second))
	// Hard stop: the run ends by itself even if something hangs.
	hardStop := 2*total + 2*time.Minute
	if cfg.specImport {
		hardStop += bench.SpecImportTimeout // an import far past its target still gives its figures
	}
	ctx, cancel := context.WithTimeout(ctx, hardStop)
	defer cancel()

	tmp, err := os.MkdirTemp("", "mcpbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	// Idle first, while this process is quiet too.
	var idle *bench.TrayIdle
	if cfg.mcptrayBin != "" {
		fmt.Printf("==> idle: %s serve, %s window\n", cfg.mcptrayBin, cfg.idleWindow)
		m, err := bench.MeasureServe(ctx, cfg.mcptrayBin, tmp, idleSettle, cfg.idleWindow)
		if err != nil {
			return fmt.Errorf("idle measurement: %w", err)
		}
		idle = &m
	}
	var shimRuns []bench.ShimRun
	if cfg.shimBin != "" && cfg.mcptrayBin != "" {
		fmt.Printf("==> the stdio shim against direct HTTP: %s, %d rounds x %s each, one call at a time\n", cfg.shimBin, cfg.rounds, cfg.duration)
		if shimRuns, err = bench.MeasureShim(ctx, cfg.mcptrayBin, cfg.shimBin, tmp, cfg.duration, cfg.rounds); err != nil {
			return fmt.Errorf("shim measurement: %w", err)
		}
	}
	var big *bench.BigCatalog
	if cfg.big {
		fmt.Printf("==> %d-tool catalog: import, %s serve -catalog, first tools/list page\n", bench.BigCatalogTools, cfg.mcptrayBin)
		m, err := bench.MeasureBigCatalog(ctx, cfg.mcptrayBin, tmp, bench.BigCatalogTools)
		if err != nil {
			return fmt.Errorf("big catalog measurement: %w", err)
		}
		big = &m
	}
	var bigUp *bench.BigUpstream
	if cfg.bigUpstream {
		fmt.Printf("==> %s serve fronting a server of %d tools over stdio, all approved: every tools/list page\n", cfg.mcptrayBin, bench.BigCatalogTools)
		if bigUp, err = measureBigUpstream(ctx, cfg.mcptrayBin, tmp); err != nil {
			return fmt.Errorf("big upstream measurement: %w", err)
		}
	}
	var specImport *bench.SpecImport
	if cfg.specImport {
		fmt.Printf("==> %s import-openapi of a %d-operation spec\n", cfg.mcptrayBin, bench.BigSpecOperations)
		m, err := bench.MeasureSpecImport(ctx, cfg.mcptrayBin, tmp, bench.BigSpecOperations)
		if err != nil {
			return fmt.Errorf("OpenAPI import measurement: %w", err)
		}
		specImport = &m
	}
	var callMems []bench.CallMemory
	if cfg.callMem {
		fmt.Printf("==> a command printing its whole output cap (%d MiB): the server's live heap during the call\n", bench.CallMemCap>>20)
		if callMems, err = measureCallMemory(ctx, tmp); err != nil {
			return fmt.Errorf("call memory measurement: %w", err)
		}
	}

	var upOverhead *bench.UpstreamOverhead
	if cfg.upstream {
		fmt.Println("==> a call through mcptray to a server it fronts over stdio, against the same call made directly (one client)")
		if upOverhead, err = measureUpstream(ctx, tmp); err != nil {
			return fmt.Errorf("upstream overhead measurement: %w", err)
		}
	}

	children := map[string]*serverProc{}
	defer func() {
		for _, c := range children {
			c.stop()
		}
	}()
	var httpRes results
	if cfg.http {
		for _, name := range cfg.servers {
			c, err := startChild(ctx, name, tmp, cfg.profileDir, cfg.baselineBin)
			if err != nil {
				return err
			}
			children[name] = c
		}
		if httpRes, err = runHTTP(ctx, cfg, children); err != nil {
			return err
		}
		for _, c := range children {
			c.stop()
		}
	}

	var replayRes results
	if cfg.replay {
		if replayRes, err = runReplay(ctx, cfg, tmp); err != nil {
			return err
		}
	}

	if httpRes != nil {
		fmt.Println()
		fmt.Printf("== HTTP on 127.0.0.1: go-sdk client (this process) -> server in its own child process; tools/call %q\n", bench.ToolName)
		fmt.Printf("   %d rounds x %s per server (+%s warm-up), servers interleaved in ~%s slices; medians over rounds.\n", cfg.rounds, cfg.duration, cfg.warmup, cfg.slice)
		fmt.Println("   srv CPU/allocs/KB are per call, measured in the server process (getrusage, MemStats) over the window.")
		fmt.Println("   x columns = ours/bare, median of per-round paired ratios (xrps < 1 and xp50 > 1 mean slower).")
		if cfg.baselineBin != "" {
			fmt.Println("   bare is bench/baseline: go-sdk as published, without our patch.")
		} else {
			fmt.Println("   bare is built into mcpbench, so with the patched go-sdk (BENCH_BASELINE_BIN unset).")
		}
		fmt.Println()
		printTable(httpRes, cfg, true)
	}

	if replayRes != nil {
		fmt.Println()
		fmt.Println("== Server only, in-process: the go-sdk client's captured tools/call replayed straight into each handler")
		fmt.Printf("   (no network, no client); %d rounds x %s per server, interleaved in ~%s slices; conc N = N goroutines,\n", cfg.rounds, cfg.replayDuration, cfg.slice)
		fmt.Println("   each on its own session. CPU/allocs/KB are per call, for the whole process.")
		fmt.Println("   bare here is built into this program, so with the patched go-sdk (docs/go-sdk-patch.md).")
		fmt.Println()
		printTable(replayRes, cfg, false)
	}

	fmt.Println()
	fail := false
	for _, k := range keys(httpRes, cfg) {
		for _, name := range cfg.servers {
			if name == bare {
				continue
			}
			v, ok := verdict(httpRes, k, name, cfg.target)
			fmt.Println(v)
			fail = fail || !ok
			if name == ours && cfg.baselineBin != "" {
				// Only against the published go-sdk: the targets are what
				// our work per call costs next to it.
				v, ok := perCallVerdict(httpRes, k, name)
				fmt.Println(v)
				fail = fail || !ok
			}
		}
	}
	if idle != nil {
		v, ok := idleVerdicts(*idle)
		fmt.Print(v)
		fail = fail || !ok
	}
	if big != nil {
		v, ok := bigVerdicts(*big)
		fmt.Print(v)
		fail = fail || !ok
	}
	if bigUp != nil {
		v, ok := bigUpstreamVerdict(*bigUp)
		fmt.Println(v)
		fail = fail || !ok
	}
	if specImport != nil {
		v, ok := specImportVerdicts(*specImport)
		fmt.Print(v)
		fail = fail || !ok
	}
	for _, r := range shimRuns {
		v, ok := shimVerdict(r)
		fmt.Print(v)
		fail = fail || !ok
	}
	for _, m := range callMems {
		v, ok := callMemVerdict(m)
		fmt.Println(v)
		fail = fail || !ok
	}
	if upOverhead != nil {
		v, ok := upstreamVerdict(*upOverhead)
		fmt.Println(v)
		fail = fail || !ok
	}
	if replayRes != nil {
		for _, k := range keys(replayRes, cfg) {
			for _, name := range cfg.servers {
				if name == bare {
					continue
				}
				fmt.Println(replayLine(replayRes, k, name))
			}
		}
	}
	for _, name := range cfg.servers {
		if c := children[name]; c != nil {
			if n, sample := c.stderrSummary(); n > 0 {
				per := ""
				if m := c.modern.Load(); m > 0 {
					per = fmt.Sprintf(", %.1f per 2026-07-28 request", float64(n)/float64(m))
				}
				fmt.Printf("note: the %s server process wrote %d lines to stderr%s; e.g. %s\n", name, n, per, strings.Join(sample, " | "))
			}
		}
	}
	if fail && cfg.strict {
		return errors.New("overhead target missed (BENCH_STRICT=1)")
	}
	return nil
}

// idleSettle is how long the idle server runs before its window starts:
// start-up work (migrations, the first catalog load) is not idling.
const idleSettle = 5 * time.Second

// idleVerdicts prints the idle figures against their targets, one line
// each, and reports whether both are met. The CPU time is schedstat's, in
// nanoseconds, where the process's own count is in 10 ms ticks: over 20 s
// one tick is 0.5 ms/s, half the target.
func idleVerdicts(m bench.TrayIdle) (string, bool) {
	sw, cpu := m.SwitchesPerSecond(), m.CPUPerSecond()
	swOK, cpuOK := sw <= bench.IdleSwitchesTarget, cpu <= bench.IdleCPUTarget
	return fmt.Sprintf("%s idle serve: %.2f context switches/s over %s (target <= %.0f/s)\n%s idle serve: %s CPU per second (target <= %s)\n",
		passFail(swOK), sw, m.Window.Round(time.Second), bench.IdleSwitchesTarget,
		passFail(cpuOK), cpu, bench.IdleCPUTarget), swOK && cpuOK
}

// bigVerdicts prints the big-catalog figures against their targets, one
// line each (the start time has no target of its own), and reports whether
// all are met.
func bigVerdicts(m bench.BigCatalog) (string, bool) {
	importOK, pageOK, rssOK := m.Import <= bench.ImportTarget, m.FirstPage <= bench.FirstPageTarget, m.RSS <= bench.BigRSSTarget
	listedOK := m.ListedRSS <= bench.BigListedRSSTarget
	return fmt.Sprintf("%s %d tools: import %s (target <= %s)\n%s %d tools: first tools/list page %s after listening (target <= %s); serve started in %s\n%s %d tools: server RSS %d MB after it (target <= %d MB)\n%s %d tools: server RSS %d MB after a client listed them all, %d pages (target <= %d MB)\n",
		passFail(importOK), m.Tools, fmtDur(m.Import), bench.ImportTarget,
		passFail(pageOK), m.Tools, fmtDur(m.FirstPage), bench.FirstPageTarget, fmtDur(m.Start),
		passFail(rssOK), m.Tools, m.RSS>>20, bench.BigRSSTarget>>20,
		passFail(listedOK), m.Tools, m.ListedRSS>>20, m.Pages, bench.BigListedRSSTarget>>20), importOK && pageOK && rssOK && listedOK
}

// measureBigUpstream runs this program as the fronted server of many
// tools.
func measureBigUpstream(ctx context.Context, mcptray, tmp string) (*bench.BigUpstream, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	m, err := bench.MeasureBigUpstream(ctx, mcptray, tmp, []string{self}, bench.BigCatalogTools)
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// bigUpstreamVerdict is mcptray's memory after listing a fronted server's
// tools against the own tools' target.
func bigUpstreamVerdict(m bench.BigUpstream) (string, bool) {
	ok := m.ListedRSS <= bench.BigListedRSSTarget
	return fmt.Sprintf("%s %d upstream tools: server RSS %d MB after a client listed them all, %d pages (target <= %d MB)",
		passFail(ok), m.Tools, m.ListedRSS>>20, m.Pages, bench.BigListedRSSTarget>>20), ok
}

// specImportVerdicts prints the OpenAPI import's time and peak memory
// against their targets, one line each, and reports whether both are met.
func specImportVerdicts(m bench.SpecImport) (string, bool) {
	timeOK := !m.TimedOut && m.Time <= bench.SpecImportTarget
	took := fmt.Sprintf("%.2f s", m.Time.Seconds())
	if m.CPU > 0 {
		took += fmt.Sprintf(" (%.1f s of CPU)", m.CPU.Seconds())
	}
	// Unfinished, its peak so far says little.
	rssOK := !m.TimedOut && m.PeakRSS <= bench.SpecImportRSSTarget
	rss, rssWord := fmt.Sprintf("%d MB", m.PeakRSS>>20), passFail(rssOK)
	switch {
	case m.TimedOut:
		took = fmt.Sprintf("killed unfinished after %.0f s (%.1f s of CPU)", m.Time.Seconds(), m.CPU.Seconds())
		rss += " when killed"
	case m.PeakRSS == 0:
		rss, rssWord, rssOK = "not measured on this system", "SKIP", true
	}
	return fmt.Sprintf("%s import-openapi %d operations (%.1f MB spec): %s (target <= %.0f s)\n%s import-openapi %d operations: peak RSS %s (target <= %d MB)\n",
		passFail(timeOK), m.Operations, float64(m.SpecBytes)/(1<<20), took, bench.SpecImportTarget.Seconds(),
		rssWord, m.Operations, rss, bench.SpecImportRSSTarget>>20), timeOK && rssOK
}

// measureCallMemory starts the callmem server in a child process (its heap
// is then its own, the client's copies apart) and measures one call in
// each era.
func measureCallMemory(ctx context.Context, tmp string) ([]bench.CallMemory, error) {
	c, err := startChild(ctx, callMem, tmp, "", "")
	if err != nil {
		return nil, err
	}
	defer c.stop()
	var out []bench.CallMemory
	for _, era := range bench.Eras {
		m, err := bench.MeasureCallMemory(ctx, c.url, c.token, c.heapURL, era)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", era, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// callMemVerdict is one era's call memory against its target, with what
// the call allocated in all (no target: garbage the collector takes back)
// and how many of the collections during the call had their live heap
// read.
func callMemVerdict(m bench.CallMemory) (string, bool) {
	x := m.Multiple()
	ok := x <= bench.CallMemTarget
	return fmt.Sprintf("%s call memory %s: a command printing its %d MiB output cap: the server's live heap grew %.2fx the cap at its peak (target <= %.0fx); %.1fx allocated; %s, %d of %d collections read",
		passFail(ok), m.Era, bench.CallMemCap>>20, x, bench.CallMemTarget, m.AllocatedMultiple(), fmtDur(m.Duration), m.Heap.Seen, m.Heap.Cycles), ok
}

// upstreamCalls is how many calls each way the upstream measure times.
const upstreamCalls = 2000

// measureUpstream runs this program as the upstream server.
func measureUpstream(ctx context.Context, tmp string) (*bench.UpstreamOverhead, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(tmp, "upstream-")
	if err != nil {
		return nil, err
	}
	m, err := bench.MeasureUpstreamOverhead(ctx, dir, []string{self, bench.UpstreamServeFlag}, upstreamCalls,
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// upstreamVerdict is the upstream overhead against its target.
func upstreamVerdict(m bench.UpstreamOverhead) (string, bool) {
	ok := m.Overhead() <= bench.UpstreamOverheadTarget
	return fmt.Sprintf("%s upstream overhead: p50 of a call through mcptray (HTTP, then stdio to the server) %s, direct over stdio %s: +%s (target <= %s; %d calls each way)",
		passFail(ok), fmtDur(m.Through), fmtDur(m.Direct), fmtDur(m.Overhead()), fmtDur(bench.UpstreamOverheadTarget), m.Calls), ok
}

// passFail is a verdict's word.
func passFail(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// runHTTP runs every round of the HTTP load against the child servers.
func runHTTP(ctx context.Context, cfg config, children map[string]*serverProc) (results, error) {
	res := results{}
	for round := range cfg.rounds {
		for _, era := range cfg.eras {
			for _, conc := range cfg.conc {
				runners := make([]runner, 0, len(cfg.servers))
				var closers []func()
				for _, name := range cfg.servers {
					r, closeFn, err := httpRunner(ctx, children[name], era, conc)
					if closeFn != nil {
						closers = append(closers, closeFn)
					}
					if err != nil {
						for _, f := range closers {
							f()
						}
						return nil, fmt.Errorf("%s %s c=%d: %w", name, era, conc, err)
					}
					runners = append(runners, r)
				}
				samples, err := interleave(ctx, runners, cfg.warmup, cfg.duration, cfg.slice, round)
				for _, f := range closers {
					f()
				}
				if err != nil {
					return nil, fmt.Errorf("%s c=%d: %w", era, conc, err)
				}
				for _, name := range cfg.servers {
					res.add(key{era, conc}, name, samples[name])
					progress(round, cfg.rounds, "http", era, conc, name, samples[name])
				}
			}
		}
	}
	return res, nil
}

// httpRunner opens conc go-sdk client sessions on a child server, each
// checked with a first call.
func httpRunner(ctx context.Context, c *serverProc, era bench.Era, conc int) (runner, func(), error) {
	hc := bench.NewHTTPClient(c.token)
	var sessions []interface{ Close() error }
	closeAll := func() {
		for _, cs := range sessions {
			_ = cs.Close()
		}
		hc.CloseIdleConnections()
	}
	r := runner{name: c.name, stats: func() (bench.Stats, error) { return c.stats(ctx) }}
	for range conc {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		cs, err := bench.Connect(cctx, c.url, hc, era)
		cancel()
		if err != nil {
			return r, closeAll, err
		}
		sessions = append(sessions, cs)
		if err := bench.CallEcho(ctx, cs); err != nil {
			return r, closeAll, fmt.Errorf("first call: %w", err)
		}
		if era == bench.Modern {
			c.modern.Add(2) // server/discover and the first call
		}
		r.calls = append(r.calls, func(ctx context.Context) error {
			if era == bench.Modern {
				c.modern.Add(1)
			}
			return bench.CallEcho(ctx, cs)
		})
	}
	return r, closeAll, nil
}

// runner is one server's load: its workers' call functions, and how to
// read the server process's counters.
type runner struct {
	name  string
	calls []func(context.Context) error
	stats func() (bench.Stats, error)
}

// interleave warms each runner up, then measures them for window each, in
// alternating slices of about slice: every slice runs each runner once, in
// an order rotated by slice and round, so bursts of outside load on the
// shared cores hit every server alike. Each slice is a bounded Load.
func interleave(ctx context.Context, runners []runner, warmup, window, slice time.Duration, round int) (map[string]sample, error) {
	for _, r := range runners {
		if w := bench.Load(ctx, r.calls, bench.LoadOptions{Duration: warmup}); w.Calls == 0 {
			return nil, fmt.Errorf("%s: warm-up: %w", r.name, w.FirstErr)
		}
	}
	n := max(1, int((window+slice/2)/slice))
	per := window / time.Duration(n)
	acc := make([]bench.Result, len(runners))
	srv := make([]bench.Stats, len(runners))
	for i := range n {
		for j := range runners {
			k := (i + j + round) % len(runners)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			var before, after bench.Stats
			var statErr error
			snap := func(into *bench.Stats) func() {
				return func() {
					s, err := runners[k].stats()
					*into = s
					statErr = errors.Join(statErr, err)
				}
			}
			res := bench.Load(ctx, runners[k].calls, bench.LoadOptions{Duration: per, OnStart: snap(&before), OnEnd: snap(&after)})
			if statErr != nil {
				return nil, fmt.Errorf("%s: reading server stats: %w", runners[k].name, statErr)
			}
			acc[k].Merge(res)
			srv[k] = srv[k].Add(after.Sub(before))
		}
	}
	out := map[string]sample{}
	for k, r := range runners {
		a := acc[k]
		if a.Calls == 0 {
			return nil, fmt.Errorf("%s: %w", r.name, a.FirstErr)
		}
		out[r.name] = sample{rps: a.RPS(), p50: a.Percentile(0.50), p99: a.Percentile(0.99), srv: srv[k],
			calls: a.Calls, errors: a.Errors, firstErr: a.FirstErr}
	}
	return out, nil
}

func progress(round, rounds int, kind string, era bench.Era, conc int, name string, s sample) {
	fmt.Fprintf(os.Stderr, "round %d/%d %-6s %s c=%d %-11s %7.0f rps  p50 %-8s p99 %-8s",
		round+1, rounds, kind, era, conc, name, s.rps, fmtDur(s.p50), fmtDur(s.p99))
	if s.errors > 0 {
		fmt.Fprintf(os.Stderr, "  %d ERRORS: %v", s.errors, s.firstErr)
	}
	fmt.Fprintln(os.Stderr)
}

// runReplay measures each server's handler in this process, without
// network or client: fresh in-process servers, N captured sessions each.
func runReplay(ctx context.Context, cfg config, tmp string) (results, error) {
	// Like the children (product default: slog.Default() on stderr), but into
	// a file, so go-sdk's per-request INFO lines cost the same here.
	logf, err := os.Create(filepath.Join(tmp, "replay.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	logger := slog.New(slog.NewTextHandler(logf, nil))
	handlers := map[string]http.Handler{}
	tokens := map[string]string{}
	for _, name := range cfg.servers {
		switch name {
		case bare:
			handlers[name] = bench.NewBare()
		default:
			dir := filepath.Join(tmp, "replay-"+name)
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, err
			}
			l := logger
			if name == oursQuiet {
				l = slog.New(slog.NewTextHandler(logf, &slog.HandlerOptions{Level: slog.LevelWarn}))
			}
			o, err := bench.NewOurs(ctx, dir, name != oursNoAuth, l)
			if err != nil {
				return nil, err
			}
			defer o.Close()
			handlers[name], tokens[name] = o.Handler, o.Token
		}
	}
	res := results{}
	for _, era := range cfg.eras {
		for _, conc := range cfg.conc {
			replays := map[string][]*bench.Replay{}
			for _, name := range cfg.servers {
				for range conc {
					r, err := bench.Capture(ctx, handlers[name], tokens[name], era)
					if err != nil {
						return nil, fmt.Errorf("replay %s %s: %w", name, era, err)
					}
					defer r.Close()
					replays[name] = append(replays[name], r)
				}
			}
			runners := make([]runner, len(cfg.servers))
			for i, name := range cfg.servers {
				runners[i] = runner{name: name, stats: func() (bench.Stats, error) { return bench.ReadStats(), nil }}
				for _, r := range replays[name] {
					runners[i].calls = append(runners[i].calls, func(context.Context) error { return r.Call() })
				}
			}
			for round := range cfg.rounds {
				runtime.GC()
				samples, err := interleave(ctx, runners, min(cfg.warmup, 300*time.Millisecond), cfg.replayDuration, cfg.slice, round)
				if err != nil {
					return nil, fmt.Errorf("replay %s c=%d: %w", era, conc, err)
				}
				for _, name := range cfg.servers {
					res.add(key{era, conc}, name, samples[name])
					progress(round, cfg.rounds, "replay", era, conc, name, samples[name])
				}
			}
		}
	}
	return res, nil
}

// keys lists the configurations in display order.
func keys(r results, cfg config) []key {
	var out []key
	for _, era := range cfg.eras {
		for _, conc := range cfg.conc {
			if _, ok := r[key{era, conc}]; ok {
				out = append(out, key{era, conc})
			}
		}
	}
	return out
}

// agg is a server's medians in one configuration, with its ratios to bare.
type agg struct {
	rps, p50, p99, cpu, allocs, kb float64
	errors                         int
	xrps, xp50, xp99, xcpu         float64
	xrpsLo, xrpsHi                 float64
}

func aggregate(r results, k key, name string) agg {
	ss := r[k][name]
	var a agg
	a.rps = median(ss, func(s sample) float64 { return s.rps })
	a.p50 = median(ss, func(s sample) float64 { return float64(s.p50) })
	a.p99 = median(ss, func(s sample) float64 { return float64(s.p99) })
	a.cpu = median(ss, func(s sample) float64 { return s.perCall(uint64(s.srv.CPU)) })
	a.allocs = median(ss, func(s sample) float64 { return s.perCall(s.srv.Mallocs) })
	a.kb = median(ss, func(s sample) float64 { return s.perCall(s.srv.Bytes) / 1024 })
	for _, s := range ss {
		a.errors += s.errors
	}
	base := r[k][bare]
	n := min(len(ss), len(base))
	var xr, xp50, xp99, xcpu []float64
	for i := range n {
		s, b := ss[i], base[i]
		xr = append(xr, s.rps/b.rps)
		xp50 = append(xp50, float64(s.p50)/float64(b.p50))
		xp99 = append(xp99, float64(s.p99)/float64(b.p99))
		if b.srv.CPU > 0 {
			xcpu = append(xcpu, s.perCall(uint64(s.srv.CPU))/b.perCall(uint64(b.srv.CPU)))
		}
	}
	a.xrps, a.xp50, a.xp99, a.xcpu = med(xr), med(xp50), med(xp99), med(xcpu)
	if len(xr) > 0 {
		a.xrpsLo, a.xrpsHi = slices.Min(xr), slices.Max(xr)
	}
	return a
}

func printTable(r results, cfg config, isHTTP bool) {
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	cpuCol := "srv CPU/call"
	if !isHTTP {
		cpuCol = "CPU/call"
	}
	fmt.Fprintf(tw, "era\tconc\tserver\trps\tp50\tp99\t%s\tallocs/call\tKB/call\txrps (range)\txp50\txp99\txCPU\terrors\t\n", cpuCol)
	for _, k := range keys(r, cfg) {
		for _, name := range cfg.servers {
			if len(r[k][name]) == 0 {
				continue
			}
			a := aggregate(r, k, name)
			ratios := "\t\t\t\t"
			if name != bare {
				ratios = fmt.Sprintf("%.2f (%.2f-%.2f)\t%.2f\t%.2f\t%.2f\t", a.xrps, a.xrpsLo, a.xrpsHi, a.xp50, a.xp99, a.xcpu)
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%.0f\t%s\t%s\t%s\t%.0f\t%.1f\t%s%d\t\n",
				k.era, k.conc, name, a.rps, fmtDur(time.Duration(a.p50)), fmtDur(time.Duration(a.p99)),
				fmtDur(time.Duration(a.cpu)), a.allocs, a.kb, ratios, a.errors)
		}
	}
	_ = tw.Flush()
}

// verdict judges one configuration end to end against the target: the
// throughput overhead (bare rps / ours rps − 1) and the p50 latency
// overhead must both be within it.
func verdict(r results, k key, name string, target float64) (string, bool) {
	a := aggregate(r, k, name)
	tput := 1/a.xrps - 1
	lat := a.xp50 - 1
	ok := tput <= target && lat <= target && a.errors == 0
	word := "PASS"
	if !ok {
		word = "FAIL"
	}
	note := ""
	if lo, hi := 1/a.xrpsHi-1, 1/a.xrpsLo-1; lo <= target && hi > target {
		note = fmt.Sprintf("; rounds ranged %+.0f%%..%+.0f%%, straddling the target", 100*lo, 100*hi)
	}
	if a.errors > 0 {
		note += fmt.Sprintf("; %d errors", a.errors)
	}
	return fmt.Sprintf("VERDICT http %s c=%d %-11s: throughput overhead %+5.1f%%, p50 overhead %+5.1f%%, server CPU/call %+5.1f%% -> %s (target <= %.0f%%)%s",
		k.era, k.conc, name, 100*tput, 100*lat, 100*(a.xcpu-1), word, 100*target, note), ok
}

// shimVerdict prints one era's shim figures against direct HTTP: the
// median call with its target, and throughput (no target; see
// bench.ShimP50Target). It reports whether the target is met.
func shimVerdict(r bench.ShimRun) (string, bool) {
	ok := r.P50Overhead() <= bench.ShimP50Target
	return fmt.Sprintf("%s shim %s c=1: p50 %s through mcptray-stdio vs %s direct, +%s (target <= +%s)\n     shim %s c=1: %.0f calls/s through mcptray-stdio vs %.0f direct, %.2fx (no target: a connection per request)\n",
		passFail(ok), r.Era, fmtDur(r.ViaShim.Percentile(0.5)), fmtDur(r.Direct.Percentile(0.5)), fmtDur(r.P50Overhead()), fmtDur(bench.ShimP50Target),
		r.Era, r.ViaShim.RPS(), r.Direct.RPS(), r.ThroughputRatio()), ok
}

// perCallVerdict judges one configuration's work per call, measured in the
// server process: memory allocated, and CPU as a fraction of the bare
// server's.
func perCallVerdict(r results, k key, name string) (string, bool) {
	a := aggregate(r, k, name)
	kbOK, cpuOK := a.kb <= bench.CallKBTarget, a.xcpu <= bench.CallCPURatioTarget
	return fmt.Sprintf("%s http %s c=%d %-11s: %.1f KB allocated per call (target <= %.0f KB)\n%s http %s c=%d %-11s: server CPU per call %.2fx the bare go-sdk server's (target <= %.2fx)",
		passFail(kbOK), k.era, k.conc, name, a.kb, bench.CallKBTarget,
		passFail(cpuOK), k.era, k.conc, name, a.xcpu, bench.CallCPURatioTarget), kbOK && cpuOK
}

func replayLine(r results, k key, name string) string {
	a := aggregate(r, k, name)
	return fmt.Sprintf("server-only %s c=%d %-11s: time/call %+5.1f%%, CPU/call %+5.1f%%, allocs/call %.0f vs %.0f (bare)",
		k.era, k.conc, name, 100*(1/a.xrps-1), 100*(a.xcpu-1), a.allocs, aggregate(r, k, bare).allocs)
}

func median(ss []sample, f func(sample) float64) float64 {
	v := make([]float64, len(ss))
	for i, s := range ss {
		v[i] = f(s)
	}
	return med(v)
}

func med(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func fmtDur(d time.Duration) string {
	switch {
	case d <= 0:
		return "-"
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	default:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	}
}

// serverProc is a server running in a child process.
type serverProc struct {
	name       string
	cmd        *exec.Cmd
	stdin      io.WriteCloser
	url        string
	statsURL   string
	heapURL    string
	token      string
	stderrPath string
	stderr     *os.File
	done       chan struct{}
	stopped    bool
	modern     atomic.Int64 // 2026-07-28 requests sent to it, warm-ups and connects included
}

// ready is the line a child prints once it serves.
type ready struct {
	URL   string `json:"url"`
	Stats string `json:"stats"`
	Token string `json:"token"`
	// Heap is the callmem server's bench.HeapPeak.
	Heap string `json:"heap,omitempty"`
}

// startChild starts the server name in a child process: this command with
// -serve, or for bare the baseline program when one is given.
func startChild(ctx context.Context, name, tmp, profileDir, baseline string) (*serverProc, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := []string{"-serve", name}
	if name == bare && baseline != "" {
		exe, args = baseline, nil
	} else if profileDir != "" {
		if err := os.MkdirAll(profileDir, 0o755); err != nil {
			return nil, err
		}
		abs, err := filepath.Abs(filepath.Join(profileDir, name+".pprof"))
		if err != nil {
			return nil, err
		}
		args = append(args, "-cpuprofile", abs)
	}
	p := &serverProc{name: name, stderrPath: filepath.Join(tmp, name+".stderr"), done: make(chan struct{})}
	if p.stderr, err = os.Create(p.stderrPath); err != nil {
		return nil, err
	}
	p.cmd = exec.Command(exe, args...)
	p.cmd.Stderr = p.stderr
	p.cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the %s server: %w", name, err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case line, ok := <-lines:
		var r ready
		if !ok || json.Unmarshal([]byte(line), &r) != nil || r.URL == "" {
			p.stop()
			return nil, fmt.Errorf("the %s server did not start (stderr in %s): %q", name, p.stderrPath, line)
		}
		p.url, p.statsURL, p.token, p.heapURL = r.URL, r.Stats, r.Token, r.Heap
	case <-time.After(30 * time.Second):
		p.stop()
		return nil, fmt.Errorf("the %s server did not start within 30s", name)
	case <-ctx.Done():
		p.stop()
		return nil, ctx.Err()
	}
	return p, nil
}

// stats fetches the child's counters.
func (p *serverProc) stats(ctx context.Context) (bench.Stats, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.statsURL, nil)
	if err != nil {
		return bench.Stats{}, err
	}
	resp, err := statsClient.Do(req)
	if err != nil {
		return bench.Stats{}, err
	}
	defer resp.Body.Close()
	var s bench.Stats
	err = json.NewDecoder(resp.Body).Decode(&s)
	return s, err
}

var statsClient = &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: 5 * time.Second}

// stop ends the child: closing its stdin asks it to shut down; it is killed
// (by its own pid) if it has not exited within 10 s.
func (p *serverProc) stop() {
	if p.stopped {
		return
	}
	p.stopped = true
	_ = p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	_ = p.stderr.Close()
}

// stderrSummary counts the lines the child wrote to stderr and returns up
// to three distinct ones, without their timestamps.
func (p *serverProc) stderrSummary() (int, []string) {
	b, err := os.ReadFile(p.stderrPath)
	if err != nil || len(b) == 0 {
		return 0, nil
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	var sample []string
	for _, l := range lines {
		if f := strings.SplitN(l, " ", 3); len(f) == 3 && strings.Count(f[0], "/") == 2 {
			l = f[2] // log package prefix: date time
		}
		if len(sample) < 3 && !slices.Contains(sample, l) {
			sample = append(sample, l)
		}
	}
	return len(lines), sample
}

// child serves one server on 127.0.0.1 until its stdin closes.
func child(ctx context.Context, name, cpuprofile string) error {
	if cpuprofile != "" {
		f, err := os.Create(cpuprofile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer func() { pprof.StopCPUProfile(); _ = f.Close() }()
	}
	var url, token string
	var heap *bench.HeapPeak
	switch name {
	case bare:
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: bench.NewBare(), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			_ = srv.Shutdown(sctx)
		}()
		url = "http://" + ln.Addr().String() + "/mcp"
	case ours, oursNoAuth, oursQuiet:
		dir, err := os.MkdirTemp("", "mcpbench-"+name+"-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		// Logger nil: the product default, slog.Default() on stderr.
		var logger *slog.Logger
		if name == oursQuiet {
			logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		}
		o, err := bench.NewOurs(ctx, dir, name != oursNoAuth, logger)
		if err != nil {
			return err
		}
		// Served by the server's own listener, as users are.
		defer o.Close()
		url, token = o.URL, o.Token
	case callMem:
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		dir, err := os.MkdirTemp("", "mcpbench-"+name+"-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		o, err := bench.NewCallMemServer(ctx, dir, append([]string{exe}, bench.CallMemArgs()...), nil)
		if err != nil {
			return err
		}
		defer o.Close()
		url, token = o.URL, o.Token
		heap = bench.StartHeapPeak()
	default:
		return fmt.Errorf("-serve %q: want bare, ours, ours-noauth, ours-quietlog or callmem", name)
	}
	sln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(bench.ReadStats())
	})
	r := ready{URL: url, Stats: "http://" + sln.Addr().String() + "/stats", Token: token}
	if heap != nil {
		mux.Handle("/heap", heap)
		r.Heap = "http://" + sln.Addr().String() + "/heap"
	}
	stats := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: mux}
	go func() { _ = stats.Serve(sln) }()
	line, _ := json.Marshal(r)
	fmt.Println(string(line))

	eof := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); close(eof) }()
	select {
	case <-eof:
	case <-ctx.Done():
	}
	_ = stats.Close()
	return nil
}
