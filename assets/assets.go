// Package assets holds mcptray's icons, embedded in the binary. They are
// drawn by gen.go (`go generate ./assets`).
package assets

import (
	_ "embed"

	"fyne.io/fyne/v2"
)

//go:generate go run gen.go

var (
	//go:embed icon.png
	iconPNG []byte
	//go:embed tray-serving.png
	servingPNG []byte
	//go:embed tray-paused.png
	pausedPNG []byte
	//go:embed tray-attention.png
	attentionPNG []byte
	//go:embed tray-error.png
	errorPNG []byte
)

// Icons: the app's, and the tray's for each state.
var (
	Icon          = fyne.NewStaticResource("icon.png", iconPNG)
	TrayServing   = fyne.NewStaticResource("tray-serving.png", servingPNG)
	TrayPaused    = fyne.NewStaticResource("tray-paused.png", pausedPNG)
	TrayAttention = fyne.NewStaticResource("tray-attention.png", attentionPNG)
	TrayError     = fyne.NewStaticResource("tray-error.png", errorPNG)
)
