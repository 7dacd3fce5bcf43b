//go:build !((linux || freebsd || openbsd || netbsd) && !android)

package app

// DetectTrayHost says whether this desktop shows tray icons: Windows'
// notification area and macOS's menu bar always do.
func DetectTrayHost() TrayHost {
	return TrayHost{Present: true, About: "the system's notification area"}
}
