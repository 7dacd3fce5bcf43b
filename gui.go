package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/tryit"
)

// appID is mcptray's application ID (FyneApp.toml, preferences, .desktop).
const appID = "io.github.mcptray.mcptray"

// hasDisplay says whether a GUI can open here.
func hasDisplay() bool {
	if runtime.GOOS != "linux" && runtime.GOOS != "freebsd" && runtime.GOOS != "openbsd" && runtime.GOOS != "netbsd" {
		return true
	}
	return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
}

// runGUI runs the desktop app on the server of cfg: the tray, the manager
// window and the desktop questions. Closing the window leaves the server
// serving; Quit (or ctx ending) stops it cleanly.
func runGUI(ctx context.Context, cfg serverConfig, opts app.Config, stderr io.Writer) error {
	if handled, err := handOver(ctx, cfg, stderr); handled {
		return err
	}
	a := fyneapp.NewWithID(appID)
	asker := app.NewAsker(a)
	cfg.asker = asker
	s, err := startServer(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	stopped := false
	defer func() {
		if !stopped {
			s.stop()
		}
	}()
	shim, err := shimPath("")
	if err != nil {
		fmt.Fprintf(stderr, "mcptray: %v\n", err)
	}
	opts.Store, opts.Engine, opts.Server, opts.DB, opts.ShimPath, opts.Asker = s.st, s.eng, s, s.db, shim, asker
	// Try it follows the server's current URL, so a port changed in the
	// settings needs nothing more.
	if tr, err := tryit.New(s.st, s.URL); err != nil {
		slog.Warn("the tool editor's Try it is off", "err", err)
	} else {
		defer tr.Close()
		opts.TryIt = app.TryItTrier(tr, s.eng)
	}
	opts.BeforeQuit = s.stop
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		// Serving failed: say so and quit.
		if err := s.wait(ctx); err != nil {
			fmt.Fprintf(stderr, "mcptray: %v\n", err)
			cancel()
		}
	}()
	ui := app.New(a, opts)
	// A second launch of the app shows this one's window instead.
	s.setOnShow(func() { fyne.Do(ui.OpenManager) })
	ui.Run(ctx)
	s.setOnShow(nil) // the UI is gone: nothing is left to show
	// The GUI has quit: stop serving, but never hang on the way out.
	stopped = true
	done := make(chan struct{})
	go func() { s.stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		fmt.Fprintln(stderr, "mcptray: stopping the server took more than 10 s; exiting anyway")
	}
	return nil
}
