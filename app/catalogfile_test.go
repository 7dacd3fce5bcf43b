package app

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// writeCatalog writes a catalog document to a file in a temp dir.
func writeCatalog(t *testing.T, doc string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "catalog.json")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// exported is the store's catalog as the export writes it.
func exported(t *testing.T, m *Manager) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out.json")
	if err := m.ExportCatalog(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func putTool(t *testing.T, s *uitest.Served, name string) {
	t.Helper()
	tl := catalog.Tool{Name: name, Description: "d", Action: catalog.Action{Respond: &catalog.Respond{
		Content: []catalog.Content{{Type: "text", Text: "ok"}}}}}
	if err := s.St.PutTool(context.Background(), tl); err != nil {
		t.Fatal(err)
	}
}

const invalidCatalog = `{"format": "mcptray-catalog", "version": 1,
  "tools": [
    {"name": "fine", "description": "ok", "action": {"respond": {"content": [{"type": "text", "text": "hi"}]}}},
    {"name": "bad name", "description": "", "action": {"respond": {"content": [{"type": "text", "text": "hi"}]}}}
  ],
  "resources": [{"uri": "no-scheme", "name": "r", "text": "x"}]
}`

func TestImportRefusesAnInvalidCatalogAndListsEveryProblem(t *testing.T) {
	m, s := newTestManager(t)
	putTool(t, s, "kept")
	before := exported(t, m)
	path := writeCatalog(t, invalidCatalog)

	_, err := m.ImportCatalog(path, true)
	var ve *catalog.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("import error %v, want a ValidationError", err)
	}
	if len(ve.Problems) != 3 {
		t.Fatalf("problems %v, want the bad name, the missing description and the URI", ve.Problems)
	}
	if after := exported(t, m); !bytes.Equal(before, after) {
		t.Fatalf("the database changed:\n%s\nwas\n%s", after, before)
	}

	// The dialog lists every problem with its entry and field, in full.
	m.win.Resize(fyne.NewSize(980, 680))
	m.showImportError(path, err)
	all := strings.Join(uitest.Texts(m.win), "\n")
	for _, want := range []string{
		"catalog.json was not imported: 3 problems. Nothing was changed.",
		`tool "bad name" · name`, `tool "bad name" · description`, `resource "no-scheme" · uri`,
		"needs a scheme, e.g. file:///… or notes://…",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, all)
		}
	}
}

func TestImportRefusesAFileThatIsNotACatalog(t *testing.T) {
	m, s := newTestManager(t)
	putTool(t, s, "kept")
	before := exported(t, m)
	for doc, want := range map[string]string{
		`{"format": "mcptray-catalog", "version": 1, "tools": [], "toolz": []}`: `unknown field "toolz"`,
		`{"format": "something-else", "version": 1}`:                            `"format" must be "mcptray-catalog"`,
		`not json`: "importing catalog.json: reading catalog JSON",
	} {
		_, err := m.ImportCatalog(writeCatalog(t, doc), true)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("importing %s: %v, want %q", doc, err, want)
		}
	}
	if _, err := m.ImportCatalog(filepath.Join(t.TempDir(), "missing.json"), true); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	if after := exported(t, m); !bytes.Equal(before, after) {
		t.Fatalf("the database changed:\n%s", after)
	}
}

func TestImportMergesOrReplaces(t *testing.T) {
	m, s := newTestManager(t)
	ctx := context.Background()
	putTool(t, s, "kept")
	path := writeCatalog(t, `{"format": "mcptray-catalog", "version": 1,
  "tools": [{"name": "added", "description": "d", "action": {"respond": {"content": [{"type": "text", "text": "hi"}]}}}],
  "prompts": [{"name": "p", "description": "d", "messages": [{"role": "user", "content": {"type": "text", "text": "x"}}]}]
}`)
	c, err := m.ImportCatalog(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := catalogSummary(c); got != "1 tool, 0 resources, 0 resource templates and 1 prompt" {
		t.Fatalf("summary %q", got)
	}
	cat, err := s.St.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range cat.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"added", "kept"}) || len(cat.Prompts) != 1 {
		t.Fatalf("after merge: tools %v, prompts %d", names, len(cat.Prompts))
	}

	if _, err := m.ImportCatalog(path, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.St.Tool(ctx, "kept"); err == nil {
		t.Fatal("replace kept a tool the file does not name")
	}
}

func TestImportDialogMergesAndReloadsTheLists(t *testing.T) {
	m, s := newTestManager(t)
	putTool(t, s, "kept")
	m.win.Resize(fyne.NewSize(980, 680))
	path := writeCatalog(t, `{"format": "mcptray-catalog", "version": 1,
  "resources": [{"uri": "notes://n", "name": "n", "text": "x"}]
}`)
	c, err := storage.ReadCatalogFile(path, mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	m.NewPrompt()
	m.askImport(path, c)
	if all := strings.Join(uitest.Texts(m.win), "\n"); !strings.Contains(all, "Replace deletes every tool, resource and prompt not in the file") {
		t.Fatalf("the question does not warn about Replace:\n%s", all)
	}
	test.Tap(uitest.OverlayButton(t, m.win, "Merge"))
	m.background.Wait()
	if all := strings.Join(uitest.Texts(m.win), "\n"); !strings.Contains(all, "Imported 0 tools, 1 resource, 0 resource templates and 0 prompts from catalog.json.") {
		t.Fatalf("no import report:\n%s", all)
	}
	if len(m.resources.all) != 1 || m.resources.all[0].key != "notes://n" {
		t.Fatalf("the resources list was not reloaded: %+v", m.resources.all)
	}
	if len(m.tools.all) != 1 {
		t.Fatalf("merge lost the tool: %+v", m.tools.all)
	}
	if m.promptEditor != nil {
		t.Fatal("an editor opened before the import is still open")
	}
}

func TestExportReimportsEqual(t *testing.T) {
	m, s := newTestManager(t)
	ctx := context.Background()
	putTool(t, s, "t1")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.St.PutResource(ctx, catalog.Resource{URI: "notes://a", Name: "a", Text: "x", Disabled: true}))
	must(s.St.PutResourceTemplate(ctx, catalog.ResourceTemplate{URITemplate: "notes://d/{day}", Name: "d", Text: "{{.args.day}}",
		Completions: map[string][]string{"day": {"mon"}}}))
	must(s.St.PutPrompt(ctx, catalog.Prompt{Name: "p", Description: "d", Arguments: []catalog.PromptArgument{{Name: "x", Required: true}},
		Messages: []catalog.PromptMessage{{Role: "user", Content: catalog.Content{Type: "text", Text: "{{.args.x}}"}}}}))

	dir := t.TempDir()
	path := filepath.Join(dir, exportFileName)
	must(os.WriteFile(path, []byte("old content"), 0o600)) // replaced, not appended to
	must(m.ExportCatalog(path))
	first, err := os.ReadFile(path)
	must(err)
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("the export left files behind: %v", entries)
	}
	if !bytes.HasPrefix(first, []byte("{\n  \"format\": \"mcptray-catalog\"")) {
		t.Fatalf("not indented catalog JSON:\n%s", first)
	}

	// Into a second, empty store, and out again.
	m2, _ := newTestManager(t)
	c, err := m2.ImportCatalog(path, true)
	must(err)
	if got := catalogSummary(c); got != "1 tool, 1 resource, 1 resource template and 1 prompt" {
		t.Fatalf("summary %q", got)
	}
	if second := exported(t, m2); !bytes.Equal(first, second) {
		t.Fatalf("round trip differs:\n%s\nvs\n%s", first, second)
	}
}

func TestExportToAMissingFolderFails(t *testing.T) {
	m, _ := newTestManager(t)
	err := m.ExportCatalog(filepath.Join(t.TempDir(), "gone", exportFileName))
	if err == nil || !strings.Contains(err.Error(), "exporting the catalog") {
		t.Fatalf("err %v", err)
	}
}
