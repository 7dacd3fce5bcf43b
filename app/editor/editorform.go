package editor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/app/words"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// FieldErrors are the red error lines of a form, keyed by the problem
// field path each one shows ("uri", "http.url", "arguments"; "" = general).
type FieldErrors map[string]*widget.Label

// Shown are the error lines a person sees, by key.
func (f FieldErrors) Shown() map[string]string {
	out := map[string]string{}
	for k, l := range f {
		if l.Visible() {
			out[k] = l.Text
		}
	}
	return out
}

func newFieldErrors(keys ...string) FieldErrors {
	f := FieldErrors{"": ui.FieldError()}
	for _, k := range keys {
		f[k] = ui.FieldError()
	}
	return f
}

// keyFor is the error line a problem about field shows on: the line of
// that exact path, else of the longest path containing it
// ("arguments[2].name" → "arguments"), else the general line.
func (f FieldErrors) keyFor(field string) string {
	if _, ok := f[field]; ok {
		return field
	}
	best := ""
	for k := range f {
		if k != "" && len(k) > len(best) && (strings.HasPrefix(field, k+".") || strings.HasPrefix(field, k+"[")) {
			best = k
		}
	}
	return best
}

// show puts every problem on its field's line and clears the other lines;
// word turns a problem into the text its line shows. A line that cannot
// show now (it is in a part of the form that is hidden) gives its problems
// to the general line, so every problem is seen.
func (f FieldErrors) show(ps []catalog.Problem, word func(key string, p catalog.Problem) string, shows func(*widget.Label) bool) {
	by := map[string][]string{}
	for _, p := range ps {
		k := f.keyFor(p.Field)
		if !shows(f[k]) {
			k = ""
		}
		by[k] = append(by[k], word(k, p))
	}
	for k, l := range f {
		ui.SetFieldError(l, by[k])
	}
}

// field is a bold label, the input and its error line, stacked; key ""
// stands for an input whose problems show elsewhere.
func (f FieldErrors) field(label string, obj fyne.CanvasObject, key string) fyne.CanvasObject {
	head := widget.NewLabelWithStyle(label, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	if key == "" {
		return container.NewVBox(head, ui.Input(obj))
	}
	return container.NewVBox(head, ui.Input(obj), f[key])
}

// sub is a plain-labelled input with its error line, inside a field.
func (f FieldErrors) sub(label string, obj fyne.CanvasObject, key string) fyne.CanvasObject {
	return container.NewVBox(widget.NewLabel(label), ui.Input(obj), f[key])
}

// checkNameAsTyped shows on l what is wrong with a tool or prompt name as
// it is typed; an empty name of a new entry is not scolded yet.
func checkNameAsTyped(l *widget.Label, name string, isNew bool) {
	if name == "" && isNew {
		ui.SetFieldError(l, nil)
		return
	}
	if err := catalog.CheckName(name); err != nil {
		ui.SetFieldError(l, []string{err.Error()})
		return
	}
	ui.SetFieldError(l, nil)
}

// titledFields are the name, title and description every editor starts
// with; the hints are their placeholders.
type titledFields struct {
	Name, Title, Description *widget.Entry
}

func newTitledFields(name, title, description string, hints [3]string, descriptionRows int) titledFields {
	f := titledFields{Name: widget.NewEntry(), Title: widget.NewEntry(), Description: widget.NewMultiLineEntry()}
	f.Name.SetPlaceHolder(hints[0])
	f.Name.SetText(name)
	f.Title.SetPlaceHolder(hints[1])
	f.Title.SetText(title)
	f.Description.SetPlaceHolder(hints[2])
	f.Description.Wrapping = fyne.TextWrapWord
	f.Description.SetMinRowsVisible(descriptionRows)
	f.Description.SetText(description)
	return f
}

// withoutField drops the problems about one field.
func withoutField(ps []catalog.Problem, field string) []catalog.Problem {
	return slices.DeleteFunc(ps, func(p catalog.Problem) bool { return p.Field == field })
}

// entryKind is what an editor needs to store one kind of catalog entry.
type entryKind[T any] struct {
	noun string // "resource", for messages
	key  func(T) string
	// keyField is the problem field of the key ("uri"); taken words the
	// problem of a key another entry has, as storage words it when it
	// refuses one.
	keyField string
	taken    func(key string) string
	// load reads the entry stored under a key; an error wrapping
	// storage.ErrNotFound says there is none.
	load     func(*storage.Store, context.Context, string) (T, error)
	validate func(T) []catalog.Problem
	// save stores an entry in place of the one stored under oldKey ("" for
	// a new one), in one storage transaction that also refuses a key
	// another entry has and keeps the stored Disabled flag; it returns the
	// entry as stored.
	save func(st *storage.Store, ctx context.Context, oldKey string, v T) (T, error)
	del  func(*storage.Store, context.Context, string) error
}

// alongside is a part of an editor's form that is no part of its entry
// but is stored with it (the tool editor's "Visible to tokens").
type alongside interface {
	// dirty says whether it differs from what is stored.
	dirty() bool
	// load shows what is stored for the entry stored under key.
	load(key string)
}

// editorCore is the part every catalog editor shares: the Save and Delete
// buttons, the status line, the error lines, the unsaved-changes check,
// and the save flow — check the form, then store the entry through its
// kind in one storage transaction.
type editorCore[T any] struct {
	st      *storage.Store
	kind    *entryKind[T]
	Orig    T
	IsNew   bool
	onSaved func(key string)
	// Confirm asks before deleting; nil deletes at once.
	Confirm func(question string, yes func())
	// read is the entry as the form describes it, with the problems of
	// fields the form itself could not read.
	read func() (T, []catalog.Problem)
	// validate lists the entry's problems: the kind's validation, unless an
	// editor words some of them better itself.
	validate func(T) []catalog.Problem
	// word is the text of a problem on its line; nil is plainWord.
	word func(key string, p catalog.Problem) string
	// cards, when set, shows the problems about a list's items on their
	// cards and returns the others.
	cards func([]catalog.Problem) []catalog.Problem
	// opening, when set, opens the closed parts of the form (Advanced)
	// where some of the problems show.
	opening func([]catalog.Problem)
	// extra, when set, is stored with the entry: Unsaved counts its
	// changes, and a save shows it anew.
	extra alongside
	// changed, when set, follows a save: the form matches what is stored
	// again.
	changed func()

	Errs            FieldErrors
	SaveButton, Del *widget.Button
	Status          *widget.Label
	Scroll          *container.Scroll
	// baseline is the form's reading when it was filled in or last saved:
	// Unsaved compares with it.
	baseline []byte
}

func newEditorCore[T any](st *storage.Store, kind *entryKind[T], orig T, isNew bool, onSaved func(string), errs FieldErrors) *editorCore[T] {
	c := &editorCore[T]{st: st, kind: kind, Orig: orig, IsNew: isNew, onSaved: onSaved, Errs: errs, validate: kind.validate}
	c.SaveButton = widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), func() { c.Save() })
	c.SaveButton.Importance = widget.HighImportance
	c.Del = widget.NewButtonWithIcon("Delete", theme.DeleteIcon(), func() {
		if c.Confirm == nil {
			c.Delete()
			return
		}
		c.Confirm(fmt.Sprintf("Delete the %s %q? Clients stop seeing it at once.", kind.noun, kind.key(c.Orig)), c.Delete)
	})
	if isNew {
		c.Del.Disable() // nothing stored to delete yet; kept in its place
	}
	c.Status = widget.NewLabel("")
	c.Status.Wrapping = fyne.TextWrapWord
	// Made before the form, so that its parts can scroll it (layout fills
	// it in).
	c.Scroll = container.NewVScroll(nil)
	return c
}

// layout frames the form: scrollable, with the status and the buttons
// always visible below it: Delete alone at the left, the status, then an
// editor's own buttons and Save at the right. Every button is there from
// the start (Delete disabled until there is something stored to delete),
// so that none moves under the pointer when the first save enables
// Delete, and the one that destroys is never where a harmless one was.
// However long the form, it asks the window for no more height than that.
func (c *editorCore[T]) layout(form fyne.CanvasObject, buttons ...fyne.CanvasObject) fyne.CanvasObject {
	ui.SetPage(c.Scroll, container.NewPadded(container.NewVBox(c.Errs[""], form)))
	buttons = append(buttons, c.SaveButton)
	return container.NewBorder(nil, container.NewVBox(widget.NewSeparator(),
		container.NewBorder(nil, nil, c.Del, container.NewHBox(buttons...), c.Status)), nil, nil,
		c.Scroll)
}

// formScroll is the form's scroll, for the parts of the form that scroll
// themselves into view.
func (c *editorCore[T]) formScroll() *container.Scroll { return c.Scroll }

// origKey is the key the entry is stored under, "" for a new one.
func (c *editorCore[T]) origKey() string {
	if c.IsNew {
		return ""
	}
	return c.kind.key(c.Orig)
}

// showProblems shows every problem of ps, each once, next to its field or
// on its card, and returns how many it shows.
func (c *editorCore[T]) showProblems(ps []catalog.Problem) int {
	ps = UniqueProblems(ps)
	word := c.word
	if word == nil {
		word = plainWord
	}
	if c.opening != nil {
		c.opening(ps)
	}
	rest := ps
	if c.cards != nil {
		rest = c.cards(ps)
	}
	reach := ui.Reachable(c.Scroll.Content)
	c.Errs.show(rest, word, func(l *widget.Label) bool { return reach[l] })
	return len(ps)
}

// UniqueProblems is ps without repeats: the form's own reading and the
// validation may find the same problem.
func UniqueProblems(ps []catalog.Problem) []catalog.Problem {
	var out []catalog.Problem
	for _, p := range ps {
		if !slices.ContainsFunc(out, func(q catalog.Problem) bool { return q.Field == p.Field && q.Message == p.Message }) {
			out = append(out, p)
		}
	}
	return out
}

// plainWord is a problem's message; on the general line, which gathers
// problems of fields the form does not show, it names the field.
func plainWord(key string, p catalog.Problem) string {
	if key == "" && p.Field != "" {
		return p.Field + ": " + p.Message
	}
	return p.Message
}

// refuse shows why the entry was not saved: all of its problems at once,
// the first one scrolled into view with the focus in its field.
func (c *editorCore[T]) refuse(ps []catalog.Problem) bool {
	n := c.showProblems(ps)
	c.Status.SetText(fmt.Sprintf("Not saved: %s, shown in red next to the fields.", words.Count(n, "problem", "problems")))
	ui.RevealFirstProblem(c.Scroll)
	return false
}

// keyTaken is the problem of an entry whose key another entry has: read
// here, so the person sees it with all the others; storage refuses it
// again in its transaction, should the key be taken meanwhile.
func (c *editorCore[T]) keyTaken(v T) []catalog.Problem {
	key := c.kind.key(v)
	if key == "" || key == c.origKey() {
		return nil
	}
	if _, err := c.kind.load(c.st, context.Background(), key); err != nil {
		return nil // free, or unreadable: storage says which on saving
	}
	return []catalog.Problem{{Entry: fmt.Sprintf("%s %q", c.kind.noun, key), Field: c.kind.keyField, Message: c.kind.taken(key)}}
}

// checkName shows what is wrong with a tool or prompt name as it is typed.
func (c *editorCore[T]) checkName(s string) { checkNameAsTyped(c.Errs["name"], s, c.IsNew) }

// settle takes what the form shows now as its unchanged state; editors
// call it once their fields are filled in.
func (c *editorCore[T]) settle() { c.baseline = formReading(c.read()) }

// Unsaved says whether the form was changed since it was filled in or
// saved (a new entry nobody typed in has no changes to lose).
func (c *editorCore[T]) Unsaved() bool {
	return c.extra != nil && c.extra.dirty() || !bytes.Equal(formReading(c.read()), c.baseline)
}

// formReading is a form's reading, entry and unreadable fields, as JSON to
// compare.
func formReading[T any](v T, local []catalog.Problem) []byte {
	b, _ := json.Marshal(struct {
		V     T
		Local []catalog.Problem
	}{v, local})
	return b
}

// Save validates the entry and stores it; it reports whether it did.
func (c *editorCore[T]) Save() bool {
	v, local := c.read()
	// A field the form could not read has that problem alone: what the
	// validation says of its empty stand-in would only repeat it.
	checked := slices.DeleteFunc(c.validate(v), func(p catalog.Problem) bool {
		return slices.ContainsFunc(local, func(l catalog.Problem) bool { return l.Field == p.Field })
	})
	if ps := append(append(local, checked...), c.keyTaken(v)...); len(ps) > 0 {
		return c.refuse(ps)
	}
	stored, err := c.kind.save(c.st, context.Background(), c.origKey(), v)
	var ve *catalog.ValidationError
	switch {
	case errors.As(err, &ve):
		return c.refuse(ve.Problems)
	case err != nil:
		c.showProblems(nil)
		c.Status.SetText("Not saved: " + err.Error())
		return false
	}
	key := c.kind.key(stored)
	c.showProblems(nil)
	c.Status.SetText(fmt.Sprintf("Saved %q; clients see it now.", key))
	c.Orig, c.IsNew = stored, false
	if c.extra != nil {
		c.extra.load(key)
	}
	c.settle()
	c.Del.Enable()
	if c.changed != nil {
		c.changed()
	}
	if c.onSaved != nil {
		c.onSaved(key)
	}
	return true
}

// Delete removes the entry from the catalog.
func (c *editorCore[T]) Delete() {
	key := c.origKey()
	if key == "" {
		return
	}
	if err := c.kind.del(c.st, context.Background(), key); err != nil {
		c.Status.SetText("Not deleted: " + err.Error())
		return
	}
	c.Status.SetText(fmt.Sprintf("Deleted %q.", key))
	if c.onSaved != nil {
		c.onSaved("")
	}
}

// reportDialogError shows a file dialog's failure next to the field; a
// cancelled dialog (no error) changes nothing.
func (c *editorCore[T]) reportDialogError(err error, key string) {
	if err != nil {
		ui.SetFieldError(c.Errs[key], []string{err.Error()})
	}
}

// Kinds of catalog entries the editors store.
var (
	resourceKind = &entryKind[catalog.Resource]{
		noun:     "resource",
		key:      func(r catalog.Resource) string { return r.URI },
		keyField: "uri",
		taken:    func(string) string { return "a resource with this URI exists already" },
		load:     (*storage.Store).Resource,
		validate: mcpcore.ValidateResource,
		save:     (*storage.Store).SaveResource,
		del:      (*storage.Store).DeleteResource,
	}
	templateKind = &entryKind[catalog.ResourceTemplate]{
		noun:     "resource template",
		key:      func(t catalog.ResourceTemplate) string { return t.URITemplate },
		keyField: "uriTemplate",
		taken:    func(string) string { return "a resource template with this URI template exists already" },
		load:     (*storage.Store).ResourceTemplate,
		validate: mcpcore.ValidateResourceTemplate,
		save:     (*storage.Store).SaveResourceTemplate,
		del:      (*storage.Store).DeleteResourceTemplate,
	}
	promptKind = &entryKind[catalog.Prompt]{
		noun:     "prompt",
		key:      func(p catalog.Prompt) string { return p.Name },
		keyField: "name",
		taken:    func(name string) string { return fmt.Sprintf("a prompt named %q exists already", name) },
		load:     (*storage.Store).Prompt,
		validate: mcpcore.ValidatePrompt,
		save:     (*storage.Store).SavePrompt,
		del:      (*storage.Store).DeletePrompt,
	}
)

// toolKind is how the tool editor stores a tool: with it, which client
// tokens see it, as access says at the time of saving.
func toolKind(access func() storage.ToolAccess) *entryKind[catalog.Tool] {
	return &entryKind[catalog.Tool]{
		noun:     "tool",
		key:      func(t catalog.Tool) string { return t.Name },
		keyField: "name",
		taken:    func(name string) string { return fmt.Sprintf("a tool named %q exists already", name) },
		load:     (*storage.Store).Tool,
		validate: mcpcore.ValidateTool,
		save: func(st *storage.Store, ctx context.Context, oldName string, t catalog.Tool) (catalog.Tool, error) {
			return st.SaveTool(ctx, oldName, t, access())
		},
		del: (*storage.Store).DeleteTool,
	}
}
