//go:build (linux || freebsd || openbsd || netbsd) && !android

package tray

import (
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/mcptray/mcptray/internal/testutil"
)

func TestDetectHost(t *testing.T) {
	// No bus at all: nothing is started to find one.
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	if h := DetectHost(); h.Present || !strings.Contains(h.About, "no D-Bus session bus") {
		t.Errorf("without a bus: %+v", h)
	}
	// A bus nobody answers on.
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+t.TempDir()+"/nobody")
	if h := DetectHost(); h.Present || !strings.Contains(h.About, "did not answer") {
		t.Errorf("with a dead bus: %+v", h)
	}

	addr := testutil.SessionBus(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	if h := DetectHost(); h.Present || !strings.Contains(h.About, "no org.kde.StatusNotifierWatcher") {
		t.Errorf("a bus without a watcher: %+v", h)
	}
	// A watcher comes (as a tray host's would).
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if reply, err := conn.RequestName(sniWatcher, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("owning %s: %v %v", sniWatcher, reply, err)
	}
	if h := DetectHost(); !h.Present {
		t.Errorf("with a watcher: %+v", h)
	}
}
