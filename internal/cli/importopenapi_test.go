package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
)

// petstore is a real public OpenAPI 3.0 spec (see importer/testdata).
var petstore = filepath.Join("..", "..", "importer", "testdata", "petstore-3.0.yaml")

// TestImportOpenAPIAcceptance is the acceptance check: the tools
// of a real OpenAPI 3 spec call a local server with the right method,
// path, query, headers and JSON body, and their secrets are references.
func TestImportOpenAPIAcceptance(t *testing.T) {
	api := testutil.NewAPI(t)
	db := filepath.Join(t.TempDir(), "mcptray.db")
	out, err := run(t, db, "import-openapi", petstore, "--base-url", api.URL)
	if err != nil {
		t.Fatalf("import-openapi: %v\n%s", err, out)
	}
	for _, want := range []string{
		"imported 19 tools from Swagger Petstore - OpenAPI 3.0 (OpenAPI 3.0.4):",
		"  getPetById  GET /pet/{petId}",
		"      note: the API asks for petstore_auth (OAuth 2), which mcptray cannot sign in with",
		"  swagger_petstore_openapi_api_key: the API key of Swagger Petstore - OpenAPI 3.0 (sent in the header \"api_key\")",
		"      mcptray secret set swagger_petstore_openapi_api_key",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	export, err := run(t, db, "export")
	if err != nil {
		t.Fatal(err)
	}
	c, err := mcpcore.ParseCatalog([]byte(export))
	if err != nil || len(c.Tools) != 19 {
		t.Fatalf("export: %d tools, %v", len(c.Tools), err)
	}
	if !strings.Contains(export, `"api_key": "{{secret \"swagger_petstore_openapi_api_key\"}}"`) {
		t.Errorf("the API key is not a secret reference:\n%s", export)
	}

	if out, err := runStdin(t, db, "pet-KEY", "secret", "set", "swagger_petstore_openapi_api_key"); err != nil {
		t.Fatalf("secret set: %v %s", err, out)
	}
	d := serveDB(t, db)
	callTool(t, d.URL(), "getPetById", map[string]any{"petId": 9876543})
	r := api.Last(t)
	if r.Method != "GET" || r.Path != "/pet/9876543" || r.Header.Get("api_key") != "pet-KEY" {
		t.Errorf("getPetById: the API got %s %s api_key=%q", r.Method, r.Path, r.Header.Get("api_key"))
	}
	callTool(t, d.URL(), "placeOrder", map[string]any{"petId": 5, "quantity": 2, "complete": false})
	r = api.Last(t)
	var got map[string]any
	if err := json.Unmarshal([]byte(r.Body), &got); err != nil || r.Method != "POST" || r.Path != "/store/order" ||
		r.Header.Get("Content-Type") != "application/json" || len(got) != 3 || got["petId"] != 5.0 || got["complete"] != false {
		t.Errorf("placeOrder: the API got %s %s %q: %s", r.Method, r.Path, r.Header.Get("Content-Type"), r.Body)
	}
	callTool(t, d.URL(), "findPetsByStatus", map[string]any{"status": "pending"})
	if r = api.Last(t); r.RawQuery != "status=pending" {
		t.Errorf("findPetsByStatus: the query %q", r.RawQuery)
	}

	// Adding the same tools again lists every clash and changes nothing;
	// --replace replaces them; --only and --prefix pick and rename.
	_, err = run(t, db, "import-openapi", petstore, "--base-url", api.URL)
	if err == nil || strings.Count(err.Error(), "the catalog already has a tool of this name") != 19 {
		t.Fatalf("importing twice: %v", err)
	}
	if out, err := run(t, db, "import-openapi", petstore, "--base-url", api.URL, "--replace", "--only", "getPetById,DELETE /pet/{petId}"); err != nil ||
		!strings.Contains(out, "imported 2 tools") || !strings.Contains(out, "deletePet  DELETE /pet/{petId}") {
		t.Errorf("--replace --only: %v\n%s", err, out)
	}
	if out, err := run(t, db, "import-openapi", petstore, "--base-url", api.URL, "--prefix", "pets_", "--only", "getInventory"); err != nil ||
		!strings.Contains(out, "pets_getInventory") {
		t.Errorf("--prefix: %v\n%s", err, out)
	}
	if _, err := run(t, db, "import-openapi", petstore, "--only", "nope"); err == nil || !strings.Contains(err.Error(), `no operation "nope"`) {
		t.Errorf("--only nope: %v", err)
	}
	out, err = run(t, db, "import-openapi", petstore, "--list")
	if err != nil || !strings.Contains(out, "calling https://petstore3.swagger.io/api/v3") || !strings.Contains(out, "uploadFile") {
		t.Errorf("--list: %v\n%s", err, out)
	}
}

// runStdin runs a command line against db with stdin.
func runStdin(t *testing.T, db, stdin string, args ...string) (string, error) {
	t.Helper()
	var out strings.Builder
	err := Run(context.Background(), append(args, "--db", db), Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &out})
	return out.String(), err
}
