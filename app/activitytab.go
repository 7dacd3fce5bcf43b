package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/storage"
)

// ActivityTab is the manager's Activity tab: the activity log, newest first,
// with the details of the selected record.
type ActivityTab struct {
	cfg     Config
	records []storage.ActivityRecord
	list    *widget.List
	detail  *widget.Label
	content fyne.CanvasObject
}

func newActivityTab(cfg Config) *ActivityTab {
	t := &ActivityTab{cfg: cfg}
	t.detail = widget.NewLabel("")
	t.detail.Wrapping = fyne.TextWrapWord
	t.list = widget.NewList(
		func() int { return len(t.records) },
		func() fyne.CanvasObject { return widget.NewLabel("activity") },
		func(id widget.ListItemID, o fyne.CanvasObject) {
			r := t.records[id]
			o.(*widget.Label).SetText(fmt.Sprintf("%s  %-8s  %s %s  %s", r.Time.Local().Format("15:04:05"),
				r.Outcome, r.Method, r.Target, cmpOr(r.Client, "-")))
		},
	)
	t.list.OnSelected = func(id widget.ListItemID) {
		r := t.records[id]
		t.detail.SetText(fmt.Sprintf("%s\nclient %s %s (token %s), era %s\n%s %s → %s in %s\n%s",
			r.Time.Local().Format(time.RFC1123), cmpOr(r.Client, "-"), r.ClientVersion, cmpOr(r.Token, "-"), r.Era,
			r.Method, r.Target, r.Outcome, r.Duration.Round(time.Millisecond), r.Detail))
	}
	refresh := widget.NewButtonWithIcon("Refresh", theme.ViewRefreshIcon(), t.Reload)
	split := container.NewVSplit(t.list, container.NewVScroll(t.detail))
	split.Offset = 0.7
	t.content = container.NewBorder(container.NewHBox(refresh), nil, nil, nil, split)
	return t
}

// Content is the tab's widget tree.
func (t *ActivityTab) Content() fyne.CanvasObject { return t.content }

// Reload reads the newest records again.
func (t *ActivityTab) Reload() {
	recs, err := t.cfg.Store.Activity(context.Background(), storage.ActivityQuery{Limit: 200})
	if err != nil {
		slog.Error("reading the activity log", "err", err)
		return
	}
	t.records = recs
	t.list.Refresh()
}
