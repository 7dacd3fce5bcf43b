package editor

import (
	"encoding/base64"
	"fmt"
	"io"
	"maps"
	"mime"
	"path/filepath"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/yosida95/uritemplate/v3"

	"github.com/mcptray/mcptray/app/ui"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// Where a resource's content comes from, as the editor names it.
const (
	srcText    = "Text written here"
	SrcBlob    = "Binary data (base64)"
	SrcFile    = "A file on disk"
	srcHTTP    = "An HTTP request"
	SrcCommand = "The output of a command"
)

// Where a resource template's content comes from.
const (
	tmplSrcText   = "Text written here, filled from the URI"
	TmplSrcFolder = "Files in a folder"
)

// maxBlobShown is the longest base64 text the blob field shows: an entry
// holding megabytes of text makes the window crawl.
const maxBlobShown = 64 << 10

// maxBlobBytes caps what Load from file… puts inline: the definition lives
// in the database and is read with the whole catalog, so a large file is
// better served as a file resource.
const maxBlobBytes = 10 << 20

// errorCollector gathers the problems of fields a form cannot read.
type errorCollector struct {
	entry string
	list  []catalog.Problem
}

func (c *errorCollector) add(field string, msgs ...string) {
	for _, m := range msgs {
		c.list = append(c.list, catalog.Problem{Entry: c.entry, Field: field, Message: m})
	}
}

// checkMimeType names what is wrong with a typed media type, if anything.
func (c *errorCollector) checkMimeType(s string) {
	if s == "" {
		return
	}
	if _, _, err := mime.ParseMediaType(s); err != nil || !strings.Contains(s, "/") {
		c.add("mimeType", fmt.Sprintf("%q is not a media type like text/plain or image/png", s))
	}
}

// describeFields are the entries every resource-like form starts with.
type describeFields struct {
	titledFields
	MimeType *widget.Entry
}

func newDescribeFields(name, title, description, mimeType string) describeFields {
	d := describeFields{titledFields: newTitledFields(name, title, description, [3]string{
		"e.g. todo (required; clients list it by this)",
		"Shown to people, e.g. My to-do list",
		"What it holds: the model reads this to decide when to read it"}, 2), MimeType: widget.NewEntry()}
	d.MimeType.SetPlaceHolder("e.g. text/markdown (optional; guessed when empty)")
	d.MimeType.SetText(mimeType)
	return d
}

func (d describeFields) rows(errs FieldErrors) []fyne.CanvasObject {
	return []fyne.CanvasObject{errs.field("Name", d.Name, "name"), errs.field("Title", d.Title, "title"),
		errs.field("Description", d.Description, "description"), errs.field("Media type (MIME)", d.MimeType, "mimeType")}
}

// sourceSwitch is a Select that shows the box of the chosen option only.
func sourceSwitch(boxes map[string]*fyne.Container, options ...string) *widget.Select {
	return widget.NewSelect(options, func(k string) {
		for name, b := range boxes {
			if name == k {
				b.Show()
			} else {
				b.Hide()
			}
		}
	})
}

// ResourceEditor is the form that creates and edits a resource with a fixed
// URI. Save validates it the way the server does and stores it, so it is
// served at once; problems show next to their fields and nothing is stored.
type ResourceEditor struct {
	*editorCore[catalog.Resource]
	win fyne.Window

	Uri        *widget.Entry
	Describe   describeFields
	Source     *widget.Select
	Text, Blob *widget.Entry
	// blobData is the blob's base64, also when it is too long to show.
	blobData  string
	BlobSize  *widget.Label
	ClearBlob *widget.Button
	File      *widget.Entry
	http      *httpFields
	command   *commandFields
	// Tmpl is what the request and the command insert and preview with.
	Tmpl *templateContext

	// emptySource says the chosen source was left empty: the form names
	// that itself, better than the server's "exactly one source" rule.
	emptySource bool

	content fyne.CanvasObject
}

// NewResourceEditor edits r; isNew says it is not stored yet. win hosts the
// file dialogs; onSaved gets the URI after a save, "" after a delete.
func NewResourceEditor(st *storage.Store, win fyne.Window, r catalog.Resource, isNew bool, onSaved func(uri string)) *ResourceEditor {
	errs := newFieldErrors("uri", "name", "title", "description", "mimeType", "text", "blob", "file",
		"http", "http.method", "http.url", "http.query", "http.headers", "command", "command.argv", "command.dir", "command.os", "command.os.windows.dir", "command.env",
		"command.inheritEnv", "command.stdin", "command.stream", "command.maxOutputBytes", "command.timeoutMs")
	e := &ResourceEditor{editorCore: newEditorCore(st, resourceKind, r, isNew, onSaved, errs), win: win}
	e.read = e.Resource
	e.validate = func(r catalog.Resource) []catalog.Problem {
		ps := mcpcore.ValidateResource(r)
		if e.emptySource {
			ps = withoutField(ps, "text")
		}
		return ps
	}

	e.Uri = widget.NewEntry()
	e.Uri.SetPlaceHolder("e.g. notes://todo or file:///home/me/todo.md")
	e.Uri.SetText(r.URI)
	e.Describe = newDescribeFields(r.Name, r.Title, r.Description, r.MimeType)

	e.Text = widget.NewMultiLineEntry()
	e.Text.SetPlaceHolder("The content clients read")
	e.Text.SetMinRowsVisible(6)
	e.Text.SetText(r.Text)

	e.Blob = widget.NewMultiLineEntry()
	e.Blob.Wrapping = fyne.TextWrapBreak
	e.Blob.SetMinRowsVisible(4)
	e.BlobSize = widget.NewLabel("")
	e.Blob.OnChanged = func(s string) {
		e.blobData = strings.Join(strings.Fields(s), "")
		e.showBlobSize()
	}
	e.ClearBlob = widget.NewButtonWithIcon("Clear", theme.ContentClearIcon(), func() { e.setBlob("") })
	e.setBlob(r.Blob)
	load := widget.NewButtonWithIcon("Load from file…", theme.FolderOpenIcon(), e.chooseBlobFile)

	e.File = widget.NewEntry()
	e.File.SetPlaceHolder("/absolute/path/to/the/file")
	e.File.SetText(r.File)
	choose := widget.NewButtonWithIcon("Choose…", theme.FolderOpenIcon(), e.chooseFile)
	fileHint := ui.Hint("Read on every request. AI apps that follow it are told when the file changes (resources/updated).")

	// A resource has no arguments: its request or command can use
	// secrets and mcptray's paths, and Insert ▸ offers just those.
	e.Tmpl = newTemplateContext(st.Path(), func() ([]string, map[string]any) { return []string{}, map[string]any{} }, func() []stepInfo { return nil })
	e.http = newHTTPFields(errs, "http", r.HTTP, e.Tmpl)
	e.command = newCommandFields(errs, "command", r.Command, e.Tmpl)
	for _, en := range append(e.http.entries(), e.command.entries()...) {
		en.OnChanged = func(string) { e.Tmpl.changed() }
	}

	boxes := map[string]*fyne.Container{
		srcText: container.NewVBox(errs.sub("Text", e.Text, "text")),
		SrcBlob: container.NewVBox(errs.sub("Data", container.NewBorder(nil, container.NewBorder(nil, nil, nil, container.NewHBox(e.ClearBlob, load), e.BlobSize), nil, nil, ui.Input(e.Blob)), "blob")),
		SrcFile: container.NewVBox(errs.sub("File", container.NewBorder(nil, nil, nil, choose, ui.Input(e.File)), "file"), fileHint),
		srcHTTP: e.http.box, SrcCommand: e.command.box,
	}
	e.Source = sourceSwitch(boxes, srcText, SrcBlob, SrcFile, srcHTTP, SrcCommand)
	switch {
	case r.Blob != "":
		e.Source.SetSelected(SrcBlob)
	case r.File != "":
		e.Source.SetSelected(SrcFile)
	case r.HTTP != nil:
		e.Source.SetSelected(srcHTTP)
	case r.Command != nil:
		e.Source.SetSelected(SrcCommand)
	default:
		e.Source.SetSelected(srcText)
	}

	rows := []fyne.CanvasObject{errs.field("URI", e.Uri, "uri")}
	rows = append(rows, e.Describe.rows(errs)...)
	rows = append(rows, widget.NewSeparator(), errs.field("Content comes from", e.Source, ""))
	for _, k := range e.Source.Options {
		rows = append(rows, boxes[k])
	}
	e.content = e.layout(container.NewVBox(rows...))
	e.settle()
	e.Tmpl.Refresh()
	return e
}

// Content is the editor's widget tree.
func (e *ResourceEditor) Content() fyne.CanvasObject { return e.content }

// Resource is the resource as the form describes it, with the problems of
// fields the form itself could not read.
func (e *ResourceEditor) Resource() (catalog.Resource, []catalog.Problem) {
	r := catalog.Resource{
		URI:         strings.TrimSpace(e.Uri.Text),
		Name:        strings.TrimSpace(e.Describe.Name.Text),
		Title:       strings.TrimSpace(e.Describe.Title.Text),
		Description: strings.TrimSpace(e.Describe.Description.Text),
		MimeType:    strings.TrimSpace(e.Describe.MimeType.Text),
		Disabled:    e.Orig.Disabled,
	}
	bad := &errorCollector{entry: fmt.Sprintf("resource %q", r.URI)}
	bad.checkMimeType(r.MimeType)
	e.emptySource = false
	empty := func(field, msg string) {
		e.emptySource = true
		bad.add(field, msg)
	}
	switch e.Source.Selected {
	case SrcBlob:
		r.Blob = e.blobData
		if r.Blob == "" {
			empty("blob", "paste base64 data, or Load from file…")
		}
	case SrcFile:
		r.File = strings.TrimSpace(e.File.Text)
		if r.File == "" {
			empty("file", "choose the file this resource serves")
		}
	case srcHTTP:
		r.HTTP = e.http.spec(e.Orig.HTTP, "http", bad.add)
	case SrcCommand:
		r.Command = e.command.spec(e.Orig.Command, "command", bad.add)
	default:
		r.Text = e.Text.Text
		if r.Text == "" {
			empty("text", "write the text clients read")
		}
	}
	return r, bad.list
}

// setBlob makes b64 the blob. Data too long to show is kept out of the
// field, which then only offers to clear it.
func (e *ResourceEditor) setBlob(b64 string) {
	if len(b64) <= maxBlobShown {
		e.Blob.SetPlaceHolder("base64 data, or Load from file…")
		e.Blob.Enable()
		e.Blob.SetText(b64)
	} else {
		e.Blob.SetText("")
		e.Blob.SetPlaceHolder("Too long to show here. Load from file… replaces it; Clear empties it to paste base64.")
		e.Blob.Disable()
	}
	// SetText reports no change when the text stays the same.
	e.blobData = b64
	e.showBlobSize()
}

// showBlobSize says how much data the blob holds, or that it is not base64.
func (e *ResourceEditor) showBlobSize() {
	if e.blobData == "" {
		e.BlobSize.SetText("empty")
		return
	}
	b, err := base64.StdEncoding.DecodeString(e.blobData)
	if err != nil {
		e.BlobSize.SetText("not valid base64")
		return
	}
	e.BlobSize.SetText(byteSize(len(b)))
}

// byteSize words a size for people: 512 bytes, 1.5 KB, 3.2 MB.
func byteSize(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
}

// LoadBlob makes data the resource's content, guessing its MIME type from
// name when none is set.
func (e *ResourceEditor) LoadBlob(name string, data []byte) {
	e.Source.SetSelected(SrcBlob)
	e.setBlob(base64.StdEncoding.EncodeToString(data))
	if strings.TrimSpace(e.Describe.MimeType.Text) == "" {
		if t := mime.TypeByExtension(filepath.Ext(name)); t != "" {
			e.Describe.MimeType.SetText(t)
		}
	}
	ui.SetFieldError(e.Errs["blob"], nil)
}

// chooseBlobFile asks for a file and loads it, reading off the GUI thread.
func (e *ResourceEditor) chooseBlobFile() {
	d := dialog.NewFileOpen(func(rc fyne.URIReadCloser, err error) {
		if err != nil || rc == nil {
			e.reportDialogError(err, "blob")
			return
		}
		go func() {
			defer rc.Close()
			data, err := io.ReadAll(io.LimitReader(rc, maxBlobBytes+1))
			name := rc.URI().Name()
			fyne.Do(func() {
				switch {
				case err != nil:
					ui.SetFieldError(e.Errs["blob"], []string{fmt.Sprintf("reading %s: %v", name, err)})
				case len(data) > maxBlobBytes:
					ui.SetFieldError(e.Errs["blob"], []string{fmt.Sprintf("%s is larger than %s: serve it as a file on disk instead", name, byteSize(maxBlobBytes))})
				default:
					e.LoadBlob(name, data)
				}
			})
		}()
	}, e.win)
	d.Show()
}

// chooseFile asks for the file a file resource serves.
func (e *ResourceEditor) chooseFile() {
	d := dialog.NewFileOpen(func(rc fyne.URIReadCloser, err error) {
		if err != nil || rc == nil {
			e.reportDialogError(err, "file")
			return
		}
		// Only the path is wanted; the server reads the file on each request.
		rc.Close()
		e.File.SetText(rc.URI().Path())
		ui.SetFieldError(e.Errs["file"], nil)
	}, e.win)
	d.Show()
}

// completionRow is the completion values of one URI variable.
type completionRow struct {
	Values *widget.Entry
	label  *widget.Label
}

// TemplateEditor is the form that creates and edits a resource template: a
// family of resources named by an RFC 6570 URI template, read from text
// filled with the URI's variables or from the files in a folder.
type TemplateEditor struct {
	*editorCore[catalog.ResourceTemplate]
	win fyne.Window

	UriTemplate *widget.Entry
	Describe    describeFields
	Source      *widget.Select
	Text        *templated
	// Tmpl is what the text inserts and previews with.
	Tmpl   *templateContext
	Folder *widget.Entry
	// Completions has a row per variable of the URI template, and keeps
	// the rows of variables no longer in it while they hold values, so a
	// renamed variable loses nothing.
	Completions   map[string]*completionRow
	CompletionBox *fyne.Container

	emptySource bool

	content fyne.CanvasObject
}

// NewTemplateEditor edits t; isNew says it is not stored yet. win hosts
// the folder dialog; onSaved gets the URI template after a save, "" after a
// delete.
func NewTemplateEditor(st *storage.Store, win fyne.Window, t catalog.ResourceTemplate, isNew bool, onSaved func(uriTemplate string)) *TemplateEditor {
	errs := newFieldErrors("uriTemplate", "name", "title", "description", "mimeType", "text", "folder", "completions")
	e := &TemplateEditor{editorCore: newEditorCore(st, templateKind, t, isNew, onSaved, errs), win: win, Completions: map[string]*completionRow{}}
	e.read = e.Template
	e.validate = func(t catalog.ResourceTemplate) []catalog.Problem {
		ps := mcpcore.ValidateResourceTemplate(t)
		if e.emptySource {
			ps = withoutField(ps, "text")
		}
		return ps
	}

	e.UriTemplate = widget.NewEntry()
	e.UriTemplate.SetPlaceHolder("e.g. notes://days/{day} or file:///notes/{path}")
	e.UriTemplate.SetText(t.URITemplate)
	e.Describe = newDescribeFields(t.Name, t.Title, t.Description, t.MimeType)

	// The text's parameters are the URI template's variables.
	e.Tmpl = newTemplateContext(st.Path(), e.templateParams, func() []stepInfo { return nil })
	text := widget.NewMultiLineEntry()
	text.SetPlaceHolder("The content; {{.args.day}} is the URI's day variable")
	text.SetMinRowsVisible(6)
	text.SetText(string(t.Text))
	text.OnChanged = func(string) { e.Tmpl.changed() }
	e.Text = e.Tmpl.templatedEntry(text, func() int { return -1 })
	e.Folder = widget.NewEntry()
	e.Folder.SetPlaceHolder("/absolute/path/to/a/folder")
	e.Folder.SetText(t.Folder)
	choose := widget.NewButtonWithIcon("Choose…", theme.FolderOpenIcon(), e.chooseFolder)
	folderHint := ui.Hint("The template's one variable is the path of a file inside the folder; reads never leave it.")

	boxes := map[string]*fyne.Container{
		tmplSrcText:   container.NewVBox(errs.templatedSub("Text", e.Text, "text")),
		TmplSrcFolder: container.NewVBox(errs.sub("Folder", container.NewBorder(nil, nil, nil, choose, ui.Input(e.Folder)), "folder"), folderHint),
	}
	e.Source = sourceSwitch(boxes, tmplSrcText, TmplSrcFolder)
	if t.Folder != "" {
		e.Source.SetSelected(TmplSrcFolder)
	} else {
		e.Source.SetSelected(tmplSrcText)
	}

	for v, vals := range t.Completions {
		e.completionRow(v).Values.SetText(strings.Join(vals, "\n"))
	}
	e.CompletionBox = container.NewVBox()
	e.UriTemplate.OnChanged = func(string) {
		e.layoutCompletions()
		e.Tmpl.changed()
	}
	e.layoutCompletions()
	compHint := ui.Hint("Values AI apps may suggest for each variable of the URI template, one per line.")

	rows := []fyne.CanvasObject{errs.field("URI template", e.UriTemplate, "uriTemplate")}
	rows = append(rows, e.Describe.rows(errs)...)
	rows = append(rows, widget.NewSeparator(), errs.field("Content comes from", e.Source, ""),
		boxes[tmplSrcText], boxes[TmplSrcFolder], widget.NewSeparator(),
		errs.field("Completions", container.NewVBox(compHint, e.CompletionBox), "completions"))
	e.content = e.layout(container.NewVBox(rows...))
	e.settle()
	e.Tmpl.Refresh()
	return e
}

// Content is the editor's widget tree.
func (e *TemplateEditor) Content() fyne.CanvasObject { return e.content }

// templateParams are the URI template's variables, each with its first
// completion as the sample, else its name in brackets.
func (e *TemplateEditor) templateParams() ([]string, map[string]any) {
	names := templateVars(strings.TrimSpace(e.UriTemplate.Text))
	sample := map[string]any{}
	for _, n := range names {
		sample[n] = "[" + n + "]"
		if r, ok := e.Completions[n]; ok {
			if v := strings.TrimSpace(strings.Split(r.Values.Text, "\n")[0]); v != "" {
				sample[n] = v
			}
		}
	}
	if names == nil {
		names = []string{}
	}
	return names, sample
}

func (e *TemplateEditor) completionRow(v string) *completionRow {
	r, ok := e.Completions[v]
	if !ok {
		r = &completionRow{Values: widget.NewMultiLineEntry(), label: ui.WrapLabel("")}
		r.Values.SetPlaceHolder("values, one per line (optional)")
		r.Values.SetMinRowsVisible(2)
		e.Completions[v] = r
	}
	return r
}

// templateVars are the variables of a URI template, nil while it does not
// parse.
func templateVars(s string) []string {
	t, err := uritemplate.New(s)
	if err != nil {
		return nil
	}
	return t.Varnames()
}

// layoutCompletions shows a row for each variable of the URI template as
// typed, and for each variable that is gone but still has values.
func (e *TemplateEditor) layoutCompletions() {
	vars := templateVars(strings.TrimSpace(e.UriTemplate.Text))
	for _, v := range vars {
		e.completionRow(v)
	}
	e.CompletionBox.RemoveAll()
	for _, v := range slices.Sorted(maps.Keys(e.Completions)) {
		r := e.Completions[v]
		inTemplate := slices.Contains(vars, v)
		if !inTemplate && strings.TrimSpace(r.Values.Text) == "" {
			continue
		}
		r.label.SetText("{" + v + "}")
		if !inTemplate {
			r.label.SetText("{" + v + "} — not in the URI template any more; clear it or put it back")
		}
		e.CompletionBox.Add(container.NewVBox(r.label, ui.Input(r.Values)))
	}
	if len(e.CompletionBox.Objects) == 0 {
		e.CompletionBox.Add(widget.NewLabel("The URI template has no variables yet."))
	}
}

// Template is the resource template as the form describes it, with the
// problems of fields the form itself could not read.
func (e *TemplateEditor) Template() (catalog.ResourceTemplate, []catalog.Problem) {
	t := catalog.ResourceTemplate{
		URITemplate: strings.TrimSpace(e.UriTemplate.Text),
		Name:        strings.TrimSpace(e.Describe.Name.Text),
		Title:       strings.TrimSpace(e.Describe.Title.Text),
		Description: strings.TrimSpace(e.Describe.Description.Text),
		MimeType:    strings.TrimSpace(e.Describe.MimeType.Text),
		Disabled:    e.Orig.Disabled,
	}
	bad := &errorCollector{entry: fmt.Sprintf("resource template %q", t.URITemplate)}
	bad.checkMimeType(t.MimeType)
	e.emptySource = false
	if e.Source.Selected == TmplSrcFolder {
		t.Folder = strings.TrimSpace(e.Folder.Text)
		if t.Folder == "" {
			e.emptySource = true
			bad.add("folder", "choose the folder whose files this template serves")
		}
	} else {
		t.Text = catalog.Template(e.Text.Entry.Text)
		if t.Text == "" {
			e.emptySource = true
			bad.add("text", "write the text clients read")
		}
	}
	for v, r := range e.Completions {
		if vals := nonEmptyLines(r.Values.Text); len(vals) > 0 {
			if t.Completions == nil {
				t.Completions = map[string][]string{}
			}
			for i := range vals {
				vals[i] = strings.TrimSpace(vals[i])
			}
			t.Completions[v] = vals
		}
	}
	return t, bad.list
}

// chooseFolder asks for the folder a folder template serves.
func (e *TemplateEditor) chooseFolder() {
	d := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
		if err != nil || u == nil {
			e.reportDialogError(err, "folder")
			return
		}
		e.Folder.SetText(u.Path())
		ui.SetFieldError(e.Errs["folder"], nil)
	}, e.win)
	d.Show()
}
