//go:build windows

package tray

import (
	"context"

	"golang.org/x/sys/windows/registry"
)

// watchPanel reads whether Windows draws its taskbar light
// (SystemUsesLightTheme), at start and each time the tray's menu opens
// (Windows announces the change only to windows, and the tray has none).
func watchPanel(ctx context.Context, opened <-chan struct{}, set func(dark bool)) {
	set(!taskbarLight())
	for {
		select {
		case <-ctx.Done():
			return
		case <-opened:
			set(!taskbarLight())
		}
	}
}

// taskbarLight says whether the taskbar, where the tray icons are, is
// light; a Windows without the setting (before Windows 10) is dark.
func taskbarLight() bool {
	k, err := registry.OpenKey(registry.CURRENT_USER, `Software\Microsoft\Windows\CurrentVersion\Themes\Personalize`, registry.QUERY_VALUE)
	if err != nil {
		return false
	}
	defer k.Close()
	v, _, err := k.GetIntegerValue("SystemUsesLightTheme")
	return err == nil && v == 1
}
