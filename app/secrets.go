package app

import (
	"context"
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

	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/storage"
)

// secretsSection is the Settings tab's secrets: their names, and setting,
// renaming and deleting them in the server's secret store. Values are
// write-only. The store may be the OS keyring, which can take its time
// (or wait for the person to unlock it), so every call on it runs off the
// GUI thread.
func (s *SettingsTab) secretsSection() fyne.CanvasObject {
	s.secretNote = ui.WrapLabel("")
	if s.sec == nil {
		s.secretNote.SetText("Secrets are unavailable: mcptray could not open its secret store (see its log).")
	} else {
		s.secretNote.SetText(s.sec.Warning())
	}
	add := widget.NewButtonWithIcon("Add / replace", theme.ContentAddIcon(), func() { s.ShowSetSecret("") })
	rename := widget.NewButtonWithIcon("Rename", theme.DocumentCreateIcon(), func() {
		if x, ok := s.secrets.Selected(); ok {
			s.showRenameSecret(x.Name)
		}
	})
	del := widget.NewButtonWithIcon("Delete", theme.DeleteIcon(), func() {
		if x, ok := s.secrets.Selected(); ok {
			confirmThen(s.win, "Delete secret", fmt.Sprintf("Delete the secret %q? Tools using it fail until it is set again.", x.Name),
				func() { s.DeleteSecret(x.Name) })
		}
	})
	var acts []fyne.Disableable
	if s.sec == nil {
		add.Disable()
		rename.Disable()
		del.Disable()
	} else {
		acts = []fyne.Disableable{rename, del}
	}
	s.secrets = ui.NewPickList(func(x storage.SecretInfo) string {
		return fmt.Sprintf("%s  ·  updated %s", x.Name, x.UpdatedAt.Local().Format(time.DateTime))
	}, acts...)
	s.missingBox = container.NewVBox()
	s.missingBox.Hide()
	return container.NewVBox(heading("Secrets"),
		ui.Hint(`Tools use a secret as {{secret "name"}}. Values are write-only: they are never shown again. Changes apply at once.`),
		s.secretNote,
		s.secrets.Content(3, "None yet."),
		container.NewHBox(add, rename, del),
		s.missingBox,
	)
}

// showMissing lists the secrets tools read that have no value, a field
// for each; the same list again leaves the fields as they are, with what
// is typed in them.
func (s *SettingsTab) showMissing(missing []missingSecret) {
	same := slices.EqualFunc(missing, s.missingShown, func(a, b missingSecret) bool {
		return a.name == b.name && slices.Equal(a.tools, b.tools)
	})
	if same {
		return
	}
	s.missingShown = missing
	if len(missing) == 0 {
		s.missingBox.Objects = nil
		s.missingBox.Hide()
		return
	}
	s.missingBox.Objects = []fyne.CanvasObject{
		widget.NewLabelWithStyle("Secrets your tools read that have no value yet", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		ui.Hint("A tool that reads one fails until it has a value. Type each one's value and save it."),
		secretFields(missing, func(name, value string, done func(error)) {
			setSecretIn(&s.background, s.sec, name, value, done)
		}),
	}
	s.missingBox.Show()
	s.missingBox.Refresh()
}

// reloadSecrets lists the secrets anew, in the background.
func (s *SettingsTab) reloadSecrets() { s.changeSecrets(nil) }

// changeSecrets runs change (nil: none) on the secret store, then lists
// the secrets, off the GUI thread; back on it, a failed change shows in a
// dialog and the list shows what the store holds.
func (s *SettingsTab) changeSecrets(change func(ctx context.Context, sec *storage.Secrets) error) {
	sec := s.sec
	if sec == nil {
		s.secrets.Show(nil)
		return
	}
	var (
		changeErr, listErr error
		list               []storage.SecretInfo
		needs              map[string][]string
	)
	var seq uint64
	s.background.Run(func() {
		if change != nil {
			changeErr = change(s.ctx(), sec)
		}
		// Reads finish in any order (a change feed's reload may read
		// before a change and end after it): each is numbered as it
		// starts, after its own change, and one older than the read shown
		// is dropped, so the list never goes back to what the store held.
		seq = s.secretsSeq.Add(1)
		list, listErr = sec.ListSecrets(s.ctx())
		var err error
		if needs, err = readSecretNeeds(s.ctx(), s.st, sec); err != nil {
			slog.Warn("reading the secrets tools need", "err", err)
		}
	}, func() {
		if changeErr != nil {
			dialog.ShowError(changeErr, s.win)
		}
		if listErr != nil {
			slog.Error("listing secrets", "err", listErr)
		}
		s.listing.Lock()
		defer s.listing.Unlock()
		if seq <= s.secretsShown {
			return
		}
		s.secretsShown = seq
		s.secrets.Update(list, func(x storage.SecretInfo) string { return x.Name })
		s.showMissing(missingOf(needs))
	})
}

// ShowSetSecret asks for a secret's name and value (a password entry) and
// stores it; the value is cleared from the entry once the dialog closes.
func (s *SettingsTab) ShowSetSecret(name string) {
	ne := widget.NewEntry()
	ne.SetText(name)
	ne.SetPlaceHolder("e.g. github-token")
	ve := widget.NewPasswordEntry()
	ve.SetPlaceHolder("value (never shown again)")
	d := dialog.NewForm("Set secret", "Save", "Cancel", []*widget.FormItem{
		widget.NewFormItem("Name", ne),
		widget.NewFormItem("Value", ve),
	}, func(ok bool) {
		value := ve.Text
		ve.SetText("")
		if ok {
			s.SetSecret(ne.Text, value)
		}
	}, s.win)
	d.Resize(fyne.NewSize(480, 200))
	d.Show()
}

// SetSecret stores a secret's value, in the background; a failure shows
// in a dialog.
func (s *SettingsTab) SetSecret(name, value string) {
	name = strings.TrimSpace(name)
	s.changeSecrets(func(ctx context.Context, sec *storage.Secrets) error { return sec.SetSecret(ctx, name, value) })
}

// showRenameSecret asks for a secret's new name, then renames it.
func (s *SettingsTab) showRenameSecret(old string) {
	ne := widget.NewEntry()
	ne.SetText(old)
	dialog.ShowForm(fmt.Sprintf("Rename secret %q", old), "Rename", "Cancel", []*widget.FormItem{
		widget.NewFormItem("New name", ne),
	}, func(ok bool) {
		if ok {
			s.RenameSecret(old, ne.Text)
		}
	}, s.win)
}

// RenameSecret renames a secret, keeping its value, in the background; a
// failure shows in a dialog.
func (s *SettingsTab) RenameSecret(old, name string) {
	name = strings.TrimSpace(name)
	s.changeSecrets(func(ctx context.Context, sec *storage.Secrets) error { return sec.RenameSecret(ctx, old, name) })
}

// DeleteSecret deletes a secret, in the background; a failure shows in a
// dialog.
func (s *SettingsTab) DeleteSecret(name string) {
	s.changeSecrets(func(ctx context.Context, sec *storage.Secrets) error { return sec.DeleteSecret(ctx, name) })
}
