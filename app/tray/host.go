package tray

import "time"

// hostTimeout bounds the look for a tray host at start: a session bus
// that does not answer within it counts as having no tray.
const hostTimeout = 2 * time.Second

// Host is what DetectHost found: whether the desktop shows tray
// icons, and how it knows.
type Host struct {
	// Present says whether mcptray's icon can show in a tray.
	Present bool
	// About says what was found, for the log and the diagnostics.
	About string
}
