package app

import (
	"runtime"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/clientconfig"
)

// showConnect opens a small window with the exact entry for client c (the
// stdio form, through mcptray-stdio, which needs no token in the file),
// where it goes, a Copy button and how to make the client read it.
func showConnect(a fyne.App, c clientconfig.Client, cfg Config) {
	w := a.NewWindow("Connect " + c.Name)
	snippet, err := clientconfig.Snippet(c, clientconfig.Stdio, clientconfig.Params{Name: "mcptray", ShimPath: cfg.ShimPath})
	text := string(snippet)
	if err != nil {
		text = "error: " + err.Error()
	}
	entry := widget.NewMultiLineEntry()
	entry.SetText(text)
	entry.TextStyle = fyne.TextStyle{Monospace: true}
	entry.SetMinRowsVisible(8)
	paths := clientconfig.Paths(c, clientconfig.LocalEnv(runtime.GOOS))
	where := widget.NewLabel("Add this to " + strings.Join(paths, " or ") + "\n(or run: mcptray config " + c.ID + " --install)")
	where.Wrapping = fyne.TextWrapWord
	restart := widget.NewLabel("Then: " + c.Restart)
	restart.Wrapping = fyne.TextWrapWord
	copied := widget.NewLabel("")
	copyBtn := widget.NewButton("Copy", func() {
		a.Clipboard().SetContent(text)
		copied.SetText("Copied.")
	})
	copyBtn.Importance = widget.HighImportance
	w.SetContent(container.NewBorder(where, container.NewVBox(restart, container.NewHBox(copyBtn, widget.NewButton("Close", w.Close), copied)), nil, nil, entry))
	w.Resize(fyne.NewSize(560, 420))
	w.CenterOnScreen()
	w.Show()
}
