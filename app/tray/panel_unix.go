//go:build (linux || freebsd || openbsd || netbsd) && !android

package tray

import (
	"context"
	"log/slog"

	"github.com/rymdport/portal/settings"
	"github.com/rymdport/portal/settings/appearance"
)

// watchPanel reads the desktop's colour scheme from the XDG desktop
// portal (org.freedesktop.appearance color-scheme), as GNOME, KDE and most
// desktops publish it, and follows its changes. A desktop that states no
// preference, or has no portal, counts as dark. It is only called with a
// tray host, hence with a session bus: it never starts one.
func watchPanel(ctx context.Context, _ <-chan struct{}, set func(dark bool)) {
	scheme, err := appearance.GetColorScheme()
	if err != nil {
		slog.Debug("the desktop's colour scheme is unknown: the tray icon is drawn for a dark panel", "err", err)
	}
	set(scheme != appearance.Light)
	// The listener lives as long as the session bus connection; changes
	// after ctx ended are dropped.
	err = settings.OnSignalSettingChanged(func(c settings.Changed) {
		if c.Namespace != appearance.Namespace || c.Key != "color-scheme" || ctx.Err() != nil {
			return
		}
		if s, err := appearance.ValueToColorScheme(c.Value); err == nil {
			set(s != appearance.Light)
		}
	})
	if err != nil {
		slog.Debug("the tray icon does not follow the desktop's colour scheme", "err", err)
	}
}
