package app

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

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// Where a resource's content comes from, as the editor names it.
const (
	srcText    = "Text written here"
	srcBlob    = "Binary data (base64)"
	srcFile    = "A file on disk"
	srcHTTP    = "An HTTP request"
	srcCommand = "The output of a command"
)

// Where a resource template's content comes from.
const (
	tmplSrcText   = "Text written here, filled from the URI"
	tmplSrcFolder = "Files in a folder"
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
	mimeType *widget.Entry
}

func newDescribeFields(name, title, description, mimeType string) describeFields {
	d := describeFields{titledFields: newTitledFields(name, title, description, [3]string{
		"e.g. todo (required; clients list it by this)",
		"Shown to people, e.g. My to-do list",
		"What it holds: the model reads this to decide when to read it"}, 2), mimeType: widget.NewEntry()}
	d.mimeType.SetPlaceHolder("e.g. text/markdown (optional; guessed when empty)")
	d.mimeType.SetText(mimeType)
	return d
}

func (d describeFields) rows(errs fieldErrors) []fyne.CanvasObject {
	return []fyne.CanvasObject{errs.field("Name", d.name, "name"), errs.field("Title", d.title, "title"),
		errs.field("Description", d.description, "description"), errs.field("Media type (MIME)", d.mimeType, "mimeType")}
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

	uri        *widget.Entry
	describe   describeFields
	source     *widget.Select
	text, blob *widget.Entry
	// blobData is the blob's base64, also when it is too long to show.
	blobData  string
	blobSize  *widget.Label
	clearBlob *widget.Button
	file      *widget.Entry
	http      *httpFields
	command   *commandFields
	// tmpl is what the request and the command insert and preview with.
	tmpl *templateContext

	// emptySource says the chosen source was left empty: the form names
	// that itself, better than the server's "exactly one source" rule.
	emptySource bool

	content fyne.CanvasObject
}

// NewResourceEditor edits r; isNew says it is not stored yet. win hosts the
// file dialogs; onSaved gets the URI after a save, "" after a delete.
func NewResourceEditor(st *storage.Store, win fyne.Window, r catalog.Resource, isNew bool, onSaved func(uri string)) *ResourceEditor {
	errs := newFieldErrors("uri", "name", "title", "description", "mimeType", "text", "blob", "file",
		"http", "http.method", "http.url", "http.query", "http.headers", "command", "command.argv", "command.dir", "command.env",
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

	e.uri = widget.NewEntry()
	e.uri.SetPlaceHolder("e.g. notes://todo or file:///home/me/todo.md")
	e.uri.SetText(r.URI)
	e.describe = newDescribeFields(r.Name, r.Title, r.Description, r.MimeType)

	e.text = widget.NewMultiLineEntry()
	e.text.SetPlaceHolder("The content clients read")
	e.text.SetMinRowsVisible(6)
	e.text.SetText(r.Text)

	e.blob = widget.NewMultiLineEntry()
	e.blob.Wrapping = fyne.TextWrapBreak
	e.blob.SetMinRowsVisible(4)
	e.blobSize = widget.NewLabel("")
	e.blob.OnChanged = func(s string) {
		e.blobData = strings.Join(strings.Fields(s), "")
		e.showBlobSize()
	}
	e.clearBlob = widget.NewButtonWithIcon("Clear", theme.ContentClearIcon(), func() { e.setBlob("") })
	e.setBlob(r.Blob)
	load := widget.NewButtonWithIcon("Load from file…", theme.FolderOpenIcon(), e.chooseBlobFile)

	e.file = widget.NewEntry()
	e.file.SetPlaceHolder("/absolute/path/to/the/file")
	e.file.SetText(r.File)
	choose := widget.NewButtonWithIcon("Choose…", theme.FolderOpenIcon(), e.chooseFile)
	fileHint := hint("Read on every request. AI apps that follow it are told when the file changes (resources/updated).")

	// A resource has no arguments: its request or command can use
	// secrets and mcptray's paths, and Insert ▸ offers just those.
	e.tmpl = newTemplateContext(st.Path(), func() ([]string, map[string]any) { return []string{}, map[string]any{} }, func() []stepInfo { return nil })
	e.http = newHTTPFields(errs, "http", r.HTTP, e.tmpl)
	e.command = newCommandFields(errs, "command", r.Command, e.tmpl)
	for _, en := range append(e.http.entries(), e.command.entries()...) {
		en.OnChanged = func(string) { e.tmpl.changed() }
	}

	boxes := map[string]*fyne.Container{
		srcText: container.NewVBox(errs.sub("Text", e.text, "text")),
		srcBlob: container.NewVBox(errs.sub("Data", container.NewBorder(nil, container.NewBorder(nil, nil, nil, container.NewHBox(e.clearBlob, load), e.blobSize), nil, nil, input(e.blob)), "blob")),
		srcFile: container.NewVBox(errs.sub("File", container.NewBorder(nil, nil, nil, choose, input(e.file)), "file"), fileHint),
		srcHTTP: e.http.box, srcCommand: e.command.box,
	}
	e.source = sourceSwitch(boxes, srcText, srcBlob, srcFile, srcHTTP, srcCommand)
	switch {
	case r.Blob != "":
		e.source.SetSelected(srcBlob)
	case r.File != "":
		e.source.SetSelected(srcFile)
	case r.HTTP != nil:
		e.source.SetSelected(srcHTTP)
	case r.Command != nil:
		e.source.SetSelected(srcCommand)
	default:
		e.source.SetSelected(srcText)
	}

	rows := []fyne.CanvasObject{errs.field("URI", e.uri, "uri")}
	rows = append(rows, e.describe.rows(errs)...)
	rows = append(rows, widget.NewSeparator(), errs.field("Content comes from", e.source, ""))
	for _, k := range e.source.Options {
		rows = append(rows, boxes[k])
	}
	e.content = e.layout(container.NewVBox(rows...))
	e.settle()
	e.tmpl.refresh()
	return e
}

// Content is the editor's widget tree.
func (e *ResourceEditor) Content() fyne.CanvasObject { return e.content }

// Resource is the resource as the form describes it, with the problems of
// fields the form itself could not read.
func (e *ResourceEditor) Resource() (catalog.Resource, []catalog.Problem) {
	r := catalog.Resource{
		URI:         strings.TrimSpace(e.uri.Text),
		Name:        strings.TrimSpace(e.describe.name.Text),
		Title:       strings.TrimSpace(e.describe.title.Text),
		Description: strings.TrimSpace(e.describe.description.Text),
		MimeType:    strings.TrimSpace(e.describe.mimeType.Text),
		Disabled:    e.orig.Disabled,
	}
	bad := &errorCollector{entry: fmt.Sprintf("resource %q", r.URI)}
	bad.checkMimeType(r.MimeType)
	e.emptySource = false
	empty := func(field, msg string) {
		e.emptySource = true
		bad.add(field, msg)
	}
	switch e.source.Selected {
	case srcBlob:
		r.Blob = e.blobData
		if r.Blob == "" {
			empty("blob", "paste base64 data, or Load from file…")
		}
	case srcFile:
		r.File = strings.TrimSpace(e.file.Text)
		if r.File == "" {
			empty("file", "choose the file this resource serves")
		}
	case srcHTTP:
		r.HTTP = e.http.spec(e.orig.HTTP, "http", bad.add)
	case srcCommand:
		r.Command = e.command.spec(e.orig.Command, "command", bad.add)
	default:
		r.Text = e.text.Text
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
		e.blob.SetPlaceHolder("base64 data, or Load from file…")
		e.blob.Enable()
		e.blob.SetText(b64)
	} else {
		e.blob.SetText("")
		e.blob.SetPlaceHolder("Too long to show here. Load from file… replaces it; Clear empties it to paste base64.")
		e.blob.Disable()
	}
	// SetText reports no change when the text stays the same.
	e.blobData = b64
	e.showBlobSize()
}

// showBlobSize says how much data the blob holds, or that it is not base64.
func (e *ResourceEditor) showBlobSize() {
	if e.blobData == "" {
		e.blobSize.SetText("empty")
		return
	}
	b, err := base64.StdEncoding.DecodeString(e.blobData)
	if err != nil {
		e.blobSize.SetText("not valid base64")
		return
	}
	e.blobSize.SetText(byteSize(len(b)))
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
	e.source.SetSelected(srcBlob)
	e.setBlob(base64.StdEncoding.EncodeToString(data))
	if strings.TrimSpace(e.describe.mimeType.Text) == "" {
		if t := mime.TypeByExtension(filepath.Ext(name)); t != "" {
			e.describe.mimeType.SetText(t)
		}
	}
	setFieldError(e.errs["blob"], nil)
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
					setFieldError(e.errs["blob"], []string{fmt.Sprintf("reading %s: %v", name, err)})
				case len(data) > maxBlobBytes:
					setFieldError(e.errs["blob"], []string{fmt.Sprintf("%s is larger than %s: serve it as a file on disk instead", name, byteSize(maxBlobBytes))})
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
		e.file.SetText(rc.URI().Path())
		setFieldError(e.errs["file"], nil)
	}, e.win)
	d.Show()
}

// completionRow is the completion values of one URI variable.
type completionRow struct {
	values *widget.Entry
	label  *widget.Label
}

// TemplateEditor is the form that creates and edits a resource template: a
// family of resources named by an RFC 6570 URI template, read from text
// filled with the URI's variables or from the files in a folder.
type TemplateEditor struct {
	*editorCore[catalog.ResourceTemplate]
	win fyne.Window

	uriTemplate *widget.Entry
	describe    describeFields
	source      *widget.Select
	text        *templated
	// tmpl is what the text inserts and previews with.
	tmpl   *templateContext
	folder *widget.Entry
	// completions has a row per variable of the URI template, and keeps
	// the rows of variables no longer in it while they hold values, so a
	// renamed variable loses nothing.
	completions   map[string]*completionRow
	completionBox *fyne.Container

	emptySource bool

	content fyne.CanvasObject
}

// NewTemplateEditor edits t; isNew says it is not stored yet. win hosts
// the folder dialog; onSaved gets the URI template after a save, "" after a
// delete.
func NewTemplateEditor(st *storage.Store, win fyne.Window, t catalog.ResourceTemplate, isNew bool, onSaved func(uriTemplate string)) *TemplateEditor {
	errs := newFieldErrors("uriTemplate", "name", "title", "description", "mimeType", "text", "folder", "completions")
	e := &TemplateEditor{editorCore: newEditorCore(st, templateKind, t, isNew, onSaved, errs), win: win, completions: map[string]*completionRow{}}
	e.read = e.Template
	e.validate = func(t catalog.ResourceTemplate) []catalog.Problem {
		ps := mcpcore.ValidateResourceTemplate(t)
		if e.emptySource {
			ps = withoutField(ps, "text")
		}
		return ps
	}

	e.uriTemplate = widget.NewEntry()
	e.uriTemplate.SetPlaceHolder("e.g. notes://days/{day} or file:///notes/{path}")
	e.uriTemplate.SetText(t.URITemplate)
	e.describe = newDescribeFields(t.Name, t.Title, t.Description, t.MimeType)

	// The text's parameters are the URI template's variables.
	e.tmpl = newTemplateContext(st.Path(), e.templateParams, func() []stepInfo { return nil })
	text := widget.NewMultiLineEntry()
	text.SetPlaceHolder("The content; {{.args.day}} is the URI's day variable")
	text.SetMinRowsVisible(6)
	text.SetText(string(t.Text))
	text.OnChanged = func(string) { e.tmpl.changed() }
	e.text = e.tmpl.templatedEntry(text, func() int { return -1 })
	e.folder = widget.NewEntry()
	e.folder.SetPlaceHolder("/absolute/path/to/a/folder")
	e.folder.SetText(t.Folder)
	choose := widget.NewButtonWithIcon("Choose…", theme.FolderOpenIcon(), e.chooseFolder)
	folderHint := hint("The template's one variable is the path of a file inside the folder; reads never leave it.")

	boxes := map[string]*fyne.Container{
		tmplSrcText:   container.NewVBox(errs.templatedSub("Text", e.text, "text")),
		tmplSrcFolder: container.NewVBox(errs.sub("Folder", container.NewBorder(nil, nil, nil, choose, input(e.folder)), "folder"), folderHint),
	}
	e.source = sourceSwitch(boxes, tmplSrcText, tmplSrcFolder)
	if t.Folder != "" {
		e.source.SetSelected(tmplSrcFolder)
	} else {
		e.source.SetSelected(tmplSrcText)
	}

	for v, vals := range t.Completions {
		e.completionRow(v).values.SetText(strings.Join(vals, "\n"))
	}
	e.completionBox = container.NewVBox()
	e.uriTemplate.OnChanged = func(string) {
		e.layoutCompletions()
		e.tmpl.changed()
	}
	e.layoutCompletions()
	compHint := hint("Values AI apps may suggest for each variable of the URI template, one per line.")

	rows := []fyne.CanvasObject{errs.field("URI template", e.uriTemplate, "uriTemplate")}
	rows = append(rows, e.describe.rows(errs)...)
	rows = append(rows, widget.NewSeparator(), errs.field("Content comes from", e.source, ""),
		boxes[tmplSrcText], boxes[tmplSrcFolder], widget.NewSeparator(),
		errs.field("Completions", container.NewVBox(compHint, e.completionBox), "completions"))
	e.content = e.layout(container.NewVBox(rows...))
	e.settle()
	e.tmpl.refresh()
	return e
}

// Content is the editor's widget tree.
func (e *TemplateEditor) Content() fyne.CanvasObject { return e.content }

// templateParams are the URI template's variables, each with its first
// completion as the sample, else its name in brackets.
func (e *TemplateEditor) templateParams() ([]string, map[string]any) {
	names := templateVars(strings.TrimSpace(e.uriTemplate.Text))
	sample := map[string]any{}
	for _, n := range names {
		sample[n] = "[" + n + "]"
		if r, ok := e.completions[n]; ok {
			if v := strings.TrimSpace(strings.Split(r.values.Text, "\n")[0]); v != "" {
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
	r, ok := e.completions[v]
	if !ok {
		r = &completionRow{values: widget.NewMultiLineEntry(), label: wrapLabel("")}
		r.values.SetPlaceHolder("values, one per line (optional)")
		r.values.SetMinRowsVisible(2)
		e.completions[v] = r
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
	vars := templateVars(strings.TrimSpace(e.uriTemplate.Text))
	for _, v := range vars {
		e.completionRow(v)
	}
	e.completionBox.RemoveAll()
	for _, v := range slices.Sorted(maps.Keys(e.completions)) {
		r := e.completions[v]
		inTemplate := slices.Contains(vars, v)
		if !inTemplate && strings.TrimSpace(r.values.Text) == "" {
			continue
		}
		r.label.SetText("{" + v + "}")
		if !inTemplate {
			r.label.SetText("{" + v + "} — not in the URI template any more; clear it or put it back")
		}
		e.completionBox.Add(container.NewVBox(r.label, input(r.values)))
	}
	if len(e.completionBox.Objects) == 0 {
		e.completionBox.Add(widget.NewLabel("The URI template has no variables yet."))
	}
}

// Template is the resource template as the form describes it, with the
// problems of fields the form itself could not read.
func (e *TemplateEditor) Template() (catalog.ResourceTemplate, []catalog.Problem) {
	t := catalog.ResourceTemplate{
		URITemplate: strings.TrimSpace(e.uriTemplate.Text),
		Name:        strings.TrimSpace(e.describe.name.Text),
		Title:       strings.TrimSpace(e.describe.title.Text),
		Description: strings.TrimSpace(e.describe.description.Text),
		MimeType:    strings.TrimSpace(e.describe.mimeType.Text),
		Disabled:    e.orig.Disabled,
	}
	bad := &errorCollector{entry: fmt.Sprintf("resource template %q", t.URITemplate)}
	bad.checkMimeType(t.MimeType)
	e.emptySource = false
	if e.source.Selected == tmplSrcFolder {
		t.Folder = strings.TrimSpace(e.folder.Text)
		if t.Folder == "" {
			e.emptySource = true
			bad.add("folder", "choose the folder whose files this template serves")
		}
	} else {
		t.Text = catalog.Template(e.text.entry.Text)
		if t.Text == "" {
			e.emptySource = true
			bad.add("text", "write the text clients read")
		}
	}
	for v, r := range e.completions {
		if vals := nonEmptyLines(r.values.Text); len(vals) > 0 {
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
		e.folder.SetText(u.Path())
		setFieldError(e.errs["folder"], nil)
	}, e.win)
	d.Show()
}
