//go:build !windows

package trayicon

// setBeforeRun is true: the StatusNotifierItem (and macOS's menu bar)
// registers with the title and icon set before it runs.
const setBeforeRun = true

// native is the icon as the tray takes it: PNG.
func native(png []byte) []byte { return png }
