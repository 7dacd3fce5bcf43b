// Package sessionbus finds the D-Bus session bus without starting one.
//
// godbus, asked for the session bus (as go-keyring's Secret Service
// backend and fyne.io/systray ask), runs `dbus-launch` when
// DBUS_SESSION_BUS_ADDRESS is unset and $XDG_RUNTIME_DIR/bus does not
// exist — over SSH, in WSL, CI or on a server — and nothing ever reaps the
// dbus-daemon it starts: every mcptray command would leave one more. So
// mcptray looks first, and talks D-Bus only when a bus is already there.
package sessionbus

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Find returns the address of the running session bus: the
// DBUS_SESSION_BUS_ADDRESS variable, else the socket systemd puts in
// $XDG_RUNTIME_DIR/bus. Without either it returns "" and why, and the
// caller must not connect (that would start a bus).
func Find() (addr, why string) {
	addr = os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	if addr != "" && addr != "autolaunch:" {
		return addr, ""
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		p := filepath.Join(d, "bus")
		if st, err := os.Stat(p); err == nil && st.Mode().Type() == os.ModeSocket {
			return "unix:path=" + escape(p), ""
		}
	}
	return "", "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS unset, no $XDG_RUNTIME_DIR/bus)"
}

// escape escapes a D-Bus address value: bytes other than [-0-9A-Za-z_/.\*]
// become %XX.
func escape(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.IndexByte("-_/.\\*", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}
