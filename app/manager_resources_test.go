package app

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/app/editor"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/storage"
)

// newTestManager is a manager window on a served store.
func newTestManager(t *testing.T) (*Manager, *uitest.Served) {
	t.Helper()
	a := uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	m := NewManager(a, Config{Store: s.St, Approvals: s.Eng})
	t.Cleanup(m.win.Close)
	return m, s
}

func TestResourceEditorCreatesAServedResource(t *testing.T) {
	m, s := newTestManager(t)
	m.NewResource()
	e := m.resEditor

	test.Type(e.Uri, "notes://todo")
	test.Type(e.Describe.Name, "todo")
	test.Type(e.Describe.Title, "My to-do list")
	test.Type(e.Describe.MimeType, "text/markdown")
	test.Type(e.Text, "- buy milk")
	test.Tap(e.SaveButton)

	if !strings.HasPrefix(e.Status.Text, "Saved") {
		t.Fatalf("status %q; errors %v", e.Status.Text, e.Errs.Shown())
	}
	got, err := s.St.Resource(context.Background(), "notes://todo")
	if err != nil {
		t.Fatalf("not in SQLite: %v", err)
	}
	if got.Name != "todo" || got.Title != "My to-do list" || got.Text != "- buy milk" || got.MimeType != "text/markdown" {
		t.Fatalf("stored %+v", got)
	}
	testutil.EventuallyShows(t, "resources/read over HTTP", func() (bool, string) {
		res, err := s.ReadResource(t, "notes://todo")
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
	if m.resEditor != e || !strings.HasPrefix(e.Status.Text, "Saved") {
		t.Fatalf("the editor was replaced after the save (status %q)", m.resEditor.Status.Text)
	}
	if e.Del.Disabled() {
		t.Fatal("Delete is disabled after the first save")
	}
}

func TestResourceEditorShowsProblemsAtTheirFields(t *testing.T) {
	m, s := newTestManager(t)
	m.NewResource()
	e := m.resEditor

	// No URI, a MIME type that is not one, no text.
	test.Type(e.Describe.Name, "todo")
	test.Type(e.Describe.MimeType, "markdown")
	test.Tap(e.SaveButton)

	shown := e.Errs.Shown()
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
	if !strings.HasPrefix(e.Status.Text, "Not saved") {
		t.Fatalf("status %q", e.Status.Text)
	}

	// A file source without a path names the file field, not a hidden one.
	e.Source.SetSelected(editor.SrcFile)
	test.Type(e.Uri, "notes://todo")
	e.Describe.MimeType.SetText("")
	test.Tap(e.SaveButton)
	if shown := e.Errs.Shown(); len(shown) != 1 || !strings.Contains(shown["file"], "choose the file") {
		t.Errorf("errors shown: %v", shown)
	}
	test.Type(e.File, "relative/path.txt")
	test.Tap(e.SaveButton)
	if shown := e.Errs.Shown(); len(shown) != 1 || !strings.Contains(shown["file"], "absolute") {
		t.Errorf("errors shown: %v", shown)
	}

	cat, err := s.St.Catalog(context.Background())
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
		if err := s.St.PutResource(ctx, catalog.Resource{URI: uri, Name: "n", Text: "t " + uri}); err != nil {
			t.Fatal(err)
		}
	}
	m.reloadEntries()

	m.NewResource()
	e := m.resEditor
	test.Type(e.Uri, "notes://a")
	test.Type(e.Describe.Name, "dup")
	test.Type(e.Text, "x")
	if e.Save() {
		t.Fatal("saved over an existing URI")
	}
	if got := e.Errs["uri"].Text; got != "a resource with this URI exists already" {
		t.Fatalf("uri error %q", got)
	}
	if r, _ := s.St.Resource(ctx, "notes://a"); r.Name != "n" {
		t.Fatalf("notes://a was overwritten: %+v", r)
	}

	// Open notes://a from the list (dropping the refused new resource) and
	// rename it onto a taken URI, then a free one.
	m.ask = func(_, _ string, discard func(bool)) { discard(true) }
	i := slices.IndexFunc(m.resources.shown, func(c catalogEntry) bool { return c.key == "notes://a" })
	m.resources.list.Select(i)
	e = m.resEditor
	if e == nil || e.Uri.Text != "notes://a" || e.Text.Text != "t notes://a" {
		t.Fatalf("selecting notes://a opened %+v", e)
	}
	e.Uri.SetText("notes://b")
	if e.Save() || e.Errs["uri"].Text != "a resource with this URI exists already" {
		t.Fatalf("renamed onto notes://b: %q", e.Errs["uri"].Text)
	}
	e.Uri.SetText("notes://c")
	if !e.Save() {
		t.Fatalf("rename refused: %v", e.Errs.Shown())
	}
	if _, err := s.St.Resource(ctx, "notes://a"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("the old URI stays: %v", err)
	}
	if r, err := s.St.Resource(ctx, "notes://c"); err != nil || r.Text != "t notes://a" {
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
	test.Type(e.Uri, "img://logo")
	test.Type(e.Describe.Name, "logo")
	e.LoadBlob("logo.png", data)

	if e.Source.Selected != editor.SrcBlob || e.Describe.MimeType.Text != "image/png" || e.BlobSize.Text != "7 bytes" {
		t.Fatalf("source %q, mime %q, size %q", e.Source.Selected, e.Describe.MimeType.Text, e.BlobSize.Text)
	}
	if !e.Save() {
		t.Fatalf("save: %v", e.Errs.Shown())
	}
	testutil.EventuallyShows(t, "resources/read of the blob", func() (bool, string) {
		res, err := s.ReadResource(t, "img://logo")
		if err != nil {
			return false, err.Error()
		}
		return len(res.Contents) == 1 && string(res.Contents[0].Blob) == string(data), base64.StdEncoding.EncodeToString(res.Contents[0].Blob)
	})

	// Data too long to show stays out of the field but is stored whole.
	big := bytes.Repeat([]byte{7}, 100<<10)
	e.LoadBlob("big.bin", big)
	if !e.Blob.Disabled() || e.Blob.Text != "" || e.BlobSize.Text != "100.0 KB" {
		t.Fatalf("big blob: disabled %v, %d chars shown, size %q", e.Blob.Disabled(), len(e.Blob.Text), e.BlobSize.Text)
	}
	if !e.Save() {
		t.Fatalf("save: %v", e.Errs.Shown())
	}
	if r, err := s.St.Resource(context.Background(), "img://logo"); err != nil || r.Blob != base64.StdEncoding.EncodeToString(big) {
		t.Fatalf("stored blob of %d chars, %v", len(r.Blob), err)
	}
	test.Tap(e.ClearBlob)
	if e.Blob.Disabled() || e.BlobSize.Text != "empty" {
		t.Fatalf("after Clear: disabled %v, size %q", e.Blob.Disabled(), e.BlobSize.Text)
	}

	// Typing garbage says so next to the size, and Save names the field.
	e.Blob.SetText("not base64!")
	if e.BlobSize.Text != "not valid base64" {
		t.Fatalf("size label %q", e.BlobSize.Text)
	}
	if e.Save() || !strings.Contains(e.Errs["blob"].Text, "base64") {
		t.Fatalf("blob error %q", e.Errs["blob"].Text)
	}
}

func TestResourceToggleSurvivesAnOpenEditor(t *testing.T) {
	m, s := newTestManager(t)
	ctx := context.Background()
	if err := s.St.PutResource(ctx, catalog.Resource{URI: "notes://a", Name: "a", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	m.reloadEntries()
	m.resources.list.Select(0)
	e := m.resEditor
	m.setEntryEnabled(m.resources.all[0], false)
	if !m.resources.all[0].disabled {
		t.Fatal("the list does not show it disabled")
	}
	test.Type(e.Describe.Title, "A")
	if !e.Save() {
		t.Fatalf("save: %v", e.Errs.Shown())
	}
	if r, _ := s.St.Resource(ctx, "notes://a"); !r.Disabled || r.Title != "A" {
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
	test.Type(e.UriTemplate, "notes://days/{day}")
	test.Type(e.Describe.Name, "day")
	test.Type(e.Text.Entry, "Notes for {{.args.day}}")
	row := e.Completions["day"]
	if row == nil || len(e.CompletionBox.Objects) != 1 {
		t.Fatalf("no completion row for {day}: %v", e.Completions)
	}
	test.Type(row.Values, "monday\ntuesday\n")
	// The text's preview fills the URI's variables with their first
	// completion; a variable the URI does not have is a mistake.
	e.Tmpl.Refresh()
	if e.Text.Preview.Text != "With sample values: Notes for monday" {
		t.Fatalf("preview %q", e.Text.Preview.Text)
	}
	if it := uitest.MenuPath(e.Text.Menu(), "Parameter", "day"); it == nil {
		t.Fatal("Insert ▸ Parameter has no day")
	}
	e.Text.Entry.SetText("Notes for {{.args.month}}")
	e.Tmpl.Work.Wait()
	if p := e.Errs["text"]; !p.Visible() || !strings.Contains(p.Text, `unknown parameter "month" (parameters: day)`) {
		t.Fatalf("the text says %q", p.Text)
	}
	e.Text.Entry.SetText("Notes for {{.args.day}}")
	if !e.Save() {
		t.Fatalf("save: %v", e.Errs.Shown())
	}
	got, err := s.St.ResourceTemplate(context.Background(), "notes://days/{day}")
	if err != nil || !slices.Equal(got.Completions["day"], []string{"monday", "tuesday"}) {
		t.Fatalf("stored %+v, %v", got, err)
	}
	testutil.EventuallyShows(t, "resources/read through the template", func() (bool, string) {
		res, err := s.ReadResource(t, "notes://days/friday")
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
	e.UriTemplate.SetText("notes://days/{date}")
	if len(e.CompletionBox.Objects) != 2 {
		t.Fatalf("completion rows %d, want {date} and the orphaned {day}", len(e.CompletionBox.Objects))
	}
	if e.Save() || !strings.Contains(e.Errs["completions"].Text, `"day" is not a variable`) {
		t.Fatalf("completions error %q", e.Errs["completions"].Text)
	}
}

func TestTemplateEditorFolderProblems(t *testing.T) {
	m, _ := newTestManager(t)
	m.NewTemplate()
	e := m.tmplEditor
	test.Type(e.UriTemplate, "files://{a}/{b}")
	test.Type(e.Describe.Name, "files")
	e.Source.SetSelected(editor.TmplSrcFolder)
	test.Tap(e.SaveButton)
	if shown := e.Errs.Shown(); len(shown) != 1 || !strings.Contains(shown["folder"], "choose the folder") {
		t.Fatalf("errors shown: %v", shown)
	}
	e.Folder.SetText(t.TempDir())
	test.Tap(e.SaveButton)
	if shown := e.Errs.Shown(); len(shown) != 1 || !strings.Contains(shown["uriTemplate"], "exactly one variable") {
		t.Fatalf("errors shown: %v", shown)
	}
	e.UriTemplate.SetText("files://{+path}")
	if !e.Save() {
		t.Fatalf("save: %v", e.Errs.Shown())
	}
}

func TestResourceDeleteAsksFirst(t *testing.T) {
	m, s := newTestManager(t)
	m.win.Resize(fyne.NewSize(980, 680))
	ctx := context.Background()
	if err := s.St.PutResourceTemplate(ctx, catalog.ResourceTemplate{URITemplate: "notes://d/{day}", Name: "d", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	m.reloadEntries()
	m.resources.list.Select(0)
	e := m.tmplEditor
	if e == nil || e.Del.Disabled() {
		t.Fatalf("no editor with a Delete button for the template: %+v", e)
	}
	test.Tap(e.Del)
	test.Tap(uitest.OverlayButton(t, m.win, "No"))
	if _, err := s.St.ResourceTemplate(ctx, "notes://d/{day}"); err != nil {
		t.Fatalf("deleted although the answer was No: %v", err)
	}
	test.Tap(e.Del)
	if all := strings.Join(uitest.Texts(m.win), "\n"); !strings.Contains(all, `Delete the resource template "notes://d/{day}"?`) {
		t.Fatalf("the question:\n%s", all)
	}
	test.Tap(uitest.OverlayButton(t, m.win, "Yes"))
	if _, err := s.St.ResourceTemplate(ctx, "notes://d/{day}"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("not deleted: %v", err)
	}
	if len(m.resources.all) != 0 || m.resources.open.key != "" {
		t.Fatalf("after the delete: list %+v, open %+v", m.resources.all, m.resources.open)
	}
}
