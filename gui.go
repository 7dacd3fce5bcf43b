//go:build !headless

package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/tryit"
	"github.com/mcptray/mcptray/clientconfig"
	"github.com/mcptray/mcptray/internal/cli"
	"github.com/mcptray/mcptray/internal/daemon"
)

// appID is mcptray's application ID (FyneApp.toml, preferences, .desktop).
const appID = "io.github.mcptray.mcptray"

// quitTimeout bounds how long quitting waits for the server to stop.
const quitTimeout = 10 * time.Second

// desktop is the desktop app: this build has one.
func desktop() cli.Desktop { return runDesktop }

// runDesktop runs the desktop app on the server of cfg: the tray, the
// manager window and the desktop questions. With a tray, closing the window
// leaves the server serving; without one, closing it quits. Quit (or ctx
// ending) stops the server cleanly.
func runDesktop(ctx context.Context, cfg cli.DesktopConfig) error {
	if handled, err := daemon.HandOver(ctx, cfg.Daemon, cfg.Stderr); handled {
		return err
	}
	// What `fyne package` would embed from FyneApp.toml: the name titles the
	// tray item ("mcptray", not the reverse-DNS ID) in any build.
	fyneapp.SetMetadata(fyne.AppMetadata{ID: appID, Name: "mcptray", Version: cfg.Daemon.Version, Build: 1})
	a := fyneapp.NewWithID(appID)
	asker := app.NewAsker(a)
	asker.Screen = screenArea
	cfg.Daemon.Asker = asker
	d, err := daemon.Start(ctx, cfg.Daemon)
	if err != nil {
		return err
	}
	stopped := false
	defer func() {
		if !stopped {
			d.Stop()
		}
	}()
	// The welcome comes once, at the first start of the app, even when a
	// headless server started by the stdio shim seeded the database.
	welcome, err := d.TakeWelcome(ctx)
	if err != nil {
		slog.Warn("whether to show the welcome", "err", err)
	}
	opts := app.Config{Store: d.Store(), Secrets: d.Secrets(), Engine: d.Engine(), Server: d, DB: d.DB(), Asker: asker,
		Activity: d.Activity(), Version: cfg.Daemon.Version, Welcome: welcome, ShowManager: cfg.ShowManager, BeforeQuit: d.Stop, Screen: screenArea}
	if windowProcess {
		opts.StartWindow = startWindow
	}
	if opts.ShimPath, err = clientconfig.ShimPath(""); err != nil {
		fmt.Fprintf(cfg.Stderr, "mcptray: %v\n", err)
	}
	// Try it follows the server's current URL, so a port changed in the
	// settings needs nothing more.
	if tr, err := tryit.New(d.Store(), d.URL); err != nil {
		slog.Warn("the tool editor's Try it is off", "err", err)
	} else {
		defer tr.Close()
		opts.TryIt = app.TryItTrier(tr, d.Engine())
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		// Serving failed: say so and quit.
		if err := d.Wait(ctx); err != nil {
			fmt.Fprintf(cfg.Stderr, "mcptray: %v\n", err)
			cancel()
		}
	}()
	ui := app.New(a, opts)
	// A second launch of the app shows this one's window instead.
	d.SetOnShow(func() { fyne.Do(ui.OpenManager) })
	ui.Run(ctx)
	d.SetOnShow(nil) // the UI is gone: nothing is left to show
	// The GUI has quit: stop serving, but never hang on the way out.
	stopped = true
	done := make(chan struct{})
	go func() { d.Stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(quitTimeout):
		fmt.Fprintf(cfg.Stderr, "mcptray: stopping the server took more than %v; exiting anyway\n", quitTimeout)
	}
	return nil
}

// screenArea is the usable area (without panels and docks) of the primary
// screen, in pixels; zeros when GLFW cannot tell (Wayland gives no
// positions). It must run on the UI goroutine, as GLFW requires, once the
// app runs: the windows ask it when they are shown.
func screenArea() (width, height int) {
	m := glfw.GetPrimaryMonitor()
	if m == nil {
		return 0, 0
	}
	_, _, width, height = m.GetWorkarea()
	return width, height
}

// windowProcess: with a tray, the manager window opens in a process of
// its own, which ends with the window, so that the process serving all
// day holds nothing the window drew (app/windowprocess.go). Not on macOS,
// where a second process showing a window gets a Dock icon of its own and
// the activation of a separate app, which we cannot try here.
const windowProcess = runtime.GOOS != "darwin"

// startWindow starts `mcptray window`, this program's manager window
// process, its stdin and stdout the link; what it logs goes where ours
// does.
func startWindow() (app.WindowProcess, error) {
	exe, err := os.Executable()
	if err != nil {
		return app.WindowProcess{}, fmt.Errorf("finding this program: %w", err)
	}
	cmd := exec.Command(exe, cli.WindowCommand)
	// Started from the Start menu, a Windows GUI program has no standard
	// error: the window's log then goes nowhere, as ours does.
	if _, err := os.Stderr.Stat(); err == nil {
		cmd.Stderr = os.Stderr
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return app.WindowProcess{}, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return app.WindowProcess{}, err
	}
	if err := cmd.Start(); err != nil {
		return app.WindowProcess{}, fmt.Errorf("starting %s %s: %w", exe, cli.WindowCommand, err)
	}
	return app.WindowProcess{Stdin: in, Stdout: out, Wait: cmd.Wait}, nil
}

// window runs the manager window's own process.
func window() cli.Window { return runWindow }

// runWindow is `mcptray window`: the manager window, on what the serving
// mcptray on the other end of stdin and stdout says.
func runWindow(ctx context.Context, env cli.Env) error {
	// Standard output is the link: nothing else may print there.
	os.Stdout = os.Stderr
	fyneapp.SetMetadata(fyne.AppMetadata{ID: appID, Name: "mcptray", Version: env.Version, Build: 1})
	a := fyneapp.NewWithID(appID)
	return app.RunWindow(ctx, a, app.WindowEnv{Link: env.Stdin, Out: env.Stdout, Screen: screenArea})
}
