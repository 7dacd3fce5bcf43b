package app

import (
	"cmp"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
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
	mediaInline   = "Base64 data"
)

// contentEditor edits the content blocks a respond action answers with:
// one card per block, in the order the result carries them, each showing
// only the fields its kind uses.
type contentEditor struct {
	*cardList[*blockRow]
	// ctx offers Insert ▸ and previews in the text blocks.
	ctx *templateContext
}

// blockRow is one block's card.
type blockRow struct {
	*card
	*blockFields
}

func (r *blockRow) cardOf() *card { return r.card }

// blockFields edit one content block (of a tool's result, or a prompt's
// message), showing only the fields its kind uses. orig keeps what the
// form does not show.
type blockFields struct {
	orig                               catalog.Content
	kind, source                       *widget.Select
	text                               *templated
	data, file, mimeType               *widget.Entry
	uri, name, linkTitle, description  *widget.Entry
	textBox, mediaBox, resBox, linkBox fyne.CanvasObject
	fileBox, dataBox, uriBox, mimeBox  fyne.CanvasObject
	// fields are the widgets, stacked.
	fields []fyne.CanvasObject
}

func newContentEditor(blocks []catalog.Content, changed func(), ctx *templateContext) *contentEditor {
	c := &contentEditor{cardList: newCardList[*blockRow]("Block", "action.respond.content", changed), ctx: ctx}
	for _, b := range blocks {
		c.add(b)
	}
	return c
}

// content is the cards with the Add button under them.
func (c *contentEditor) content() fyne.CanvasObject {
	add := widget.NewButtonWithIcon("Add content block", theme.ContentAddIcon(), func() {
		c.add(catalog.Content{Type: "text"})
		c.changed()
	})
	return container.NewVBox(c.box, container.NewHBox(add))
}

func (c *contentEditor) add(b catalog.Content) {
	r := &blockRow{blockFields: newBlockFields(b, c.changed, c.ctx)}
	r.card = c.newCard(func() *blockRow { return r }, r.fields...)
	c.append(r)
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
	r.text = ctx.templatedEntry(text, func() int { return -1 })
	r.data = widget.NewMultiLineEntry()
	r.data.Wrapping = fyne.TextWrapBreak
	r.data.SetMinRowsVisible(3)
	r.data.SetPlaceHolder("base64 of the image or sound")
	r.data.SetText(string(b.Data))
	r.file = entry("/path/to/picture.png (templates allowed)", string(b.File))
	r.mimeType = entry("e.g. image/png (guessed from a file's name when empty)", b.MimeType)
	r.uri = entry("e.g. notes://today or https://…", string(b.URI))
	r.name = entry("name shown for the link", string(b.Name))
	r.linkTitle = entry("title (optional)", b.Title)
	r.description = entry("description (optional)", b.Description)

	r.fileBox = labelled("File", r.file)
	r.dataBox = labelled("Data", r.data)
	r.uriBox = labelled("URI", r.uri)
	r.mimeBox = labelled("Media type (MIME)", r.mimeType)
	r.textBox = container.NewVBox(widget.NewLabel("Text"), r.text.box())
	r.source = widget.NewSelect([]string{mediaFromFile, mediaInline}, func(string) {
		r.showKind()
		changed()
	})
	r.mediaBox = container.NewVBox(r.source, r.fileBox, r.dataBox)
	r.linkBox = container.NewGridWithColumns(2, labelled("Name", r.name), labelled("Title", r.linkTitle))
	r.resBox = labelled("Description", r.description)
	var labels []string
	for _, k := range blockKinds {
		labels = append(labels, k.label)
	}
	r.kind = widget.NewSelect(labels, func(string) {
		r.showKind()
		changed()
	})
	r.fields = []fyne.CanvasObject{labelled("Kind", r.kind),
		r.textBox, r.mediaBox, r.uriBox, r.linkBox, r.resBox, r.mimeBox}
	r.source.SetSelected(mediaFromFile)
	if b.Data != "" {
		r.source.SetSelected(mediaInline)
	}
	selectKeeping(r.kind, blockLabel(cmp.Or(b.Type, "text")))
	r.showKind()
	for _, e := range []*widget.Entry{r.text.entry, r.data, r.file, r.mimeType, r.uri, r.name, r.linkTitle, r.description} {
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
		if k.label == r.kind.Selected {
			return k.typ
		}
	}
	return r.kind.Selected
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
	show(r.textBox, t == "text" || t == "resource")
	show(r.mediaBox, media)
	show(r.fileBox, media && r.source.Selected == mediaFromFile)
	show(r.dataBox, media && r.source.Selected == mediaInline)
	show(r.uriBox, t == "resource" || t == "resource_link")
	show(r.linkBox, t == "resource_link")
	show(r.resBox, t == "resource_link")
	show(r.mimeBox, t != "text")
}

// blocks reads the blocks from the cards.
func (c *contentEditor) blocks() []catalog.Content {
	out := make([]catalog.Content, len(c.items))
	for i, r := range c.items {
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
		b.Text = catalog.Template(r.text.entry.Text)
	case "image", "audio":
		if r.source.Selected == mediaInline {
			b.Data = catalog.Template(strings.TrimSpace(r.data.Text))
		} else {
			b.File = catalog.Template(strings.TrimSpace(r.file.Text))
		}
		b.MimeType = strings.TrimSpace(r.mimeType.Text)
	case "resource":
		b.URI = catalog.Template(strings.TrimSpace(r.uri.Text))
		b.MimeType = strings.TrimSpace(r.mimeType.Text)
		b.Text = catalog.Template(r.text.entry.Text)
		if r.orig.Type == t && r.text.entry.Text == "" {
			b.Blob = r.orig.Blob
		}
	case "resource_link":
		b.URI = catalog.Template(strings.TrimSpace(r.uri.Text))
		b.Name = catalog.Template(strings.TrimSpace(r.name.Text))
		b.Title = strings.TrimSpace(r.linkTitle.Text)
		b.Description = strings.TrimSpace(r.description.Text)
		b.MimeType = strings.TrimSpace(r.mimeType.Text)
	}
	return b
}
