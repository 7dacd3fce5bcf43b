package sessionbus

import (
	"net"
	"path/filepath"
	"testing"
)

func TestFind(t *testing.T) {
	run := t.TempDir()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", run)
	if addr, why := Find(); addr != "" || why == "" {
		t.Errorf("no bus: Find = %q, %q", addr, why)
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "autolaunch:")
	if addr, _ := Find(); addr != "" {
		t.Errorf("autolaunch: is no bus, it starts one: %q", addr)
	}
	ln, err := net.Listen("unix", filepath.Join(run, "bus"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if addr, why := Find(); addr != "unix:path="+escape(filepath.Join(run, "bus")) || why != "" {
		t.Errorf("the runtime dir's bus: %q, %q", addr, why)
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1/bus")
	if addr, _ := Find(); addr != "unix:path=/run/user/1/bus" {
		t.Errorf("the variable: %q", addr)
	}
	if got := escape("/tmp/a b=é"); got != "/tmp/a%20b%3D%C3%A9" {
		t.Errorf("escape = %q", got)
	}
}
