package app

import (
	"log/slog"
	"os"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
	"github.com/emersion/go-autostart"
)

// autostartApp is mcptray's login item: this program, with no arguments.
func autostartApp() *autostart.App {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	return &autostart.App{Name: "mcptray", DisplayName: "mcptray", Exec: []string{exe}}
}

// startAtLogin is the "Start at login" switch, or nil when this program
// cannot name itself.
func startAtLogin() fyne.CanvasObject {
	a := autostartApp()
	if a == nil {
		return nil
	}
	c := widget.NewCheck("Start mcptray at login", nil)
	c.SetChecked(a.IsEnabled())
	c.OnChanged = func(on bool) {
		var err error
		if on {
			err = a.Enable()
		} else {
			err = a.Disable()
		}
		if err != nil {
			slog.Error("start at login", "err", err)
			c.SetChecked(a.IsEnabled())
		}
	}
	return c
}
