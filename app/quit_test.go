package app

import (
	"testing"

	"fyne.io/fyne/v2"
	"github.com/mcptray/mcptray/app/internal/uitest"
)

// panickyQuit is a Fyne app whose Quit panics as Fyne 2.7's does when its
// settings watcher never started (no inotify instance was left).
type panickyQuit struct{ fyne.App }

func (panickyQuit) Quit() { panic("runtime error: invalid memory address or nil pointer dereference") }

// TestQuitSurvivesAFailedSettingsWatcher: quitting does not crash mcptray
// when Fyne's Quit panics after its driver has stopped.
func TestQuitSurvivesAFailedSettingsWatcher(t *testing.T) {
	u := &UI{app: panickyQuit{uitest.NewTestApp(t)}}
	u.quitApp()
}
