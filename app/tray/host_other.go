//go:build !((linux || freebsd || openbsd || netbsd) && !android)

package tray

// DetectHost says whether this desktop shows tray icons: Windows'
// notification area and macOS's menu bar always do.
func DetectHost() Host {
	return Host{Present: true, About: "the system's notification area"}
}
