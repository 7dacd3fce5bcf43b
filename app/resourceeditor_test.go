package app

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/storage"
)

// newTestManager is a manager window on a served store.
func newTestManager(t *testing.T) (*Manager, *served) {
	t.Helper()
	a := newTestApp(t)
	s := newServed(t)
	m := NewManager(a, Config{Store: s.st, Approvals: s.eng})
	t.Cleanup(m.win.Close)
	return m, s
}

// readResource reads a resource over MCP; it returns the error text on failure.
func (s *served) readResource(t *testing.T, uri string) (*mcp.ReadResourceResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs := s.connect(ctx, t)
	defer cs.Close()
	return cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
}

// shownErrors are the error lines visible in a form, by key.
func shownErrors(errs fieldErrors) map[string]string {
	out := map[string]string{}
	for k, l := range errs {
		if l.Visible() {
			out[k] = l.Text
		}
	}
	return out
}

func TestResourceEditorCreatesAServedResource(t *testing.T) {
	m, s := newTestManager(t)
	m.NewResource()
	e := m.resEditor

	test.Type(e.uri, "notes://todo")
	test.Type(e.describe.name, "todo")
	test.Type(e.describe.title, "My to-do list")
	test.Type(e.describe.mimeType, "text/markdown")
	test.Type(e.text, "- buy milk")
	test.Tap(e.save)

	if !strings.HasPrefix(e.status.Text, "Saved") {
		t.Fatalf("status %q; errors %v", e.status.Text, shownErrors(e.errs))
	}
	got, err := s.st.Resource(context.Background(), "notes://todo")
	if err != nil {
		t.Fatalf("not in SQLite: %v", err)
	}
	if got.Name != "todo" || got.Title != "My to-do list" || got.Text != "- buy milk" || got.MimeType != "text/markdown" {
		t.Fatalf("stored %+v", got)
	}
	testutil.EventuallyShows(t, "resources/read over HTTP", func() (bool, string) {
		res, err := s.readResource(t, "notes://todo")
		if err != nil {
			return false, err.Error()
		}
		if len(res.Contents) != 1 {
			return false, "no contents"
		}
		c := res.Contents[0]
		return c.Text == "- buy milk" && c.MIMEType == "text/markdown", c.Text + " " + c.MIMEType
	})
	// The list shows it, selected, and the editor that saved it stays open
	// with its status.
	if len(m.resources.all) != 1 || m.resources.all[0].key != "notes://todo" || !strings.HasPrefix(m.resources.all[0].label, "Resource") {
		t.Fatalf("list %+v", m.resources.all)
	}
	if m.resEditor != e || !strings.HasPrefix(e.status.Text, "Saved") {
		t.Fatalf("the editor was replaced after the save (status %q)", m.resEditor.status.Text)
	}
	if e.del.Hidden {
		t.Fatal("Delete is hidden after the first save")
	}
}

func TestResourceEditorShowsProblemsAtTheirFields(t *testing.T) {
	m, s := newTestManager(t)
	m.NewResource()
	e := m.resEditor

	// No URI, a MIME type that is not one, no text.
	test.Type(e.describe.name, "todo")
	test.Type(e.describe.mimeType, "markdown")
	test.Tap(e.save)

	shown := shownErrors(e.errs)
	if !strings.Contains(shown["uri"], "required") {
		t.Errorf("uri error %q", shown["uri"])
	}
	if !strings.Contains(shown["mimeType"], "not a media type") {
		t.Errorf("mimeType error %q", shown["mimeType"])
	}
	if !strings.Contains(shown["text"], "write the text") || strings.Contains(shown["text"], "exactly one") {
		t.Errorf("text error %q", shown["text"])
	}
	if len(shown) != 3 {
		t.Errorf("errors shown: %v", shown)
	}
	if !strings.HasPrefix(e.status.Text, "Not saved") {
		t.Fatalf("status %q", e.status.Text)
	}

	// A file source without a path names the file field, not a hidden one.
	e.source.SetSelected(srcFile)
	test.Type(e.uri, "notes://todo")
	e.describe.mimeType.SetText("")
	test.Tap(e.save)
	if shown := shownErrors(e.errs); len(shown) != 1 || !strings.Contains(shown["file"], "choose the file") {
		t.Errorf("errors shown: %v", shown)
	}
	test.Type(e.file, "relative/path.txt")
	test.Tap(e.save)
	if shown := shownErrors(e.errs); len(shown) != 1 || !strings.Contains(shown["file"], "absolute") {
		t.Errorf("errors shown: %v", shown)
	}

	cat, err := s.st.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Resources) != 0 {
		t.Fatalf("saved anyway: %+v", cat.Resources)
	}
}

func TestResourceEditorRefusesATakenURIAndRenames(t *testing.T) {
	m, s := newTestManager(t)
	ctx := context.Background()
	for _, uri := range []string{"notes://a", "notes://b"} {
		if err := s.st.PutResource(ctx, catalog.Resource{URI: uri, Name: "n", Text: "t " + uri}); err != nil {
			t.Fatal(err)
		}
	}
	m.reloadEntries()

	m.NewResource()
	e := m.resEditor
	test.Type(e.uri, "notes://a")
	test.Type(e.describe.name, "dup")
	test.Type(e.text, "x")
	if e.Save() {
		t.Fatal("saved over an existing URI")
	}
	if got := e.errs["uri"].Text; got != "a resource with this URI exists already" {
		t.Fatalf("uri error %q", got)
	}
	if r, _ := s.st.Resource(ctx, "notes://a"); r.Name != "n" {
		t.Fatalf("notes://a was overwritten: %+v", r)
	}

	// Open notes://a from the list (dropping the refused new resource) and
	// rename it onto a taken URI, then a free one.
	m.ask = func(_, _ string, discard func(bool)) { discard(true) }
	i := slices.IndexFunc(m.resources.shown, func(c catalogEntry) bool { return c.key == "notes://a" })
	m.resources.list.Select(i)
	e = m.resEditor
	if e == nil || e.uri.Text != "notes://a" || e.text.Text != "t notes://a" {
		t.Fatalf("selecting notes://a opened %+v", e)
	}
	e.uri.SetText("notes://b")
	if e.Save() || e.errs["uri"].Text != "a resource with this URI exists already" {
		t.Fatalf("renamed onto notes://b: %q", e.errs["uri"].Text)
	}
	e.uri.SetText("notes://c")
	if !e.Save() {
		t.Fatalf("rename refused: %v", shownErrors(e.errs))
	}
	if _, err := s.st.Resource(ctx, "notes://a"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("the old URI stays: %v", err)
	}
	if r, err := s.st.Resource(ctx, "notes://c"); err != nil || r.Text != "t notes://a" {
		t.Fatalf("notes://c = %+v, %v", r, err)
	}
	if got := len(m.resources.all); got != 2 {
		t.Fatalf("list has %d entries", got)
	}
}

func TestResourceEditorLoadsABlob(t *testing.T) {
	m, s := newTestManager(t)
	m.NewResource()
	e := m.resEditor
	data := []byte{0x89, 'P', 'N', 'G', 0, 1, 2}
	test.Type(e.uri, "img://logo")
	test.Type(e.describe.name, "logo")
	e.LoadBlob("logo.png", data)

	if e.source.Selected != srcBlob || e.describe.mimeType.Text != "image/png" || e.blobSize.Text != "7 bytes" {
		t.Fatalf("source %q, mime %q, size %q", e.source.Selected, e.describe.mimeType.Text, e.blobSize.Text)
	}
	if !e.Save() {
		t.Fatalf("save: %v", shownErrors(e.errs))
	}
	testutil.EventuallyShows(t, "resources/read of the blob", func() (bool, string) {
		res, err := s.readResource(t, "img://logo")
		if err != nil {
			return false, err.Error()
		}
		return len(res.Contents) == 1 && string(res.Contents[0].Blob) == string(data), base64.StdEncoding.EncodeToString(res.Contents[0].Blob)
	})

	// Data too long to show stays out of the field but is stored whole.
	big := bytes.Repeat([]byte{7}, 100<<10)
	e.LoadBlob("big.bin", big)
	if !e.blob.Disabled() || e.blob.Text != "" || e.blobSize.Text != "100.0 KB" {
		t.Fatalf("big blob: disabled %v, %d chars shown, size %q", e.blob.Disabled(), len(e.blob.Text), e.blobSize.Text)
	}
	if !e.Save() {
		t.Fatalf("save: %v", shownErrors(e.errs))
	}
	if r, err := s.st.Resource(context.Background(), "img://logo"); err != nil || r.Blob != base64.StdEncoding.EncodeToString(big) {
		t.Fatalf("stored blob of %d chars, %v", len(r.Blob), err)
	}
	test.Tap(e.clearBlob)
	if e.blob.Disabled() || e.blobSize.Text != "empty" {
		t.Fatalf("after Clear: disabled %v, size %q", e.blob.Disabled(), e.blobSize.Text)
	}

	// Typing garbage says so next to the size, and Save names the field.
	e.blob.SetText("not base64!")
	if e.blobSize.Text != "not valid base64" {
		t.Fatalf("size label %q", e.blobSize.Text)
	}
	if e.Save() || !strings.Contains(e.errs["blob"].Text, "base64") {
		t.Fatalf("blob error %q", e.errs["blob"].Text)
	}
}

func TestResourceToggleSurvivesAnOpenEditor(t *testing.T) {
	m, s := newTestManager(t)
	ctx := context.Background()
	if err := s.st.PutResource(ctx, catalog.Resource{URI: "notes://a", Name: "a", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	m.reloadEntries()
	m.resources.list.Select(0)
	e := m.resEditor
	m.setEntryEnabled(m.resources.all[0], false)
	if !m.resources.all[0].disabled {
		t.Fatal("the list does not show it disabled")
	}
	test.Type(e.describe.title, "A")
	if !e.Save() {
		t.Fatalf("save: %v", shownErrors(e.errs))
	}
	if r, _ := s.st.Resource(ctx, "notes://a"); !r.Disabled || r.Title != "A" {
		t.Fatalf("stored %+v: the save re-enabled it or lost the title", r)
	}
}

func TestTemplateEditorCreatesAServedTemplate(t *testing.T) {
	m, s := newTestManager(t)
	m.NewTemplate()
	e := m.tmplEditor
	if m.resEditor != nil {
		t.Fatal("both editors open")
	}
	test.Type(e.uriTemplate, "notes://days/{day}")
	test.Type(e.describe.name, "day")
	test.Type(e.text.entry, "Notes for {{.args.day}}")
	row := e.completions["day"]
	if row == nil || len(e.completionBox.Objects) != 1 {
		t.Fatalf("no completion row for {day}: %v", e.completions)
	}
	test.Type(row.values, "monday\ntuesday\n")
	// The text's preview fills the URI's variables with their first
	// completion; a variable the URI does not have is a mistake.
	e.tmpl.refresh()
	if e.text.preview.Text != "With sample values: Notes for monday" {
		t.Fatalf("preview %q", e.text.preview.Text)
	}
	if it := menuPath(e.text.menu(), "Parameter", "day"); it == nil {
		t.Fatal("Insert ▸ Parameter has no day")
	}
	e.text.entry.SetText("Notes for {{.args.month}}")
	e.tmpl.work.Wait()
	if p := e.errs["text"]; !p.Visible() || !strings.Contains(p.Text, `unknown parameter "month" (parameters: day)`) {
		t.Fatalf("the text says %q", p.Text)
	}
	e.text.entry.SetText("Notes for {{.args.day}}")
	if !e.Save() {
		t.Fatalf("save: %v", shownErrors(e.errs))
	}
	got, err := s.st.ResourceTemplate(context.Background(), "notes://days/{day}")
	if err != nil || !slices.Equal(got.Completions["day"], []string{"monday", "tuesday"}) {
		t.Fatalf("stored %+v, %v", got, err)
	}
	testutil.EventuallyShows(t, "resources/read through the template", func() (bool, string) {
		res, err := s.readResource(t, "notes://days/friday")
		if err != nil {
			return false, err.Error()
		}
		return len(res.Contents) == 1 && res.Contents[0].Text == "Notes for friday", res.Contents[0].Text
	})
	if len(m.resources.all) != 1 || m.resources.all[0].kind != entryTemplate || !strings.HasPrefix(m.resources.all[0].label, "Template") {
		t.Fatalf("list %+v", m.resources.all)
	}

	// Renaming the variable keeps the old values in sight, and Save says
	// they belong to no variable.
	e.uriTemplate.SetText("notes://days/{date}")
	if len(e.completionBox.Objects) != 2 {
		t.Fatalf("completion rows %d, want {date} and the orphaned {day}", len(e.completionBox.Objects))
	}
	if e.Save() || !strings.Contains(e.errs["completions"].Text, `"day" is not a variable`) {
		t.Fatalf("completions error %q", e.errs["completions"].Text)
	}
}

func TestTemplateEditorFolderProblems(t *testing.T) {
	m, _ := newTestManager(t)
	m.NewTemplate()
	e := m.tmplEditor
	test.Type(e.uriTemplate, "files://{a}/{b}")
	test.Type(e.describe.name, "files")
	e.source.SetSelected(tmplSrcFolder)
	test.Tap(e.save)
	if shown := shownErrors(e.errs); len(shown) != 1 || !strings.Contains(shown["folder"], "choose the folder") {
		t.Fatalf("errors shown: %v", shown)
	}
	e.folder.SetText(t.TempDir())
	test.Tap(e.save)
	if shown := shownErrors(e.errs); len(shown) != 1 || !strings.Contains(shown["uriTemplate"], "exactly one variable") {
		t.Fatalf("errors shown: %v", shown)
	}
	e.uriTemplate.SetText("files://{+path}")
	if !e.Save() {
		t.Fatalf("save: %v", shownErrors(e.errs))
	}
}

func TestResourceDeleteAsksFirst(t *testing.T) {
	m, s := newTestManager(t)
	m.win.Resize(fyne.NewSize(980, 680))
	ctx := context.Background()
	if err := s.st.PutResourceTemplate(ctx, catalog.ResourceTemplate{URITemplate: "notes://d/{day}", Name: "d", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	m.reloadEntries()
	m.resources.list.Select(0)
	e := m.tmplEditor
	if e == nil || e.del.Hidden {
		t.Fatalf("no editor with a Delete button for the template: %+v", e)
	}
	test.Tap(e.del)
	test.Tap(overlayButton(t, m.win, "No"))
	if _, err := s.st.ResourceTemplate(ctx, "notes://d/{day}"); err != nil {
		t.Fatalf("deleted although the answer was No: %v", err)
	}
	test.Tap(e.del)
	if all := strings.Join(texts(m.win), "\n"); !strings.Contains(all, `Delete the resource template "notes://d/{day}"?`) {
		t.Fatalf("the question:\n%s", all)
	}
	test.Tap(overlayButton(t, m.win, "Yes"))
	if _, err := s.st.ResourceTemplate(ctx, "notes://d/{day}"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("not deleted: %v", err)
	}
	if len(m.resources.all) != 0 || m.resources.open.key != "" {
		t.Fatalf("after the delete: list %+v, open %+v", m.resources.all, m.resources.open)
	}
}
