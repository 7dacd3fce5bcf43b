package app

import "time"

// trayHostTimeout bounds the look for a tray host at start: a session bus
// that does not answer within it counts as having no tray.
const trayHostTimeout = 2 * time.Second

// TrayHost is what DetectTrayHost found: whether the desktop shows tray
// icons, and how it knows.
type TrayHost struct {
	// Present says whether mcptray's icon can show in a tray.
	Present bool
	// About says what was found, for the log and the diagnostics.
	About string
}
