package app

import (
	"cmp"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/editor"
	"github.com/mcptray/mcptray/app/tryit"
	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/storage"
)

// tokensSection is the Settings tab's client tokens: the list, and
// creating, restricting and revoking them (changed at once). mcptray's own
// tokens are named under the list, not in it.
func (s *SettingsTab) tokensSection() fyne.CanvasObject {
	create := widget.NewButtonWithIcon("Create token", theme.ContentAddIcon(), s.showCreateToken)
	edit := widget.NewButtonWithIcon("Tools…", theme.DocumentCreateIcon(), func() {
		if t, ok := s.tokens.Selected(); ok {
			s.showTokenTools(t)
		}
	})
	revoke := widget.NewButtonWithIcon("Revoke", theme.DeleteIcon(), func() {
		if t, ok := s.tokens.Selected(); ok {
			confirmThen(s.win, "Revoke token", fmt.Sprintf("Revoke %q? AI apps using it are refused from now on.", t.Name),
				func() { s.RevokeToken(t.Name) })
		}
	})
	s.tokens = ui.NewPickList(tokenLine, edit, revoke)
	return container.NewVBox(
		heading("Client tokens"),
		ui.Hint("Every AI app connecting over HTTP sends a token of its own; revoke one to cut that app off. Changes apply at once."),
		s.tokens.Content(4, "None yet: create one for each AI app you connect over HTTP (tray or Server menu › Connect a client does it for you)."),
		container.NewHBox(create, edit, revoke),
		ui.Hint(fmt.Sprintf("Not listed: the tokens mcptray keeps for itself, %s (Try it) and %s (shared by every AI app started over stdio).",
			tryit.TokenName, editor.ShimTokenName)),
	)
}

// tokenLine is a token's line in the list: its name, the tools it sees,
// when it was made and last used.
func tokenLine(t storage.TokenInfo) string {
	tools := "all tools"
	if t.Tools != nil {
		tools = "tools: " + cmp.Or(strings.Join(t.Tools, ", "), "none")
	}
	used := "never used"
	if t.LastUsedAt != nil {
		used = "last used " + t.LastUsedAt.Local().Format(time.DateTime)
	}
	return fmt.Sprintf("%s  ·  %s  ·  created %s  ·  %s", t.Name, tools, t.CreatedAt.Local().Format(time.DateTime), used)
}

// reloadTokens lists the tokens anew.
func (s *SettingsTab) reloadTokens() {
	ts, err := s.st.ListTokens(s.ctx())
	if err != nil {
		slog.Error("listing tokens", "err", err)
		return
	}
	s.listing.Lock()
	defer s.listing.Unlock()
	s.tokens.Update(slices.DeleteFunc(ts, func(t storage.TokenInfo) bool {
		_, internal := editor.InternalTokens[t.Name]
		return internal
	}), func(t storage.TokenInfo) string { return t.Name })
}

// toolNames are the catalog's tool names.
func (s *SettingsTab) toolNames() []string {
	cat, err := s.st.Catalog(s.ctx())
	if err != nil {
		return nil
	}
	var names []string
	for _, t := range cat.Tools {
		names = append(names, t.Name)
	}
	return names
}

// toolPicker is an "all tools" switch over a tool checklist; get reads
// the choice (nil: all).
func (s *SettingsTab) toolPicker(tools []string) (fyne.CanvasObject, func() []string) {
	group := widget.NewCheckGroup(s.toolNames(), nil)
	all := widget.NewCheck("All tools (including future ones)", func(on bool) {
		if on {
			group.Disable()
		} else {
			group.Enable()
		}
	})
	if tools == nil {
		all.SetChecked(true)
	} else {
		group.SetSelected(tools)
	}
	get := func() []string {
		if all.Checked {
			return nil
		}
		return append([]string{}, group.Selected...)
	}
	return container.NewVBox(all, ui.MinHeight(180, container.NewVScroll(group))), get
}

// showCreateToken asks for a new token's name and tools, then creates it.
func (s *SettingsTab) showCreateToken() {
	name := widget.NewEntry()
	name.SetPlaceHolder("e.g. claude-desktop")
	picker, get := s.toolPicker(nil)
	dialog.ShowForm("Create client token", "Create", "Cancel", []*widget.FormItem{
		widget.NewFormItem("Name", name),
		widget.NewFormItem("Tools it sees", picker),
	}, func(ok bool) {
		if ok {
			s.CreateToken(name.Text, get())
		}
	}, s.win)
}

// CreateToken creates a token and shows its secret, once.
func (s *SettingsTab) CreateToken(name string, tools []string) bool {
	secret, err := s.st.CreateToken(s.ctx(), strings.TrimSpace(name), tools)
	if err != nil {
		dialog.ShowError(err, s.win)
		return false
	}
	s.reloadTokens()
	shown := widget.NewLabel(secret)
	shown.Selectable = true
	copyBtn := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() {
		fyne.CurrentApp().Clipboard().SetContent(secret)
	})
	note := ui.WrapLabel("Copy it now: this is the only time mcptray shows it. AI apps send it as Authorization: Bearer <token>.")
	d := dialog.NewCustom(fmt.Sprintf("Token %q created", name), "Done",
		container.NewVBox(note, container.NewBorder(nil, nil, nil, copyBtn, shown)), s.win)
	d.SetOnClosed(func() { shown.SetText("") })
	d.Resize(fyne.NewSize(620, 200))
	d.Show()
	return true
}

// RevokeToken revokes a token; clients using it are refused at once.
func (s *SettingsTab) RevokeToken(name string) {
	if err := s.st.RevokeToken(s.ctx(), name); err != nil {
		dialog.ShowError(err, s.win)
	}
	s.reloadTokens()
}

// showTokenTools asks which tools token t sees, then stores that.
func (s *SettingsTab) showTokenTools(t storage.TokenInfo) {
	picker, get := s.toolPicker(t.Tools)
	dialog.ShowCustomConfirm(fmt.Sprintf("Tools token %q sees", t.Name), "Save", "Cancel", picker, func(ok bool) {
		if !ok {
			return
		}
		if err := s.st.SetTokenTools(s.ctx(), t.Name, get()); err != nil {
			dialog.ShowError(err, s.win)
		}
		s.reloadTokens()
	}, s.win)
}
