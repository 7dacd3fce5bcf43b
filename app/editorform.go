package app

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

	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// fieldErrors are the red error lines of a form, keyed by the problem
// field path each one shows ("uri", "http.url", "arguments"; "" = general).
type fieldErrors map[string]*widget.Label

func newFieldErrors(keys ...string) fieldErrors {
	f := fieldErrors{"": fieldError()}
	for _, k := range keys {
		f[k] = fieldError()
	}
	return f
}

// keyFor is the error line a problem about field shows on: the line of
// that exact path, else of the longest path containing it
// ("arguments[2].name" → "arguments"), else the general line.
func (f fieldErrors) keyFor(field string) string {
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
// word turns a problem into the text its line shows.
func (f fieldErrors) show(ps []mcpcore.Problem, word func(key string, p mcpcore.Problem) string) {
	by := map[string][]string{}
	for _, p := range ps {
		k := f.keyFor(p.Field)
		by[k] = append(by[k], word(k, p))
	}
	for k, l := range f {
		setFieldError(l, by[k])
	}
}

// field is a bold label, the input and its error line, stacked; key ""
// stands for an input whose problems show elsewhere.
func (f fieldErrors) field(label string, obj fyne.CanvasObject, key string) fyne.CanvasObject {
	head := widget.NewLabelWithStyle(label, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	if key == "" {
		return container.NewVBox(head, obj)
	}
	return container.NewVBox(head, obj, f[key])
}

// sub is a plain-labelled input with its error line, inside a field.
func (f fieldErrors) sub(label string, obj fyne.CanvasObject, key string) fyne.CanvasObject {
	return container.NewVBox(widget.NewLabel(label), obj, f[key])
}

// checkNameAsTyped shows on l what is wrong with a tool or prompt name as
// it is typed; an empty name of a new entry is not scolded yet.
func checkNameAsTyped(l *widget.Label, name string, isNew bool) {
	if name == "" && isNew {
		setFieldError(l, nil)
		return
	}
	if err := mcpcore.CheckName(name); err != nil {
		setFieldError(l, []string{err.Error()})
		return
	}
	setFieldError(l, nil)
}

// titledFields are the name, title and description every editor starts
// with; the hints are their placeholders.
type titledFields struct {
	name, title, description *widget.Entry
}

func newTitledFields(name, title, description string, hints [3]string, descriptionRows int) titledFields {
	f := titledFields{name: widget.NewEntry(), title: widget.NewEntry(), description: widget.NewMultiLineEntry()}
	f.name.SetPlaceHolder(hints[0])
	f.name.SetText(name)
	f.title.SetPlaceHolder(hints[1])
	f.title.SetText(title)
	f.description.SetPlaceHolder(hints[2])
	f.description.Wrapping = fyne.TextWrapWord
	f.description.SetMinRowsVisible(descriptionRows)
	f.description.SetText(description)
	return f
}

// withoutField drops the problems about one field.
func withoutField(ps []mcpcore.Problem, field string) []mcpcore.Problem {
	return slices.DeleteFunc(ps, func(p mcpcore.Problem) bool { return p.Field == field })
}

// entryKind is what an editor needs to store one kind of catalog entry.
type entryKind[T any] struct {
	noun     string // "resource", for messages
	keyField string // the problem field of the key, e.g. "uri"
	// exists words the refusal of a key that another entry has already.
	exists   func(key string) string
	key      func(T) string
	disabled func(*T) *bool
	validate func(T) []mcpcore.Problem
	get      func(*storage.Store, context.Context, string) (T, error)
	put      func(*storage.Store, context.Context, T) error
	del      func(*storage.Store, context.Context, string) error
}

// editorCore is the part every resource, template and prompt editor shares:
// the Save and Delete buttons, the status line, the error lines, and the
// save flow — validate, refuse a taken key, store, and on a key change
// delete the entry under the old key once the new one is stored.
type editorCore[T any] struct {
	st      *storage.Store
	kind    *entryKind[T]
	orig    T
	isNew   bool
	onSaved func(key string)
	// confirm asks before deleting; nil deletes at once.
	confirm func(question string, yes func())
	// read is the entry as the form describes it, with the problems of
	// fields the form itself could not read.
	read func() (T, []mcpcore.Problem)
	// validate lists the entry's problems: the kind's validation, unless an
	// editor words some of them better itself.
	validate func(T) []mcpcore.Problem
	// word is the text of a problem on its line; nil is plainWord.
	word func(key string, p mcpcore.Problem) string
	// cards, when set, shows the problems about a list's items on their
	// cards and returns the others.
	cards func([]mcpcore.Problem) []mcpcore.Problem

	errs      fieldErrors
	save, del *widget.Button
	status    *widget.Label
	// baseline is the form's reading when it was filled in or last saved:
	// Unsaved compares with it.
	baseline []byte
}

func newEditorCore[T any](st *storage.Store, kind *entryKind[T], orig T, isNew bool, onSaved func(string), errs fieldErrors) *editorCore[T] {
	c := &editorCore[T]{st: st, kind: kind, orig: orig, isNew: isNew, onSaved: onSaved, errs: errs, validate: kind.validate}
	c.save = widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), func() { c.Save() })
	c.save.Importance = widget.HighImportance
	c.del = widget.NewButtonWithIcon("Delete", theme.DeleteIcon(), func() {
		if c.confirm == nil {
			c.Delete()
			return
		}
		c.confirm(fmt.Sprintf("Delete the %s %q? Clients stop seeing it at once.", kind.noun, kind.key(c.orig)), c.Delete)
	})
	if isNew {
		c.del.Hide()
	}
	c.status = widget.NewLabel("")
	c.status.Wrapping = fyne.TextWrapWord
	return c
}

// layout frames the form: scrollable, with the status and the buttons
// always visible below it.
func (c *editorCore[T]) layout(form fyne.CanvasObject) fyne.CanvasObject {
	return container.NewBorder(nil, container.NewVBox(widget.NewSeparator(),
		container.NewBorder(nil, nil, nil, container.NewHBox(c.del, c.save), c.status)), nil, nil,
		container.NewVScroll(container.NewPadded(container.NewVBox(c.errs[""], form))))
}

// origKey is the key the entry is stored under, "" for a new one.
func (c *editorCore[T]) origKey() string {
	if c.isNew {
		return ""
	}
	return c.kind.key(c.orig)
}

func (c *editorCore[T]) showProblems(ps []mcpcore.Problem) {
	word := c.word
	if word == nil {
		word = plainWord
	}
	if c.cards != nil {
		ps = c.cards(ps)
	}
	c.errs.show(ps, word)
}

// plainWord is a problem's message; on the general line, which gathers
// problems of fields the form does not show, it names the field.
func plainWord(key string, p mcpcore.Problem) string {
	if key == "" && p.Field != "" {
		return p.Field + ": " + p.Message
	}
	return p.Message
}

func (c *editorCore[T]) refuse(ps []mcpcore.Problem) bool {
	c.showProblems(ps)
	c.status.SetText(fmt.Sprintf("Not saved: %d problem(s), shown next to the fields.", len(ps)))
	return false
}

// settle takes what the form shows now as its unchanged state; editors
// call it once their fields are filled in.
func (c *editorCore[T]) settle() { c.baseline = formReading(c.read()) }

// Unsaved says whether the form was changed since it was filled in or
// saved.
func (c *editorCore[T]) Unsaved() bool { return !bytes.Equal(formReading(c.read()), c.baseline) }

// formReading is a form's reading, entry and unreadable fields, as JSON to
// compare.
func formReading[T any](v T, local []mcpcore.Problem) []byte {
	b, _ := json.Marshal(struct {
		V     T
		Local []mcpcore.Problem
	}{v, local})
	return b
}

// Save validates the entry and stores it; it reports whether it did.
func (c *editorCore[T]) Save() bool {
	ctx := context.Background()
	v, local := c.read()
	ps := append(local, c.validate(v)...)
	key, old := c.kind.key(v), c.origKey()
	if len(ps) == 0 && key != old {
		_, err := c.kind.get(c.st, ctx, key)
		switch {
		case err == nil:
			ps = append(ps, mcpcore.Problem{Field: c.kind.keyField, Message: c.kind.exists(key)})
		case !errors.Is(err, storage.ErrNotFound):
			c.showProblems(nil)
			c.status.SetText(fmt.Sprintf("Not saved: checking for another %s at %q: %v", c.kind.noun, key, err))
			return false
		}
	}
	if len(ps) > 0 {
		return c.refuse(ps)
	}
	// The list's enable toggle may have changed the stored flag since the
	// editor opened; the stored one wins.
	if old != "" {
		if cur, err := c.kind.get(c.st, ctx, old); err == nil {
			*c.kind.disabled(&v) = *c.kind.disabled(&cur)
		}
	}
	if err := c.kind.put(c.st, ctx, v); err != nil {
		var ve *mcpcore.ValidationError
		if errors.As(err, &ve) {
			return c.refuse(ve.Problems)
		}
		c.showProblems(nil)
		c.status.SetText("Not saved: " + err.Error())
		return false
	}
	c.showProblems(nil)
	c.status.SetText(fmt.Sprintf("Saved %q; clients see it now.", key))
	if old != "" && old != key {
		if err := c.kind.del(c.st, ctx, old); err != nil && !errors.Is(err, storage.ErrNotFound) {
			c.status.SetText(fmt.Sprintf("Saved as %q, but the old %q stays: %v", key, old, err))
		}
	}
	c.orig, c.isNew = v, false
	c.settle()
	c.del.Show()
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
		c.status.SetText("Not deleted: " + err.Error())
		return
	}
	c.status.SetText(fmt.Sprintf("Deleted %q.", key))
	if c.onSaved != nil {
		c.onSaved("")
	}
}

// reportDialogError shows a file dialog's failure next to the field; a
// cancelled dialog (no error) changes nothing.
func (c *editorCore[T]) reportDialogError(err error, key string) {
	if err != nil {
		setFieldError(c.errs[key], []string{err.Error()})
	}
}

// Kinds of catalog entries the editors store.
var (
	resourceKind = &entryKind[mcpcore.Resource]{
		noun: "resource", keyField: "uri",
		exists:   func(string) string { return "a resource with this URI exists already" },
		key:      func(r mcpcore.Resource) string { return r.URI },
		disabled: func(r *mcpcore.Resource) *bool { return &r.Disabled },
		validate: mcpcore.ValidateResource,
		get:      (*storage.Store).Resource,
		put:      (*storage.Store).PutResource,
		del:      (*storage.Store).DeleteResource,
	}
	templateKind = &entryKind[mcpcore.ResourceTemplate]{
		noun: "resource template", keyField: "uriTemplate",
		exists:   func(string) string { return "a resource template with this URI template exists already" },
		key:      func(t mcpcore.ResourceTemplate) string { return t.URITemplate },
		disabled: func(t *mcpcore.ResourceTemplate) *bool { return &t.Disabled },
		validate: mcpcore.ValidateResourceTemplate,
		get:      (*storage.Store).ResourceTemplate,
		put:      (*storage.Store).PutResourceTemplate,
		del:      (*storage.Store).DeleteResourceTemplate,
	}
	promptKind = &entryKind[mcpcore.Prompt]{
		noun: "prompt", keyField: "name",
		exists:   func(name string) string { return fmt.Sprintf("a prompt named %q exists already", name) },
		key:      func(p mcpcore.Prompt) string { return p.Name },
		disabled: func(p *mcpcore.Prompt) *bool { return &p.Disabled },
		validate: mcpcore.ValidatePrompt,
		get:      (*storage.Store).Prompt,
		put:      (*storage.Store).PutPrompt,
		del:      (*storage.Store).DeletePrompt,
	}
)
