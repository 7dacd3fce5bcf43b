// Command asktime measures how long a desktop question takes to show: from
// the AI app's tools/call of a tool that asks for an approval (its
// Asker.Ask follows within the server's handling of it) to the approval's
// window being shown on the X display, with no window process of
// mcptray's running before it. It answers each (Deny, from the keyboard),
// waits until the window process has ended, and asks again; then it kills
// the window process with SIGKILL while an approval waits, and measures
// how long the AI app waits for its answer ("nobody answered"). It is part
// of `make bench`, through scripts/bench-tray.sh, which runs it under Xvfb
// in a private D-Bus session with a tray host; it prints each figure with
// its target and PASS/FAIL.
//
//	asktime -mcptray BIN [-baseline BIN] [-n 10]
//
// -baseline measures another mcptray the same way, beside it (an earlier
// build, whose question windows opened in the serving process).
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/bench"
	"github.com/mcptray/mcptray/internal/paths"
)

// Targets of the issue: a question shows within a second (median), and a
// question whose window process was killed is answered within a second.
const (
	showTarget   = time.Second
	answerTarget = time.Second
	// patience bounds each wait for something that takes well under it.
	patience = 30 * time.Second
	// pollEvery is how often the display is looked at: the figures are
	// this coarse.
	pollEvery = 5 * time.Millisecond
)

func main() {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		slog.Error("asktime", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("asktime", flag.ContinueOnError)
	bin := fs.String("mcptray", "", "the desktop mcptray binary")
	base := fs.String("baseline", "", "another mcptray binary to measure beside it (optional)")
	n := fs.Int("n", 10, "questions to time")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *bin == "" {
		return errors.New("-mcptray is required")
	}
	strict := os.Getenv("BENCH_STRICT") == "1"
	fmt.Printf("==> time to a question: %d approvals, from the AI app's tools/call to the window shown, no window process before each\n", *n)
	ours, err := measure(ctx, *bin, *n, true)
	if err != nil {
		return fmt.Errorf("mcptray: %w", err)
	}
	ok := report("mcptray", ours, true)
	if *base != "" {
		b, err := measure(ctx, *base, *n, false)
		if err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
		report("baseline "+filepath.Base(*base), b, false)
	}
	if !ok && strict {
		return errors.New("a question figure missed its target (BENCH_STRICT=1)")
	}
	return nil
}

// figures are one app's times.
type figures struct {
	shown []time.Duration
	// killed is how long the AI app waited once the window process was
	// killed, and what it was told.
	killed     time.Duration
	killedText string
}

// report prints f; verdicts only where targets apply. It says whether
// every target was met.
func report(name string, f figures, verdicts bool) bool {
	s := slices.Clone(f.shown)
	slices.Sort(s)
	med := s[len(s)/2]
	word := func(ok bool) string {
		if !verdicts {
			return "    "
		}
		if ok {
			return "PASS"
		}
		return "FAIL"
	}
	showOK := med <= showTarget
	fmt.Printf("%s %s: a question shows %s after the call (median of %d; fastest %s, slowest %s; target ≤ %s)\n",
		word(showOK), name, ms(med), len(s), ms(s[0]), ms(s[len(s)-1]), ms(showTarget))
	if f.killedText == "" {
		return showOK
	}
	killOK := f.killed <= answerTarget && strings.Contains(f.killedText, "Nobody at the computer answered")
	fmt.Printf("%s %s: the window process killed during an approval, the AI app is answered %s later: %q (target ≤ %s)\n",
		word(killOK), name, ms(f.killed), f.killedText, ms(answerTarget))
	return showOK && killOK
}

// measure starts bin with the starter catalog, times n approvals, and
// (windowProcess: its questions show in a window process) kills one.
func measure(ctx context.Context, bin string, n int, windowProcess bool) (figures, error) {
	app, err := start(ctx, bin)
	if err != nil {
		return figures{}, err
	}
	defer app.stop()
	var f figures
	for i := range n {
		d, err := app.timeQuestion(ctx, windowProcess)
		if err != nil {
			return f, fmt.Errorf("question %d: %w", i+1, err)
		}
		f.shown = append(f.shown, d)
	}
	if windowProcess {
		if f.killed, f.killedText, err = app.killDuringQuestion(ctx); err != nil {
			return f, fmt.Errorf("killing the window process: %w", err)
		}
	}
	return f, nil
}

// app is a running desktop mcptray and an AI app's session on it.
type app struct {
	cmd *exec.Cmd
	cs  *mcp.ClientSession
	dir string
}

// start starts the desktop app on a new database with the starter catalog
// and connects to it as an AI app with a token of its own.
func start(ctx context.Context, bin string) (*app, error) {
	dir, err := os.MkdirTemp("", "asktime-")
	if err != nil {
		return nil, err
	}
	a := &app{dir: dir}
	db := filepath.Join(dir, "mcptray.db")
	starter, err := bench.StarterFile(dir)
	if err != nil {
		return nil, err
	}
	if out, err := exec.CommandContext(ctx, bin, "import", starter, "--db", db).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("import: %w: %s", err, out)
	}
	out, err := exec.CommandContext(ctx, bin, "token", "create", "asktime", "--db", db).Output()
	if err != nil {
		return nil, fmt.Errorf("token create: %w", err)
	}
	token := strings.TrimSpace(string(out))
	// The desktop app publishes where the shim looks (the config folder
	// scripts/bench-tray.sh made for this run).
	endpoint, err := paths.EndpointFile()
	if err != nil {
		return nil, err
	}
	log, err := os.Create(filepath.Join(dir, "app.log"))
	if err != nil {
		return nil, err
	}
	defer log.Close()
	a.cmd = exec.Command(bin, "--db", db, "--addr", "127.0.0.1:0")
	a.cmd.Stdout, a.cmd.Stderr = log, log
	if err := a.cmd.Start(); err != nil {
		return nil, err
	}
	var url string
	if err := until(ctx, "the endpoint file", func() bool {
		ep, err := paths.ReadEndpoint(endpoint)
		url = ep.URL
		return err == nil && ep.PID == a.cmd.Process.Pid
	}); err != nil {
		a.stop()
		return nil, a.failed(err)
	}
	if a.cs, err = bench.Connect(ctx, url, bench.NewHTTPClient(token), bench.Legacy); err != nil {
		a.stop()
		return nil, a.failed(err)
	}
	return a, nil
}

// failed is err with the app's log.
func (a *app) failed(err error) error {
	b, _ := os.ReadFile(filepath.Join(a.dir, "app.log"))
	return fmt.Errorf("%w; the app's log:\n%s", err, b)
}

// stop ends the app and removes its folder.
func (a *app) stop() {
	if a.cs != nil {
		_ = a.cs.Close()
	}
	if a.cmd != nil && a.cmd.Process != nil {
		bench.StopProcess(a.cmd, patience)
	}
	_ = os.RemoveAll(a.dir)
}

// call calls clean_downloads (a destructive tool: an approval first); its
// result's text comes on the channel.
func (a *app) call(ctx context.Context) <-chan string {
	out := make(chan string, 1)
	go func() {
		res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: "clean_downloads", Arguments: map[string]any{"days": 30}})
		switch {
		case err != nil:
			out <- "error: " + err.Error()
		case len(res.Content) == 0:
			out <- "no content"
		default:
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				out <- tc.Text
			} else {
				out <- "not text"
			}
		}
	}()
	return out
}

// timeQuestion times one approval from the call to its window shown,
// denies it, and waits until no window process runs.
func (a *app) timeQuestion(ctx context.Context, windowProcess bool) (time.Duration, error) {
	t0 := time.Now()
	result := a.call(ctx)
	win, err := approvalWindow(ctx)
	if err != nil {
		return 0, a.failed(err)
	}
	shown := time.Since(t0)
	if err := bench.Xdotool(ctx, "key", "--window", win, "space"); err != nil { // Deny has the focus
		return 0, err
	}
	select {
	case text := <-result:
		if !strings.Contains(text, "denied") {
			return 0, fmt.Errorf("denied, the call gave %q", text)
		}
	case <-time.After(patience):
		return 0, errors.New("the denied call got no answer")
	}
	if err := until(ctx, "the approval window gone", func() bool { w, _ := visible(ctx); return w == "" }); err != nil {
		return 0, err
	}
	if windowProcess {
		if err := until(ctx, "the window process gone", func() bool { return len(windowProcesses(a.cmd.Process.Pid)) == 0 }); err != nil {
			return 0, err
		}
	}
	return shown, nil
}

// killDuringQuestion kills the window process while an approval waits and
// times the AI app's wait for its answer.
func (a *app) killDuringQuestion(ctx context.Context) (time.Duration, string, error) {
	result := a.call(ctx)
	win, err := approvalWindow(ctx)
	if err != nil {
		return 0, "", err
	}
	out, err := exec.CommandContext(ctx, "xdotool", "getwindowpid", win).Output()
	if err != nil {
		return 0, "", fmt.Errorf("xdotool getwindowpid: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || pid == a.cmd.Process.Pid {
		return 0, "", fmt.Errorf("the approval window's process %q is not a window process", out)
	}
	proc, err := os.FindProcess(pid)
	if err != nil {
		return 0, "", err
	}
	t0 := time.Now()
	if err := proc.Kill(); err != nil { // SIGKILL
		return 0, "", err
	}
	select {
	case text := <-result:
		return time.Since(t0), text, nil
	case <-time.After(patience):
		return 0, "", errors.New("no answer after the window process was killed")
	}
}

// approvalWindow waits for an approval window to show and returns its id.
func approvalWindow(ctx context.Context) (string, error) {
	var win string
	err := until(ctx, "an approval window", func() bool { win, _ = visible(ctx); return win != "" })
	return win, err
}

// visible is the id of a shown approval window, or "".
func visible(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "xdotool", "search", "--onlyvisible", "--name", "^mcptray .*approval").Output()
	w, _, _ := strings.Cut(string(bytes.TrimSpace(out)), "\n")
	return w, err
}

// windowProcesses are the pids of pid's children that are window
// processes (`mcptray window`).
func windowProcesses(pid int) []int {
	kids, _ := bench.Children(pid)
	var out []int
	for kid, cmd := range kids {
		if strings.HasSuffix(cmd, " window") {
			out = append(out, kid)
		}
	}
	return out
}

// until polls cond every pollEvery until it holds, for patience at most.
func until(ctx context.Context, what string, cond func() bool) error {
	deadline := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("no %s after %s", what, patience)
		}
		if err := bench.Sleep(ctx, pollEvery); err != nil {
			return err
		}
	}
	return nil
}

// ms formats d in milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }
