package editor

import (
	"context"
	"fmt"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/tryit"
	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/storage"
)

// tokenAccess is the editor's "Visible to tokens" section: which client
// tokens list and call the tool. A token without an allowlist sees every
// tool, so it is shown ticked and fixed; a restricted token gets a box,
// which the tool's save writes into its allowlist.
type tokenAccess struct {
	st   *storage.Store
	box  *fyne.Container
	note *widget.Label
	err  *widget.Label
	// checks are the restricted tokens' boxes, by token name; initial is
	// what they showed when loaded.
	checks  map[string]*widget.Check
	initial map[string]bool
	changed func()
}

func newTokenAccess(st *storage.Store, tool string, changed func()) *tokenAccess {
	a := &tokenAccess{st: st, box: container.NewVBox(), note: ui.Hint(""), err: ui.FieldError(), changed: changed}
	a.load(tool)
	return a
}

// content is the section's widget tree; the editor shows err under it.
func (a *tokenAccess) content() fyne.CanvasObject {
	return container.NewVBox(a.box, a.note)
}

// load lists the tokens as the store has them for the tool named tool
// ("" for a new tool).
func (a *tokenAccess) load(tool string) {
	a.checks, a.initial = map[string]*widget.Check{}, map[string]bool{}
	a.box.Objects = nil
	toks, err := a.st.ListTokens(context.Background())
	if err != nil {
		ui.SetFieldError(a.err, []string{fmt.Sprintf("Could not read the client tokens: %v", err)})
		return
	}
	ui.SetFieldError(a.err, nil)
	// The app's own Try it token sees everything by design; it is no
	// client a person manages.
	toks = slices.DeleteFunc(toks, func(t storage.TokenInfo) bool { return t.Name == tryit.TokenName })
	all := 0
	for _, t := range toks {
		if t.Tools == nil {
			all++
			c := widget.NewCheck(TokenLabel(t.Name)+" — all tools", nil)
			c.SetChecked(true)
			c.Disable()
			a.box.Add(c)
			continue
		}
		on := tool != "" && slices.Contains(t.Tools, tool)
		c := widget.NewCheck(t.Name, func(bool) { a.changed() })
		c.SetChecked(on)
		a.checks[t.Name], a.initial[t.Name] = c, on
		a.box.Add(c)
	}
	switch {
	case len(toks) == 0:
		a.note.SetText("No client tokens yet: create one in Settings to connect an AI app over HTTP; it will see all tools unless you restrict it.")
	case all > 0:
		a.note.SetText("Tokens marked \"all tools\" see every tool, this one included; restrict them in Settings to choose tool by tool.")
	default:
		a.note.SetText("Tick the tokens whose AI apps may list and call this tool.")
	}
	a.box.Refresh()
}

// dirty says whether a box differs from the store.
func (a *tokenAccess) dirty() bool {
	for name, c := range a.checks {
		if c.Checked != a.initial[name] {
			return true
		}
	}
	return false
}

// access is what the person changed: the restricted tokens whose box
// differs from what was loaded. A box left alone says nothing, so an
// allowlist changed in Settings while the editor was open keeps that
// change when the tool is saved.
func (a *tokenAccess) access() storage.ToolAccess {
	out := storage.ToolAccess{}
	for name, c := range a.checks {
		if c.Checked != a.initial[name] {
			out[name] = c.Checked
		}
	}
	return out
}
