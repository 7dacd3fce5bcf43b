package trayicon

// setBeforeRun is false: Windows' tray takes an icon only once it runs.
const setBeforeRun = false

// native is the icon as Windows' tray loads it: an .ico file (LoadImage
// reads no bare PNG).
func native(png []byte) []byte { return icoOf(png) }
