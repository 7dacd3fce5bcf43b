package app

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/mcptray/mcptray/storage"
)

// This file holds the secrets tools read that have no value yet — an
// import names them, and a tool reading one fails until it has one: which
// they are, and a field for each, right after an import and in Settings ▸
// Secrets; the tool list and Try it say which tool lacks which.

// missingSecret is a secret tools read that has no value.
type missingSecret struct {
	name string
	// tools are the tools that read it, sorted.
	tools []string
	// holds says what it holds, when an import said (an API key of…).
	holds string
}

// secretNeeds are, by tool, the secrets its templates read that the
// secret store does not list (names: the names it lists).
func secretNeeds(cat *catalog.Catalog, names []string) map[string][]string {
	has := map[string]bool{}
	for _, n := range names {
		has[n] = true
	}
	needs := map[string][]string{}
	for _, t := range cat.Tools {
		for _, s := range actions.ToolSecrets(t) {
			if !has[s] {
				needs[t.Name] = append(needs[t.Name], s)
			}
		}
	}
	return needs
}

// missingOf turns secretNeeds by tool into the secrets missing, by name.
func missingOf(needs map[string][]string) []missingSecret {
	by := map[string][]string{}
	for tool, names := range needs {
		for _, n := range names {
			by[n] = append(by[n], tool)
		}
	}
	var out []missingSecret
	for _, n := range slices.Sorted(maps.Keys(by)) {
		tools := by[n]
		slices.Sort(tools)
		out = append(out, missingSecret{name: n, tools: tools})
	}
	return out
}

// readSecretNeeds reads the catalog and the secrets' names; call it off
// the UI goroutine.
func readSecretNeeds(ctx context.Context, st *storage.Store, sec *storage.Secrets) (map[string][]string, error) {
	cat, err := st.Catalog(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the catalog: %w", err)
	}
	list, err := sec.ListSecrets(ctx)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, x := range list {
		names = append(names, x.Name)
	}
	return secretNeeds(cat, names), nil
}

// needsNote is what a tool's line in the list says when it reads secrets
// with no value, short enough to leave the line its name: the editor's Try
// it and Settings ▸ Secrets name them. "" when it lacks none.
func needsNote(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return "needs a secret"
	}
	return fmt.Sprintf("needs %d secrets", len(names))
}

// secretFields is a field for each missing secret, with its Save: save
// stores a value in the background and calls done with the outcome, on
// the UI goroutine. A secret saved says so in its row.
func secretFields(missing []missingSecret, save func(name, value string, done func(error))) *fyne.Container {
	box := container.NewVBox()
	for _, m := range missing {
		about := "Read by " + strings.Join(m.tools, ", ") + "."
		if m.holds != "" {
			about = "It holds " + m.holds + ". " + about
		}
		value := widget.NewPasswordEntry()
		value.SetPlaceHolder("its value (never shown again)")
		status := ui.WrapLabel("")
		status.Hide()
		var saveBtn *widget.Button
		saveBtn = widget.NewButton("Save", func() {
			v := value.Text
			if strings.TrimSpace(v) == "" {
				status.Importance = widget.DangerImportance
				status.SetText("Type its value first.")
				status.Show()
				return
			}
			saveBtn.Disable()
			save(m.name, v, func(err error) {
				if err != nil {
					saveBtn.Enable()
					status.Importance = widget.DangerImportance
					status.SetText("Not saved: " + err.Error())
					status.Show()
					return
				}
				value.SetText("")
				value.Disable()
				status.Importance = widget.SuccessImportance
				status.SetText("Saved: the tools that read it work now.")
				status.Show()
			})
		})
		value.OnSubmitted = func(string) { saveBtn.OnTapped() }
		name := widget.NewLabelWithStyle(m.name, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		box.Add(container.NewVBox(name, ui.Hint(about), container.NewBorder(nil, nil, nil, saveBtn, value), status))
	}
	return box
}

// setSecretIn stores a secret's value in sec off the UI goroutine, then
// calls done on it; b counts the work.
func setSecretIn(b *ui.Background, sec *storage.Secrets, name, value string, done func(error)) {
	var err error
	b.Run(func() { err = sec.SetSecret(context.Background(), name, value) }, func() { done(err) })
}
