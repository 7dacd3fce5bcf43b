//go:build (linux || freebsd || openbsd || netbsd) && !android

package tray

import (
	"context"
	"fmt"

	"github.com/godbus/dbus/v5"

	"github.com/mcptray/mcptray/internal/sessionbus"
)

// sniWatcher is the D-Bus name of the StatusNotifierWatcher: fyne.io/systray
// registers mcptray's icon with it, and only a desktop whose tray host runs
// one shows the icon.
const sniWatcher = "org.kde.StatusNotifierWatcher"

// DetectHost says whether this desktop shows tray icons: whether the
// session bus has a StatusNotifierWatcher (GNOME only with the AppIndicator
// extension, KDE Plasma, and the bars of some tiling window managers). It
// never starts a bus (godbus would run dbus-launch without an address), and
// gives up after hostTimeout. The answer holds for the whole run: a
// watcher that appears or goes later is not followed.
func DetectHost() Host {
	addr, why := sessionbus.Find()
	if addr == "" {
		return Host{About: why}
	}
	ctx, cancel := context.WithTimeout(context.Background(), hostTimeout)
	defer cancel()
	has, err := nameHasOwner(ctx, addr, sniWatcher)
	switch {
	case err != nil:
		return Host{About: fmt.Sprintf("the D-Bus session bus did not answer: %v", err)}
	case !has:
		return Host{About: "no " + sniWatcher + " on the D-Bus session bus (no tray host)"}
	}
	return Host{Present: true, About: sniWatcher + " on the D-Bus session bus"}
}

// nameHasOwner asks the bus at addr whether someone owns name, on a
// connection of its own that ends with ctx.
func nameHasOwner(ctx context.Context, addr, name string) (bool, error) {
	conn, err := dbus.Dial(addr, dbus.WithContext(ctx))
	if err != nil {
		return false, fmt.Errorf("connecting to %s: %w", addr, err)
	}
	defer conn.Close()
	if err := conn.Auth(nil); err != nil {
		return false, fmt.Errorf("authenticating to the session bus: %w", err)
	}
	if err := conn.Hello(); err != nil {
		return false, fmt.Errorf("greeting the session bus: %w", err)
	}
	var has bool
	if err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, name).Store(&has); err != nil {
		return false, fmt.Errorf("asking who owns %s: %w", name, err)
	}
	return has, nil
}
