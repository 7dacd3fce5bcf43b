package editor

import (
	"cmp"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/catalog"
)

// Block kinds as the editor names them, with the content type of each.
var blockKinds = []struct{ label, typ string }{
	{"Text", "text"},
	{"Image", "image"},
	{"Audio", "audio"},
	{"Embedded resource", "resource"},
	{"Resource link", "resource_link"},
}

// Sources of an image or audio block.
const (
	mediaFromFile = "A file on this computer"
	MediaInline   = "Base64 data"
)

// contentEditor edits the content blocks a respond action answers with:
// one card per block, in the order the result carries them, each showing
// only the fields its kind uses.
type contentEditor struct {
	*ui.CardList[*blockRow]
	// ctx offers Insert ▸ and previews in the text blocks.
	ctx *templateContext
}

// blockRow is one block's card.
type blockRow struct {
	*ui.Card
	*blockFields
}

func (r *blockRow) CardOf() *ui.Card { return r.Card }

// blockFields edit one content block (of a tool's result, or a prompt's
// message), showing only the fields its kind uses. orig keeps what the
// form does not show.
type blockFields struct {
	orig                               catalog.Content
	Kind, Source                       *widget.Select
	Text                               *templated
	Data, file, MimeType               *widget.Entry
	Uri, name, linkTitle, description  *widget.Entry
	TextBox, mediaBox, resBox, linkBox fyne.CanvasObject
	fileBox, dataBox, uriBox, mimeBox  fyne.CanvasObject
	// fields are the widgets, stacked.
	fields []fyne.CanvasObject
}

func newContentEditor(blocks []catalog.Content, changed func(), ctx *templateContext) *contentEditor {
	c := &contentEditor{CardList: ui.NewCardList[*blockRow]("Block", "action.respond.content", changed), ctx: ctx}
	for _, b := range blocks {
		c.add(b)
	}
	return c
}

// content is the cards with the Add button under them.
func (c *contentEditor) content() fyne.CanvasObject {
	add := widget.NewButtonWithIcon("Add content block", theme.ContentAddIcon(), func() {
		c.add(catalog.Content{Type: "text"})
		c.Changed()
	})
	return container.NewVBox(c.Box, container.NewHBox(add))
}

func (c *contentEditor) add(b catalog.Content) {
	r := &blockRow{blockFields: newBlockFields(b, c.Changed, c.ctx)}
	r.Card = c.NewCard(func() *blockRow { return r }, r.fields...)
	c.Append(r)
}

// newBlockFields edits b; changed is called on every edit. ctx offers
// Insert ▸ and a preview in its text.
func newBlockFields(b catalog.Content, changed func(), ctx *templateContext) *blockFields {
	r := &blockFields{orig: b}
	entry := func(placeholder, text string) *widget.Entry {
		e := widget.NewEntry()
		e.SetPlaceHolder(placeholder)
		e.SetText(text)
		return e
	}
	text := widget.NewMultiLineEntry()
	text.Wrapping = fyne.TextWrapWord
	text.SetMinRowsVisible(4)
	text.SetPlaceHolder("The text; templates like {{.args.name}} are filled in")
	text.SetText(string(b.Text))
	r.Text = ctx.templatedEntry(text, func() int { return -1 })
	r.Data = widget.NewMultiLineEntry()
	r.Data.Wrapping = fyne.TextWrapBreak
	r.Data.SetMinRowsVisible(3)
	r.Data.SetPlaceHolder("base64 of the image or sound")
	r.Data.SetText(string(b.Data))
	r.file = entry("/path/to/picture.png (templates allowed)", string(b.File))
	r.MimeType = entry("e.g. image/png (guessed from a file's name when empty)", b.MimeType)
	r.Uri = entry("e.g. notes://today or https://…", string(b.URI))
	r.name = entry("name shown for the link", string(b.Name))
	r.linkTitle = entry("title (optional)", b.Title)
	r.description = entry("description (optional)", b.Description)

	r.fileBox = ui.Labelled("File", r.file)
	r.dataBox = ui.Labelled("Data", r.Data)
	r.uriBox = ui.Labelled("URI", r.Uri)
	r.mimeBox = ui.Labelled("Media type (MIME)", r.MimeType)
	r.TextBox = container.NewVBox(widget.NewLabel("Text"), r.Text.box())
	r.Source = widget.NewSelect([]string{mediaFromFile, MediaInline}, func(string) {
		r.showKind()
		changed()
	})
	r.mediaBox = container.NewVBox(r.Source, r.fileBox, r.dataBox)
	r.linkBox = container.NewGridWithColumns(2, ui.Labelled("Name", r.name), ui.Labelled("Title", r.linkTitle))
	r.resBox = ui.Labelled("Description", r.description)
	var labels []string
	for _, k := range blockKinds {
		labels = append(labels, k.label)
	}
	r.Kind = widget.NewSelect(labels, func(string) {
		r.showKind()
		changed()
	})
	r.fields = []fyne.CanvasObject{ui.Labelled("Kind", r.Kind),
		r.TextBox, r.mediaBox, r.uriBox, r.linkBox, r.resBox, r.mimeBox}
	r.Source.SetSelected(mediaFromFile)
	if b.Data != "" {
		r.Source.SetSelected(MediaInline)
	}
	ui.SelectKeeping(r.Kind, blockLabel(cmp.Or(b.Type, "text")))
	r.showKind()
	for _, e := range []*widget.Entry{r.Text.Entry, r.Data, r.file, r.MimeType, r.Uri, r.name, r.linkTitle, r.description} {
		e.OnChanged = func(string) { changed() }
	}
	return r
}

// blockLabel is the editor's name of a content type (the type itself when
// unknown, for validation to name).
func blockLabel(typ string) string {
	for _, k := range blockKinds {
		if k.typ == typ {
			return k.label
		}
	}
	return typ
}

// typ is the content type the kind select shows.
func (r *blockFields) typ() string {
	for _, k := range blockKinds {
		if k.label == r.Kind.Selected {
			return k.typ
		}
	}
	return r.Kind.Selected
}

// showKind shows the fields the block's kind uses.
func (r *blockFields) showKind() {
	t := r.typ()
	media := t == "image" || t == "audio"
	show := func(o fyne.CanvasObject, on bool) {
		if on {
			o.Show()
		} else {
			o.Hide()
		}
	}
	show(r.TextBox, t == "text" || t == "resource")
	show(r.mediaBox, media)
	show(r.fileBox, media && r.Source.Selected == mediaFromFile)
	show(r.dataBox, media && r.Source.Selected == MediaInline)
	show(r.uriBox, t == "resource" || t == "resource_link")
	show(r.linkBox, t == "resource_link")
	show(r.resBox, t == "resource_link")
	show(r.mimeBox, t != "text")
}

// blocks reads the blocks from the cards.
func (c *contentEditor) blocks() []catalog.Content {
	out := make([]catalog.Content, len(c.Items))
	for i, r := range c.Items {
		out[i] = r.block()
	}
	return out
}

// block is the block the fields describe: what its kind uses, and, of the
// original block of the same kind, what the form does not show (an
// embedded resource's blob).
func (r *blockFields) block() catalog.Content {
	t := r.typ()
	b := catalog.Content{Type: t}
	switch t {
	case "text":
		b.Text = catalog.Template(r.Text.Entry.Text)
	case "image", "audio":
		if r.Source.Selected == MediaInline {
			b.Data = catalog.Template(strings.TrimSpace(r.Data.Text))
		} else {
			b.File = catalog.Template(strings.TrimSpace(r.file.Text))
		}
		b.MimeType = strings.TrimSpace(r.MimeType.Text)
	case "resource":
		b.URI = catalog.Template(strings.TrimSpace(r.Uri.Text))
		b.MimeType = strings.TrimSpace(r.MimeType.Text)
		b.Text = catalog.Template(r.Text.Entry.Text)
		if r.orig.Type == t && r.Text.Entry.Text == "" {
			b.Blob = r.orig.Blob
		}
	case "resource_link":
		b.URI = catalog.Template(strings.TrimSpace(r.Uri.Text))
		b.Name = catalog.Template(strings.TrimSpace(r.name.Text))
		b.Title = strings.TrimSpace(r.linkTitle.Text)
		b.Description = strings.TrimSpace(r.description.Text)
		b.MimeType = strings.TrimSpace(r.MimeType.Text)
	}
	return b
}
