// Command sniwatcher is a stand-in StatusNotifierWatcher for the desktop
// smoke test: it owns org.kde.StatusNotifierWatcher on the session bus, so
// that mcptray finds a tray host and fyne.io/systray registers its icon, and
// prints each registration on stdout. It draws nothing: no tray host is
// packaged for Debian, and the smoke drives the menu over dbusmenu itself.
//
//	sniwatcher      (in a D-Bus session; prints "ready" once it owns the name)
//
// It ends on SIGINT or SIGTERM. Items are never dropped when their program
// goes: one smoke run has one item.
package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
	"github.com/godbus/dbus/v5/prop"
)

const (
	name  = "org.kde.StatusNotifierWatcher"
	iface = "org.kde.StatusNotifierWatcher"
	path  = dbus.ObjectPath("/StatusNotifierWatcher")
)

// watcher is the org.kde.StatusNotifierWatcher object.
type watcher struct {
	conn  *dbus.Conn
	props *prop.Properties
	mu    sync.Mutex
	items []string
}

// RegisterStatusNotifierItem records an item. service is a bus name, or,
// as fyne.io/systray sends it, an object path on the caller's connection.
func (w *watcher) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	id := service
	if strings.HasPrefix(service, "/") {
		id = string(sender) + service
	}
	w.mu.Lock()
	w.items = append(w.items, id)
	items := append([]string(nil), w.items...)
	w.mu.Unlock()
	w.props.SetMust(iface, "RegisteredStatusNotifierItems", items)
	if err := w.conn.Emit(path, iface+".StatusNotifierItemRegistered", id); err != nil {
		fmt.Fprintf(os.Stderr, "sniwatcher: announcing %s: %v\n", id, err)
	}
	fmt.Printf("RegisterStatusNotifierItem %s\n", id)
	return nil
}

// RegisterStatusNotifierHost records a host; this watcher claims one from
// the start, so items believe they are shown.
func (w *watcher) RegisterStatusNotifierHost(sender dbus.Sender, service string) *dbus.Error {
	fmt.Printf("RegisterStatusNotifierHost %s (%s)\n", service, sender)
	return nil
}

const introspection = `<interface name="org.kde.StatusNotifierWatcher">
  <method name="RegisterStatusNotifierItem"><arg name="service" type="s" direction="in"/></method>
  <method name="RegisterStatusNotifierHost"><arg name="service" type="s" direction="in"/></method>
  <property name="RegisteredStatusNotifierItems" type="as" access="read"/>
  <property name="IsStatusNotifierHostRegistered" type="b" access="read"/>
  <property name="ProtocolVersion" type="i" access="read"/>
  <signal name="StatusNotifierItemRegistered"><arg type="s"/></signal>
  <signal name="StatusNotifierItemUnregistered"><arg type="s"/></signal>
  <signal name="StatusNotifierHostRegistered"/>
</interface>`

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "sniwatcher: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return fmt.Errorf("connecting to the session bus: %w", err)
	}
	defer conn.Close()
	w := &watcher{conn: conn}
	if err := conn.Export(w, path, iface); err != nil {
		return fmt.Errorf("exporting the watcher: %w", err)
	}
	w.props, err = prop.Export(conn, path, prop.Map{iface: {
		"RegisteredStatusNotifierItems":  {Value: []string{}, Emit: prop.EmitTrue},
		"IsStatusNotifierHostRegistered": {Value: true, Emit: prop.EmitTrue},
		"ProtocolVersion":                {Value: int32(0), Emit: prop.EmitTrue},
	}})
	if err != nil {
		return fmt.Errorf("exporting the watcher's properties: %w", err)
	}
	var node introspect.Node
	if err := xml.Unmarshal([]byte("<node>"+introspection+"</node>"), &node); err != nil {
		return fmt.Errorf("reading the introspection data: %w", err)
	}
	node.Name = string(path)
	node.Interfaces = append(node.Interfaces, introspect.IntrospectData, prop.IntrospectData)
	if err := conn.Export(introspect.NewIntrospectable(&node), path, "org.freedesktop.DBus.Introspectable"); err != nil {
		return fmt.Errorf("exporting the introspection data: %w", err)
	}
	reply, err := conn.RequestName(name, dbus.NameFlagDoNotQueue)
	if err != nil {
		return fmt.Errorf("asking for %s: %w", name, err)
	}
	if reply != dbus.RequestNameReplyPrimaryOwner {
		return fmt.Errorf("%s is taken: another tray host runs on this bus", name)
	}
	fmt.Println("ready")
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
	return nil
}
