// Command trayidle measures the mcptray desktop app at rest, its window
// opened once and closed and the app living in the tray, and prints the
// figures with their targets and PASS/FAIL: context switches and CPU per
// second and RSS of the serving process (bench.TrayVerdicts), with a Fyne
// hello world with a tray (bench/cmd/trayhello) measured beside it for
// scale. It is part of `make bench`, through scripts/bench-tray.sh, which
// runs it under Xvfb in a private D-Bus session, once with each tray host
// (tests/sniwatcher, a stand-in watcher; gtk-sni-tray-standalone, a real
// host drawing the icon and its menu), and a throw-away HOME.
//
//	trayidle -mcptray BIN -hello BIN -host NAME [-settle 5s] [-window 20s] [-serve=true]
//
// mcptray (with --open) and trayhello are started, their windows waited for
// and closed with Ctrl+W (xdotool): mcptray's window process ends with its
// window. Both are left to settle, then measured over the same window with
// bench.MeasurePID while nothing talks to them, and ended with SIGTERM.
// Whatever processes an app still runs at rest count in its memory; a
// window process of mcptray's still running fails the run. With -serve,
// the headless server alone (`mcptray serve`) is measured the same way, to
// tell how much of ours is the server. BENCH_STRICT=1 makes a FAIL exit 1.
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
	"strings"
	"syscall"
	"time"

	"github.com/mcptray/mcptray/bench"
)

func main() {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		slog.Error("trayidle", "err", err)
		os.Exit(1)
	}
}

// config is what the flags say.
type config struct {
	mcptray, hello string
	host           string // the tray host running, for the report
	settle, window time.Duration
	serve, strict  bool
	dir            string // scratch folder: databases, logs
	keepLogs       bool
	// A loaded machine (a CI run beside it) can be slow to map a window or
	// to hide it, and a stuck app must not hang make bench.
	showTimeout     time.Duration
	closeAttempts   int
	closeWaitPerTry time.Duration
	stopGrace       time.Duration
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("trayidle", flag.ContinueOnError)
	cfg := config{showTimeout: 30 * time.Second, closeAttempts: 3, closeWaitPerTry: 3 * time.Second, stopGrace: 10 * time.Second}
	fs.StringVar(&cfg.mcptray, "mcptray", "", "the desktop mcptray binary (built with cgo, not headless)")
	fs.StringVar(&cfg.hello, "hello", "", "the trayhello binary (bench/cmd/trayhello)")
	fs.StringVar(&cfg.host, "host", "a tray host", "the tray host running in the session, named in the report")
	fs.DurationVar(&cfg.settle, "settle", 5*time.Second, "wait after the window closed before measuring")
	fs.DurationVar(&cfg.window, "window", 20*time.Second, "measurement window")
	fs.BoolVar(&cfg.serve, "serve", true, "also measure `mcptray serve` alone (the server's share)")
	fs.BoolVar(&cfg.keepLogs, "keep", false, "keep the scratch folder (apps' logs) and print it")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.mcptray == "" || cfg.hello == "" {
		return errors.New("-mcptray and -hello are required")
	}
	cfg.strict = os.Getenv("BENCH_STRICT") == "1"
	dir, err := os.MkdirTemp("", "trayidle-")
	if err != nil {
		return fmt.Errorf("scratch folder: %w", err)
	}
	cfg.dir = dir
	if cfg.keepLogs {
		fmt.Printf("     logs in %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}

	fmt.Printf("==> the desktop app at rest: Xvfb, tray host %s, window opened and closed; settle %s, then it and a Fyne hello world with a tray over the same %s\n", cfg.host, cfg.settle, cfg.window)
	// --open shows the window at start, as a first start or the tray's Open
	// mcptray would; a --db other than the default gets no welcome dialog,
	// nor the starter catalog a first start serves: it is imported first.
	db := filepath.Join(dir, "mcptray.db")
	if err := importStarter(ctx, cfg.mcptray, db, dir); err != nil {
		return err
	}
	apps := []app{
		{name: "mcptray", bin: cfg.mcptray, title: "mcptray",
			args: []string{"--open", "--db", db, "--addr", "127.0.0.1:0"}},
		{name: "trayhello", bin: cfg.hello, title: "trayhello"},
	}
	for i := range apps {
		if err := startApp(ctx, cfg, &apps[i]); err != nil {
			return err
		}
		defer bench.StopProcess(apps[i].cmd, cfg.stopGrace)
	}
	res, err := measureApps(ctx, cfg, apps)
	if err != nil {
		return err
	}
	ours, hello := res[0], res[1]
	windows := windowProcesses(apps[0].cmd.Process.Pid)
	// The server alone is measured with the desktop apps gone.
	for _, a := range apps {
		bench.StopProcess(a.cmd, cfg.stopGrace)
	}
	var serve *bench.Idle
	var serveRSS int64
	if cfg.serve {
		s, rss, err := measureServe(ctx, cfg)
		if err != nil {
			return err
		}
		serve, serveRSS = &s, rss
	}
	ok := report(os.Stdout, cfg.host, ours, hello, windows, serve, serveRSS)
	if !ok && cfg.strict {
		return errors.New("the desktop app at rest missed a target (BENCH_STRICT=1)")
	}
	return nil
}

// importStarter imports the starter catalog into the database db with
// `mcptray import`.
func importStarter(ctx context.Context, bin, db, dir string) error {
	file, err := bench.StarterFile(dir)
	if err != nil {
		return err
	}
	if out, err := exec.CommandContext(ctx, bin, "import", file, "--db", db).CombinedOutput(); err != nil {
		return fmt.Errorf("mcptray import %s: %w: %s", file, err, out)
	}
	return nil
}

// app is one desktop app to measure.
type app struct {
	name, bin string
	args      []string
	title     string // its window's title
	cmd       *exec.Cmd
	logPath   string
}

// failed is err with a's log, to tell why.
func (a *app) failed(err error) error {
	b, _ := os.ReadFile(a.logPath)
	return fmt.Errorf("%s: %w; its log:\n%s", a.name, err, b)
}

// startApp starts a and closes its window once shown; the caller stops it.
func startApp(ctx context.Context, cfg config, a *app) error {
	a.logPath = filepath.Join(cfg.dir, a.name+".log")
	logf, err := os.Create(a.logPath)
	if err != nil {
		return fmt.Errorf("log of %s: %w", a.name, err)
	}
	defer logf.Close() // the child has its own descriptor
	a.cmd = exec.Command(a.bin, a.args...)
	a.cmd.Stdout, a.cmd.Stderr = logf, logf
	if err := a.cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", a.name, err)
	}
	win, err := waitWindow(ctx, a.title, cfg.showTimeout)
	if err != nil {
		bench.StopProcess(a.cmd, cfg.stopGrace)
		return a.failed(err)
	}
	if err := closeWindow(ctx, cfg, *a, win); err != nil {
		bench.StopProcess(a.cmd, cfg.stopGrace)
		return a.failed(err)
	}
	return nil
}

// measureApps measures the running apps at rest over the same window, so
// that whatever else loads the machine then weighs on each alike (each
// takes about 1% of a core: they hardly compete with one another).
func measureApps(ctx context.Context, cfg config, apps []app) ([]bench.TrayIdle, error) {
	res := make([]bench.TrayIdle, len(apps))
	errs := make([]error, len(apps))
	done := make(chan struct{})
	for i := range apps {
		go func() {
			defer func() { done <- struct{}{} }()
			res[i], errs[i] = bench.MeasurePID(ctx, apps[i].cmd.Process.Pid, cfg.settle, cfg.window)
		}()
	}
	for range apps {
		<-done
	}
	for i := range apps {
		if errs[i] != nil {
			return nil, apps[i].failed(errs[i])
		}
		if visibleWindow(ctx, apps[i].title) != "" {
			return nil, apps[i].failed(errors.New("its window showed again during the measurement"))
		}
	}
	return res, nil
}

// measureServe measures `mcptray serve` at rest on a new database.
func measureServe(ctx context.Context, cfg config) (bench.Idle, int64, error) {
	m, err := bench.MeasureServe(ctx, cfg.mcptray, cfg.dir, cfg.settle, cfg.window)
	if err != nil {
		return bench.Idle{}, 0, fmt.Errorf("mcptray serve at rest: %w", err)
	}
	return m.Idle, m.RSS, nil
}

// windowProcesses are the command lines of pid's window processes
// (`mcptray window`) still running.
func windowProcesses(pid int) []string {
	kids, _ := bench.Children(pid)
	var out []string
	for _, cmd := range kids {
		if strings.HasSuffix(cmd, " window") {
			out = append(out, cmd)
		}
	}
	return out
}

// waitWindow waits until a window titled title is shown and returns its id.
func waitWindow(ctx context.Context, title string, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		if w := visibleWindow(ctx, title); w != "" {
			return w, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("no window %q after %s", title, timeout)
		}
		if err := bench.Sleep(ctx, 100*time.Millisecond); err != nil {
			return "", err
		}
	}
}

// visibleWindow is the id of a shown window titled title, or "".
func visibleWindow(ctx context.Context, title string) string {
	out, _ := exec.CommandContext(ctx, "xdotool", "search", "--onlyvisible", "--name", "^"+title+"$").Output()
	w, _, _ := strings.Cut(string(bytes.TrimSpace(out)), "\n")
	return w
}

// closeWindow closes a's window as a person would, with Ctrl+W (File ▸ Close
// window in mcptray: with a tray host, the window closes and its process
// ends; the hello world hides it), and waits until it is gone. There is no
// window manager, hence no close button.
func closeWindow(ctx context.Context, cfg config, a app, win string) error {
	// Let the first frame be drawn and the dialogs be up, as a person would.
	if err := bench.Sleep(ctx, time.Second); err != nil {
		return err
	}
	for try := 0; try < cfg.closeAttempts; try++ {
		// Sent as a keyboard's keys go, to the window with the focus
		// (XTEST): a key sent to the window's id fails once the window
		// is gone, which mcptray's is before the keys are all up.
		_ = exec.CommandContext(ctx, "xdotool", "windowfocus", "--sync", win).Run()
		if err := bench.Xdotool(ctx, "key", "ctrl+w"); err != nil {
			return err
		}
		deadline := time.Now().Add(cfg.closeWaitPerTry)
		for time.Now().Before(deadline) {
			if visibleWindow(ctx, a.title) == "" {
				return nil
			}
			if err := bench.Sleep(ctx, 100*time.Millisecond); err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("its window stayed shown after %d tries of Ctrl+W", cfg.closeAttempts)
}
