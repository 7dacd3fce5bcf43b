//go:build !headless

package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/link"
	"github.com/mcptray/mcptray/app/tray"
	"github.com/mcptray/mcptray/app/trayicon"
	"github.com/mcptray/mcptray/clientconfig"
	"github.com/mcptray/mcptray/internal/cli"
	"github.com/mcptray/mcptray/internal/daemon"
	"github.com/mcptray/mcptray/internal/process"
)

// appID is mcptray's application ID (FyneApp.toml, preferences, .desktop).
const appID = "io.github.mcptray.mcptray"

// quitTimeout bounds how long quitting waits for the server to stop.
const quitTimeout = 10 * time.Second

// desktop is the desktop app: this build has one.
func desktop() cli.Desktop { return runDesktop }

// runDesktop runs the desktop app on the server of cfg: the server, its
// tray (app/tray, which draws nothing) and, when something is to be shown,
// the window process (`mcptray window`). With a tray, closing the windows
// leaves the server serving; without one, closing the manager window
// quits. Quit (or ctx ending) stops the server cleanly.
func runDesktop(ctx context.Context, cfg cli.DesktopConfig) error {
	if handled, err := daemon.HandOver(ctx, cfg.Daemon, cfg.Stderr); handled {
		return err
	}
	host := tray.DetectHost()
	asker := tray.NewAsker()
	cfg.Daemon.Asker = asker
	d, err := daemon.Start(ctx, cfg.Daemon)
	if err != nil {
		return err
	}
	var stopOnce sync.Once
	stop := func() {
		// Stopping the server withdraws its questions; never hang on the
		// way out. A second caller waits for the first.
		stopOnce.Do(func() {
			done := make(chan struct{})
			go func() { d.Stop(); close(done) }()
			select {
			case <-done:
			case <-time.After(quitTimeout):
				fmt.Fprintf(cfg.Stderr, "mcptray: stopping the server took more than %v; exiting anyway\n", quitTimeout)
			}
		})
	}
	// The welcome comes once, at the first start of the app, even when a
	// headless server started by the stdio shim seeded the database.
	welcome, err := d.TakeWelcome(ctx)
	if err != nil {
		slog.Warn("whether to show the welcome", "err", err)
	}
	tcfg := tray.Config{Server: d, Upstreams: d, Store: d.Store(), Activity: d.Activity(), Asker: asker, StartWindow: startWindow,
		Host: host, Icon: trayicon.New(), DB: d.DB(), Version: cfg.Daemon.Version, Welcome: welcome, ShowManager: cfg.ShowManager, BeforeQuit: stop}
	if eng := d.Engine(); eng != nil {
		tcfg.Engine = eng
	}
	if sec := d.Secrets(); sec != nil {
		tcfg.Secrets = link.SecretStore{Kind: sec.Backend(), Reason: sec.Reason(), Service: sec.Service(), File: sec.File()}
	}
	if tcfg.ShimPath, err = clientconfig.ShimPath(""); err != nil {
		fmt.Fprintf(cfg.Stderr, "mcptray: %v\n", err)
	}
	t := tray.New(tcfg)
	// A second launch of the app shows this one's window instead.
	d.SetOnShow(func() { t.Open(link.Window{What: link.OpenManager}) })
	defer d.SetOnShow(nil)
	// A newer version starting (after an upgrade) takes over from this one.
	d.SetOnLeave(t.MakeWay)
	defer d.SetOnLeave(nil)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		// Serving failed: say so and quit.
		if err := d.Wait(ctx); err != nil {
			fmt.Fprintf(cfg.Stderr, "mcptray: %v\n", err)
			cancel()
		}
	}()
	t.Run(ctx)
	stop() // done already when the person quit; not when the tray failed
	return nil
}

// startWindow starts `mcptray window`, this program's window process, its
// stdin and stdout the link; what it logs goes where ours does. It is this
// very program (process.Self), even once an upgrade replaced its file:
// the two ends of the link are one version.
func startWindow() (tray.Process, error) {
	exe, err := process.Self()
	if err != nil {
		return tray.Process{}, fmt.Errorf("finding this program: %w", err)
	}
	cmd := exec.Command(exe, cli.WindowCommand)
	if name, err := os.Executable(); err == nil {
		cmd.Args[0] = name // what ps shows, rather than /proc/self/exe
	}
	// Started from the Start menu, a Windows GUI program has no standard
	// error: the window's log then goes nowhere, as ours does.
	if _, err := os.Stderr.Stat(); err == nil {
		cmd.Stderr = os.Stderr
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return tray.Process{}, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return tray.Process{}, err
	}
	if err := cmd.Start(); err != nil {
		return tray.Process{}, fmt.Errorf("starting %s %s: %w", exe, cli.WindowCommand, err)
	}
	return tray.Process{Stdin: in, Stdout: out, Wait: cmd.Wait, Kill: cmd.Process.Kill}, nil
}

// window runs the window process.
func window() cli.Window { return runWindow }

// runWindow is `mcptray window`: the windows the serving mcptray on the
// other end of stdin and stdout asks for.
func runWindow(ctx context.Context, env cli.Env) error {
	// Standard output is the link: nothing else may print there.
	os.Stdout = os.Stderr
	return app.RunWindow(ctx, app.WindowEnv{Link: env.Stdin, Out: env.Stdout, App: newFyneApp(env.Version), Screen: screenArea})
}

// newFyneApp makes the Fyne app of the window process, once GLFW could
// start: without a display (or with one that refuses us) Fyne would only
// log the failure and wait for a main loop that never runs.
func newFyneApp(version string) func() (fyne.App, error) {
	return func() (fyne.App, error) {
		if err := startGLFW(); err != nil {
			// GLFW's own words are in the log, just before.
			slog.Warn("GLFW did not start", "err", err)
			return nil, fmt.Errorf("the display %s cannot be opened", cmp.Or(os.Getenv("WAYLAND_DISPLAY"), os.Getenv("DISPLAY"), "(none named)"))
		}
		// What `fyne package` would embed from FyneApp.toml: the name
		// titles the windows' application ("mcptray", not the reverse-DNS
		// ID) in any build.
		fyneapp.SetMetadata(fyne.AppMetadata{ID: appID, Name: "mcptray", Version: version, Build: 1})
		return fyneapp.NewWithID(appID), nil
	}
}

// startGLFW starts GLFW, or says why it could not. go-gl's Init only logs
// a platform error (no display), and the first call that needs GLFW then
// panics: that call is made here, while the panic can still be told.
func startGLFW() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	if err := glfw.Init(); err != nil {
		return err
	}
	glfw.GetMonitors()
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
