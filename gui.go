//go:build !headless

package main

import (
	"context"
	"fmt"
	"log/slog"
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
