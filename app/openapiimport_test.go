package app

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/importer"
	"github.com/mcptray/mcptray/internal/testutil"
)

// petstore is a real public OpenAPI 3.0 spec (the importer's test data).
var petstore = filepath.Join("..", "importer", "testdata", "petstore-3.0.yaml")

// mustSpec is the petstore spec, read.
func mustSpec(t *testing.T) *importer.Spec {
	t.Helper()
	spec, err := importer.ReadOpenAPI(context.Background(), petstore)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// firstIn is the first object of type T under root, in tree order, that
// ok accepts; it fails t, naming what, when there is none.
func firstIn[T fyne.CanvasObject](t *testing.T, root fyne.CanvasObject, what string, ok func(T) bool) T {
	t.Helper()
	var found T
	done := false
	uitest.Walk(root, func(o fyne.CanvasObject) {
		if x, is := o.(T); is && !done && ok(x) {
			found, done = x, true
		}
	})
	if !done {
		t.Fatalf("no %s", what)
	}
	return found
}

// opRow is the check and the button of the chooser's row whose text
// starts with prefix ("GET /pet/{petId}").
func opRow(t *testing.T, w fyne.Window, prefix string) (*widget.Check, *widget.Button) {
	t.Helper()
	var check *widget.Check
	var button *widget.Button
	firstIn(t, w.Canvas().Overlays().Top(), "operation "+prefix, func(c *fyne.Container) bool {
		check, button = nil, nil
		for _, x := range c.Objects {
			switch x := x.(type) {
			case *widget.Check:
				check = x
			case *widget.Button:
				if strings.HasPrefix(x.Text, prefix+" ") {
					button = x
				}
			}
		}
		return check != nil && button != nil
	})
	return check, button
}

// overlayEntry is the entry of the top overlay that follows the label
// text (labelled puts the label above its field, a form beside it).
func overlayEntry(t *testing.T, w fyne.Window, label string) *widget.Entry {
	t.Helper()
	after := false
	return firstIn(t, w.Canvas().Overlays().Top(), "entry labelled "+label, func(o fyne.CanvasObject) bool {
		if l, ok := o.(*widget.Label); ok {
			after = after || l.Text == label
		}
		_, entry := o.(*widget.Entry)
		return after && entry
	}).(*widget.Entry)
}

func TestRenderOpenAPIChooser(t *testing.T) {
	m, s := newImportManager(t, fyne.NewSize(1000, 760))
	api := testutil.NewAPI(t)
	m.chooseOpenAPI()
	src := overlayEntry(t, m.win, "OpenAPI spec")
	test.Tap(uitest.OverlayButton(t, m.win, "Read"))
	src.SetText(filepath.Join(t.TempDir(), "missing.yaml"))
	test.Tap(uitest.OverlayButton(t, m.win, "Read"))
	m.background.Wait()
	uitest.Sees(t, "the spec dialog", uitest.SeenIn(m.win.Canvas()),
		"label: OpenAPI spec", "re:entry: .*missing.yaml", "button: Choose file…",
		"re:label: It cannot be read: reading the spec: open .*missing.yaml: no such file or directory",
		"button: Cancel", "button: Read {high}")

	src.SetText(petstore)
	test.Tap(uitest.OverlayButton(t, m.win, "Read"))
	m.background.Wait()
	overlayEntry(t, m.win, "Base URL").SetText(api.URL + "/api/v3")
	test.Tap(uitest.OverlayButton(t, m.win, "Select none"))
	if b := uitest.OverlayButton(t, m.win, "Import"); !b.Disabled() {
		t.Error("Import is enabled with no operation picked")
	}
	// A body shows as an example call sends it, not as its template.
	_, addPet := opRow(t, m.win, "POST /pet")
	test.Tap(addPet)
	uitest.Sees(t, "addPet", uitest.SeenIn(m.win.Canvas()), "label: An example call:\nPOST "+api.URL+"/api/v3/pet\n"+
		"  Accept: application/json\n  Content-Type: application/json\n\n"+
		"{\n  \"name\": \"\",\n  \"photoUrls\": [],\n  \"status\": \"available\"\n}\n\n"+
		"Parameters: category_id, category_name, id, name, photoUrls, status, tags")
	get, show := opRow(t, m.win, "GET /pet/{petId}")
	get.SetChecked(true)
	del, _ := opRow(t, m.win, "DELETE /pet/{petId}")
	del.SetChecked(true)
	test.Tap(show)
	name := overlayEntry(t, m.win, "Tool name")
	// A name that cannot be a tool's says so as it is typed; Import waits.
	name.SetText("deletePet")
	uitest.Sees(t, "a name taken twice", uitest.SeenIn(m.win.Canvas()),
		"label: GET /pet/{petId} and DELETE /pet/{petId} are both named deletePet: rename one. {danger}", "button: Import 2 tools {high, disabled}")
	name.SetText(strings.Repeat("p", 65))
	uitest.Sees(t, "a long name", uitest.SeenIn(m.win.Canvas()),
		"label: The tool name of GET /pet/{petId}: 65 characters; at most 64 allowed. {danger}", "button: Import 2 tools {high, disabled}")
	name.SetText("find_pet")

	// What a person sees, in reading order: the API, where its tools call,
	// each operation with its check, then the one shown: its tool's name
	// and description, what it sends, the secret it reads, its hint.
	uitest.Sees(t, "the OpenAPI chooser", uitest.SeenIn(m.win.Canvas()),
		"label: Swagger Petstore - OpenAPI 3.0 1.0.27-SNAPSHOT — OpenAPI 3.0.4, 19 operations.",
		"label: Base URL", "entry: "+api.URL+"/api/v3",
		"label: Name prefix", "entry: (e.g. github_)",
		"check: [ ]", "button: POST /pet — Add a new pet to the store. {low}",
		"check: [x]", "button: GET /pet/{petId} — Find pet by ID. {low}",
		"check: [ ]", "button: POST /pet/{petId} — Updates a pet in the store with form data. {low}",
		"check: [x]", "button: DELETE /pet/{petId} — Deletes a pet. {low}",
		"label: Tool name", "entry: find_pet",
		"label: Description", "entry: Returns a single pet.",
		"label: What the tool does",
		"label: An example call:\nGET "+api.URL+"/api/v3/pet/0\n  Accept: application/json\n  api_key: [secret:swagger_petstore_openapi_api_key]\n\nParameters: petId (integer)"+
			"\nSecret swagger_petstore_openapi_api_key: the API key of Swagger Petstore - OpenAPI 3.0 (sent in the header \"api_key\")\nRead-only.",
		"button: Cancel", "button: Select all", "button: Select none", "button: Import 2 tools {high}",
	)
	uitest.Capture(t, m.win, "openapi-chooser.png")

	test.Tap(uitest.OverlayButton(t, m.win, "Import 2 tools"))
	m.background.Wait()
	missingSecretAfterImport(t, m, s)
	export, err := s.St.Export(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range export.Tools {
		names = append(names, tl.Name)
	}
	if slices.Sort(names); !slices.Equal(names, []string{"deletePet", "find_pet"}) {
		t.Fatalf("stored the tools %v", names)
	}
	if got := s.CallText(t, "find_pet", map[string]any{"petId": 7}); got != testutil.APIReply {
		t.Errorf("the call returned %q", got)
	}
	if r := api.Last(t); r.Method != "GET" || r.Path != "/api/v3/pet/7" || r.Header.Get("api_key") != "pet-KEY" {
		t.Errorf("the API got %s %s with api_key %q", r.Method, r.Path, r.Header.Get("api_key"))
	}

	// The same again: the chooser marks the duplicate before Import, with
	// skip (the default) or replace for it.
	reimportSkipsOrReplaces(t, m, s.St)
}

// A spec whose server is relative to where it is published, read from a
// file, has nothing to call until a Base URL is given; then its
// operations are picked.
func TestOpenAPIChooserNeedsABaseURL(t *testing.T) {
	m, _ := newImportManager(t, fyne.NewSize(1000, 760))
	spec, err := importer.ParseOpenAPI(context.Background(), []byte(`openapi: 3.1.0
info: {title: Notes, version: "1"}
servers: [{url: /api}]
paths:
  /notes:
    get: {operationId: listNotes, summary: List the notes, responses: {"200": {description: ok}}}
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	m.showOpenAPIChooser(spec, "notes.yaml")
	uitest.Sees(t, "the chooser with no server", uitest.SeenIn(m.win.Canvas()),
		"entry: (https://api.example.com/v1)",
		"check: [ ] {disabled}", "button: GET /notes — List the notes (cannot be imported) {low}",
		`re:label: This operation cannot be imported: the spec's server "/api" is relative to where the spec is published: give the API's address \(Base URL\)`,
		"button: Import {high, disabled}")
	overlayEntry(t, m.win, "Base URL").SetText("http://127.0.0.1:1/api")
	uitest.Sees(t, "the chooser with a Base URL", uitest.SeenIn(m.win.Canvas()),
		"check: [x]", "button: GET /notes — List the notes {low}",
		"entry: listNotes", "button: Import 1 tool {high}")
}
