//go:build !headless

// Command trayhello is the smallest Fyne app with a system tray, measured
// beside mcptray in `make bench`'s "desktop app at rest" figure
// (bench/cmd/trayidle), for scale: what a tray app that runs Fyne's main
// loop costs at rest. Like mcptray with a tray host, it shows one window (a
// label), and closing that window hides it while the app keeps running in
// the tray, with an icon and a menu of one item (Show) plus Fyne's own Quit.
//
// Ctrl+W hides the window, as File ▸ Close window does in mcptray, so that the
// benchmark closes both the same way (xdotool key ctrl+w; without a window
// manager there is no close button to press). It uses the Fyne version of
// the project's go.mod, and only mcptray's icon from the project. Like
// gui.go it is left out of `-tags headless` builds, which have no Fyne.
//
//	trayhello     (ends on Quit in the tray menu, SIGINT or SIGTERM)
package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/assets"
)

func main() {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	a := app.NewWithID("io.github.mcptray.trayhello")
	w := a.NewWindow("trayhello")
	w.SetContent(widget.NewLabel("Hello from the tray"))
	// Closing keeps the app in the tray, as mcptray does with a tray host.
	w.SetCloseIntercept(w.Hide)
	w.Canvas().AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyW, Modifier: fyne.KeyModifierShortcutDefault},
		func(fyne.Shortcut) { w.Hide() })
	desk, ok := a.(desktop.App)
	if !ok {
		slog.Error("trayhello: this Fyne driver has no system tray")
		os.Exit(1)
	}
	// mcptray's own icon (a static PNG), so both send the tray host the same
	// image; the package holds nothing else that runs.
	icon := fyne.NewStaticResource("icon.png", assets.IconPNG)
	a.SetIcon(icon)
	desk.SetSystemTrayIcon(icon)
	desk.SetSystemTrayMenu(fyne.NewMenu("trayhello", fyne.NewMenuItem("Show", w.Show)))
	// SIGINT/SIGTERM quit cleanly, so the benchmark can end it like mcptray.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, func() { fyne.Do(a.Quit) })
	slog.Info("trayhello: showing its window; closing it (Ctrl+W) leaves it in the tray")
	w.ShowAndRun()
}
