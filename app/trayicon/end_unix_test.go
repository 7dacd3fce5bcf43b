//go:build (linux || freebsd || openbsd || netbsd) && !android

package trayicon

import (
	"testing"
	"time"

	"github.com/mcptray/mcptray/app/tray"
	"github.com/mcptray/mcptray/assets"
	"github.com/mcptray/mcptray/internal/testserver"
	"github.com/mcptray/mcptray/internal/testutil"
)

// TestChangesAfterTheEndAreDropped: the tray's watcher may change the
// icon or the menu just as Quit ends the tray, whose D-Bus connection is
// then closed; fyne.io/systray's SetIcon panics on a closed connection
// (seen in the smoke: "panic: dbus: connection closed by user", exit
// status 2 at Quit). Here the real tray runs on a D-Bus session bus of the
// test's own, ends, and is changed afterwards: nothing may panic.
func TestChangesAfterTheEndAreDropped(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", testutil.SessionBus(t))

	srv := testserver.Start(t, testserver.Options{})
	items := tray.New(tray.Config{Server: srv.Daemon}).Menu()
	ic := New()
	ready, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		ic.Run("mcptray", assets.IconPNG, func() { ic.Add(items); close(ready) })
	}()
	const patience = time.Minute
	select {
	case <-ready:
	case <-time.After(patience):
		t.Fatal("the tray never ran")
	}
	ic.SetIcon(assets.IconPNG) // while it runs
	ic.Quit()
	select {
	case <-ended:
	case <-time.After(patience):
		t.Fatal("Run did not return after Quit")
	}
	items[0].Label = "Changed after the end"
	ic.SetIcon(assets.IconPNG)
	ic.Sync()
}
