// Package assets holds mcptray's icons, embedded in the binary as PNG
// files, drawn by gen.go (`go generate ./assets`). It imports no GUI
// toolkit: the tray of the serving process shows them through
// fyne.io/systray, the window process through Fyne.
package assets

import (
	"embed"
	"fmt"
)

//go:generate go run gen.go

// IconPNG is the app's icon.
//
//go:embed icon.png
var IconPNG []byte

// TrayState is what the tray icon's badge shows.
type TrayState int

// The tray states.
const (
	TrayServing TrayState = iota
	TrayPaused
	// TrayAttention: a desktop question waits for an answer.
	TrayAttention
	TrayError
)

// trayStateNames name the states in the icons' file names.
var trayStateNames = [...]string{TrayServing: "serving", TrayPaused: "paused", TrayAttention: "attention", TrayError: "error"}

//go:embed tray-*.png
var trayFS embed.FS

// TrayIcon is a tray icon: its file's name and its PNG.
type TrayIcon struct {
	Name string
	PNG  []byte
}

// trayIcons are the tray icons by panel (0 light, 1 dark) and state.
var trayIcons = loadTrayIcons()

func loadTrayIcons() (icons [2][len(trayStateNames)]TrayIcon) {
	for dark, panel := range []string{"light", "dark"} {
		for state, name := range trayStateNames {
			file := fmt.Sprintf("tray-%s-%s.png", panel, name)
			png, err := trayFS.ReadFile(file)
			if err != nil {
				panic(fmt.Sprintf("assets: %s is not embedded: %v", file, err)) // a build without its icons
			}
			icons[dark][state] = TrayIcon{Name: file, PNG: png}
		}
	}
	return icons
}

// Tray is the tray icon for state, drawn for a dark panel (a light glyph)
// or a light one (a dark glyph). An unknown state shows as TrayError.
func Tray(state TrayState, dark bool) TrayIcon {
	if state < 0 || int(state) >= len(trayStateNames) {
		state = TrayError
	}
	panel := 0
	if dark {
		panel = 1
	}
	return trayIcons[panel][state]
}
