package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/app/words"
	"github.com/mcptray/mcptray/internal/winlink"
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/storage"
)

// approvalsSection is Settings ▸ Remembered approvals: the approvals a
// person allowed in an approval window "until mcptray restarts" or "until
// I revoke it", in a table, with Revoke and Revoke all. It follows the
// engine: a new approval, a revoked one, or an edit that makes one stop
// matching its tool shows at once.
type approvalsSection struct {
	eng ApprovalKeeper
	win fyne.Window

	items []record.RememberedApproval
	sel   int // -1: none

	table             *widget.Table
	tableBox          *fyne.Container
	empty, detail     *widget.Label
	revoke, revokeAll *widget.Button
	content           *fyne.Container
	// reloading serializes Reload. On the real driver it runs on the UI
	// goroutine anyway; the test driver runs the change feed's fyne.Do
	// inline, on the feed's goroutine, beside a tap's own Reload.
	reloading sync.Mutex
}

// approvalColumns are the table's columns and their widths.
var approvalColumns = []struct {
	title string
	width float32
}{{"AI app", 130}, {"Tool", 230}, {"Token", 100}, {"Since", 130}, {"Remembered", 110}}

// newApprovalsSection builds the section for the server's approvals eng
// (nil: not serving, nothing to list), in win, following eng and the
// catalog of st until ctx ends (the window is gone) or the server stops.
func newApprovalsSection(ctx context.Context, eng ApprovalKeeper, st *storage.Store, win fyne.Window) *approvalsSection {
	s := &approvalsSection{eng: eng, win: win, sel: -1}
	s.table = widget.NewTableWithHeaders(
		func() (int, int) { return len(s.items), len(approvalColumns) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.TableCellID, o fyne.CanvasObject) {
			if id.Row < len(s.items) {
				o.(*widget.Label).SetText(approvalCell(s.items[id.Row], id.Col))
			}
		})
	s.table.ShowHeaderColumn = false
	s.table.CreateHeader = func() fyne.CanvasObject {
		return widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	s.table.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		if id.Col >= 0 {
			o.(*widget.Label).SetText(approvalColumns[id.Col].title)
		}
	}
	var width float32
	for i, c := range approvalColumns {
		s.table.SetColumnWidth(i, c.width)
		width += c.width + theme.Padding() // and the line between columns
	}
	s.table.OnSelected = func(id widget.TableCellID) { s.choose(id.Row) }
	s.table.OnUnselected = func(widget.TableCellID) { s.choose(-1) }
	// Over the table, the wheel scrolls the page while every row shows.
	row := widget.NewLabel("").MinSize().Height + theme.Padding()
	table := ui.PassWheel(s.table, func() bool { return float32(len(s.items)+1)*row <= s.table.Size().Height })
	s.tableBox = container.NewGridWrap(fyne.NewSize(width, 140), table)

	s.empty = ui.WrapLabel(`None. When you answer an approval with "Allow until mcptray restarts" or "Allow until I revoke it", it is listed here.`)
	s.detail = ui.WrapLabel("")
	s.revoke = widget.NewButtonWithIcon("Revoke", theme.DeleteIcon(), s.revokeSelected)
	s.revokeAll = widget.NewButtonWithIcon("Revoke all", theme.DeleteIcon(), s.confirmRevokeAll)
	s.content = container.NewVBox(
		heading("Remembered approvals"),
		ui.Hint("AI apps you let run a tool without asking again. Each applies to one app (its token and the name it gives), one tool, and the tool as it was when you allowed it: once the tool is changed, the app is asked again. Revoking applies at once."),
		// The buttons under the list, what is selected told under them:
		// selecting a row must not move Revoke from under the pointer.
		s.empty, s.tableBox,
		container.NewHBox(s.revoke, s.revokeAll),
		s.detail,
	)
	s.Reload()
	s.follow(ctx, st)
	return s
}

// Content is the section's content.
func (s *approvalsSection) Content() fyne.CanvasObject { return s.content }

// follow reloads the list on every change of a remembered approval and
// every catalog change (an edited tool stops matching), until ctx ends or
// the server stops.
func (s *approvalsSection) follow(ctx context.Context, st *storage.Store) {
	if s.eng == nil {
		return
	}
	ctx, stop := context.WithCancel(ctx)
	approvals := s.eng.SubscribeApprovals(ctx)
	var catalog <-chan struct{}
	if st != nil {
		catalog = st.Changes(ctx)
	}
	go func() {
		defer stop()
		for {
			// Either closes as ctx ends or the server stops: nothing to
			// follow then.
			select {
			case _, ok := <-approvals:
				if !ok {
					return
				}
			case _, ok := <-catalog:
				if !ok {
					return
				}
			}
			fyne.Do(s.Reload)
		}
	}()
}

// Reload lists the remembered approvals anew, none selected.
func (s *approvalsSection) Reload() {
	s.reloading.Lock()
	defer s.reloading.Unlock()
	var items []record.RememberedApproval
	if s.eng != nil {
		var err error
		if items, err = s.eng.RememberedApprovals(context.Background()); err != nil {
			// The serving process ending (Quit) ends the change feed, whose
			// last reload meets it gone: this window is closing too.
			if !errors.Is(err, winlink.ErrClosed) {
				slog.Error("listing the remembered approvals", "err", err)
			}
			s.empty.SetText("Could not read the remembered approvals: " + err.Error())
			items = nil
		}
	}
	s.items = items
	s.table.UnselectAll()
	s.choose(-1)
	if len(items) == 0 {
		s.tableBox.Hide()
		s.empty.Show()
		s.revokeAll.Disable()
	} else {
		s.tableBox.Show()
		s.empty.Hide()
		s.revokeAll.Enable()
	}
	s.table.Refresh()
	s.content.Refresh() // lay out again what was shown or hidden
}

// choose selects row i (-1: none), saying in full what it allows:
// a table cell cuts long names short.
func (s *approvalsSection) choose(i int) {
	defer s.content.Refresh() // lay out again what was shown or hidden
	if i < 0 || i >= len(s.items) {
		s.sel = -1
		s.revoke.Disable()
		s.detail.SetText("")
		s.detail.Hide()
		return
	}
	s.sel = i
	s.revoke.Enable()
	s.detail.SetText(approvalSentence(s.items[i]))
	s.detail.Show()
}

// revokeSelected revokes the selected approval: the next such call asks.
func (s *approvalsSection) revokeSelected() {
	if s.sel < 0 {
		return
	}
	a := s.items[s.sel]
	if err := s.eng.ForgetApproval(context.Background(), a.ApprovalKey); err != nil {
		dialog.ShowError(fmt.Errorf("could not revoke the approval: %w", err), s.win)
	}
	s.Reload()
}

// confirmRevokeAll asks, then revokes every remembered approval.
func (s *approvalsSection) confirmRevokeAll() {
	n := len(s.items)
	d := dialog.NewConfirm("Revoke all remembered approvals?",
		fmt.Sprintf("The AI apps are asked again the next time they run these tools (%s).", words.Count(n, "approval", "approvals")),
		func(ok bool) {
			if !ok {
				return
			}
			if err := s.eng.ForgetAllApprovals(context.Background()); err != nil {
				dialog.ShowError(fmt.Errorf("could not revoke every approval: %w", err), s.win)
			}
			s.Reload()
		}, s.win)
	d.SetConfirmText("Revoke all")
	d.SetDismissText("Cancel")
	d.SetConfirmImportance(widget.DangerImportance)
	d.Show()
}

// approvalCell is the text of column col of a's row.
func approvalCell(a record.RememberedApproval, col int) string {
	switch col {
	case 0:
		return a.Client
	case 1:
		// The title alone: the selected row's sentence names both.
		t := cmp.Or(a.ToolTitle, a.Tool)
		if !a.Matches {
			t += " — changed"
		}
		return t
	case 2:
		if a.Token == "" {
			return "none"
		}
		return a.Token
	case 3:
		return a.Since.Local().Format("2006-01-02 15:04")
	}
	if a.UntilRevoked {
		return "until revoked"
	}
	return "until restart"
}

// approvalSentence says in full what a allows.
func approvalSentence(a record.RememberedApproval) string {
	who := a.Client
	if a.Token != "" {
		who += " (token " + a.Token + ")"
	}
	tool := fmt.Sprintf("%q", a.Tool)
	if a.ToolTitle != "" && a.ToolTitle != a.Tool {
		tool = fmt.Sprintf("%q (%s)", a.ToolTitle, a.Tool)
	}
	until := "until mcptray restarts"
	if a.UntilRevoked {
		until = "until you revoke it"
	}
	since := a.Since.Local().Format(time.DateTime)
	if !a.Matches {
		return fmt.Sprintf("%s was allowed to run %s without asking on %s, but the tool has been changed, renamed or deleted since: %s is asked again. Revoke this to tidy the list.", who, tool, since, a.Client)
	}
	return fmt.Sprintf("%s may run %s without asking, %s (allowed on %s).", who, tool, until, since)
}
