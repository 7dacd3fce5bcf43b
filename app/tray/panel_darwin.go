//go:build darwin

package tray

import (
	"context"
	"os/exec"
	"strings"
)

// watchPanel reads whether macOS draws its menu bar dark (the global
// AppleInterfaceStyle default is "Dark"), at start and each time the
// tray's menu opens.
func watchPanel(ctx context.Context, opened <-chan struct{}, set func(dark bool)) {
	set(menuBarDark(ctx))
	for {
		select {
		case <-ctx.Done():
			return
		case <-opened:
			set(menuBarDark(ctx))
		}
	}
}

// menuBarDark says whether the menu bar is dark; the default is unset in
// the light appearance.
func menuBarDark(ctx context.Context) bool {
	out, err := exec.CommandContext(ctx, "defaults", "read", "-g", "AppleInterfaceStyle").Output()
	return err == nil && strings.TrimSpace(string(out)) == "Dark"
}
