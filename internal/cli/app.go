package cli

import (
	"context"
	"fmt"
	"os"
	"runtime"

	"github.com/mcptray/mcptray/internal/daemon"
)

// appCmd runs mcptray on the user's database: the desktop app when there
// is a display, else the same server headless.
func appCmd(ctx context.Context, args []string, env Env) error {
	fs, db := newFlags("mcptray")
	showManager := fs.Bool("open", false, "open the manager window at start")
	addr := fs.String("addr", "", "listen address; loopback only")
	pos, err := parseFlags(fs, args, env.Stdout)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("unknown command %q", pos[0])}
	}
	if err := checkLoopback(*addr); err != nil {
		return err
	}
	cfg := daemon.Config{DB: *db, Addr: *addr, Version: env.Version, Stderr: env.Stderr}
	switch {
	case env.Desktop == nil:
		fmt.Fprintln(env.Stderr, "mcptray: this mcptray is built without the desktop app (headless): serving as `mcptray serve` does; questions meant for the desktop follow the askPolicy setting (declined unless changed)")
		return serve(ctx, cfg)
	case !hasDisplay():
		fmt.Fprintln(env.Stderr, "mcptray: no display (DISPLAY/WAYLAND_DISPLAY unset): serving headless, as `mcptray serve` does; questions meant for the desktop follow the askPolicy setting (declined unless changed)")
		return serve(ctx, cfg)
	}
	return env.Desktop(ctx, DesktopConfig{Daemon: cfg, ShowManager: *showManager, Stderr: env.Stderr})
}

// hasDisplay says whether a GUI can open here.
func hasDisplay() bool {
	switch runtime.GOOS {
	case "linux", "freebsd", "openbsd", "netbsd":
		return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
	}
	return true
}
