package importer

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
)

// convert reads a spec of testdata and converts it with opts.
func convert(t *testing.T, file string, opts OpenAPIOptions) (*Spec, *Conversion) {
	t.Helper()
	s, err := ReadOpenAPI(context.Background(), "testdata/"+file)
	if err != nil {
		t.Fatal(err)
	}
	return s, s.Convert(opts)
}

// pick builds the tools of the named operations and fails on a problem.
func pick(t *testing.T, conv *Conversion, ids ...string) ([]catalog.Tool, []SecretRef) {
	t.Helper()
	ops, err := conv.Select(ids)
	if err != nil {
		t.Fatal(err)
	}
	tools, secrets, err := Build(ops)
	if err != nil {
		t.Fatal(err)
	}
	return tools, secrets
}

func jsonEqual(t *testing.T, what, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("%s: %q is not JSON: %v", what, got, err)
	}
	_ = json.Unmarshal([]byte(want), &w)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}

func queryOf(t *testing.T, raw string) url.Values {
	t.Helper()
	q, err := url.ParseQuery(raw)
	if err != nil {
		t.Fatalf("query %q: %v", raw, err)
	}
	return q
}

// TestOpenAPI30Petstore imports the Swagger Petstore (OpenAPI 3.0, a real
// public spec) and calls its tools against a local API: path, query
// arrays, a nested JSON body with optional fields left out, an API key
// read from a secret.
func TestOpenAPI30Petstore(t *testing.T) {
	a := testutil.NewAPI(t)
	spec, conv := convert(t, "petstore-3.0.yaml", OpenAPIOptions{BaseURL: a.URL + "/api/v3"})
	if spec.Format != "OpenAPI 3.0.4" || spec.Title != "Swagger Petstore - OpenAPI 3.0" || len(conv.Operations) != 19 {
		t.Fatalf("read %q %q with %d operations", spec.Format, spec.Title, len(conv.Operations))
	}
	tools, secrets := pick(t, conv, "getPetById", "updatePet", "findPetsByTags", "findPetsByStatus", "deletePet")
	if len(secrets) != 1 || secrets[0].Name != "swagger_petstore_openapi_api_key" || !strings.Contains(secrets[0].Holds, `header "api_key"`) {
		t.Fatalf("secrets %+v", secrets)
	}
	byName := map[string]catalog.Tool{}
	for _, tl := range tools {
		byName[tl.Name] = tl
	}
	if h := byName["deletePet"].Hints; h == nil || h.Destructive == nil || !*h.Destructive {
		t.Errorf("DELETE is not destructive: %+v", h)
	}
	if h := byName["getPetById"].Hints; h == nil || h.ReadOnly == nil || !*h.ReadOnly {
		t.Errorf("GET is not read-only: %+v", h)
	}
	if got := byName["getPetById"].Title; got != "Find pet by ID" {
		t.Errorf("title %q", got)
	}
	s := serve(t, tools, map[string]string{"swagger_petstore_openapi_api_key": "pet-KEY"})

	call(t, s, "getPetById", map[string]any{"petId": 1234567})
	r := a.Last(t)
	if r.Method != "GET" || r.Path != "/api/v3/pet/1234567" || r.Header.Get("api_key") != "pet-KEY" || r.Header.Get("Accept") != "application/json" {
		t.Errorf("getPetById sent %s %s api_key=%q", r.Method, r.Path, r.Header.Get("api_key"))
	}

	call(t, s, "updatePet", map[string]any{"name": "Rex", "photoUrls": []any{"u1"}, "category_name": "Dogs",
		"tags": []any{map[string]any{"id": 1, "name": "good"}}, "status": "sold"})
	r = a.Last(t)
	if r.Method != "PUT" || r.Path != "/api/v3/pet" || r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("updatePet sent %s %s %q", r.Method, r.Path, r.Header.Get("Content-Type"))
	}
	jsonEqual(t, "updatePet's body", r.Body, `{"name": "Rex", "photoUrls": ["u1"], "category": {"name": "Dogs"}, "status": "sold", "tags": [{"id": 1, "name": "good"}]}`)

	call(t, s, "findPetsByTags", map[string]any{"tags": []any{"a b", "c&d"}})
	if q := queryOf(t, a.Last(t).RawQuery); !slices.Equal(q["tags"], []string{"a b", "c&d"}) {
		t.Errorf("findPetsByTags sent the query %v", q)
	}
	call(t, s, "findPetsByStatus", map[string]any{"status": "sold"})
	if q := a.Last(t).RawQuery; q != "status=sold" {
		t.Errorf("findPetsByStatus sent the query %q", q)
	}
}

// TestOpenAPI31Museum imports Redocly's Museum API (OpenAPI 3.1, a real
// public spec): basic auth from a secret, optional query parameters left
// out, an allOf body flattened, a path value escaped, a PATCH whose zero
// value is sent.
func TestOpenAPI31Museum(t *testing.T) {
	a := testutil.NewAPI(t)
	_, conv := convert(t, "museum-3.1.yaml", OpenAPIOptions{BaseURL: a.URL})
	if !slices.ContainsFunc(conv.Notes, func(n string) bool { return strings.Contains(n, "1 webhook") }) {
		t.Errorf("notes %q do not say the webhook was left out", conv.Notes)
	}
	tools, secrets := pick(t, conv, "listSpecialEvents", "buyMuseumTickets", "getSpecialEvent", "updateSpecialEvent")
	if len(secrets) != 1 || secrets[0].Name != "redocly_museum_api_museumplaceholderauth" || !strings.Contains(secrets[0].Holds, "base64 of user:password") {
		t.Fatalf("secrets %+v", secrets)
	}
	basic := base64.StdEncoding.EncodeToString([]byte("ann:pw"))
	s := serve(t, tools, map[string]string{secrets[0].Name: basic})

	call(t, s, "listSpecialEvents", map[string]any{"startDate": "2024-01-02", "page": 2})
	r := a.Last(t)
	if r.Path != "/special-events" || r.Header.Get("Authorization") != "Basic "+basic {
		t.Errorf("listSpecialEvents sent %s with Authorization %q", r.Path, r.Header.Get("Authorization"))
	}
	// endDate, not given, is left out; limit gets its default (the
	// server applies the schema's defaults).
	if q := queryOf(t, r.RawQuery); len(q) != 3 || q.Get("page") != "2" || q.Get("startDate") != "2024-01-02" || q.Get("limit") != "10" {
		t.Errorf("listSpecialEvents sent the query %v", q)
	}
	call(t, s, "buyMuseumTickets", map[string]any{"ticketType": "general", "ticketDate": "2024-01-02", "email": "a@b.c"})
	r = a.Last(t)
	if r.Method != "POST" || r.Path != "/tickets" {
		t.Errorf("buyMuseumTickets sent %s %s", r.Method, r.Path)
	}
	jsonEqual(t, "buyMuseumTickets' body", r.Body, `{"ticketType": "general", "ticketDate": "2024-01-02", "email": "a@b.c"}`)

	call(t, s, "getSpecialEvent", map[string]any{"eventId": "a/b c"})
	if r = a.Last(t); r.Path != "/special-events/a%2Fb%20c" {
		t.Errorf("getSpecialEvent sent the path %s", r.Path)
	}
	call(t, s, "updateSpecialEvent", map[string]any{"eventId": "e1", "price": 0})
	r = a.Last(t)
	if r.Method != "PATCH" || r.Path != "/special-events/e1" {
		t.Errorf("updateSpecialEvent sent %s %s", r.Method, r.Path)
	}
	jsonEqual(t, "updateSpecialEvent's body", r.Body, `{"price": 0}`)
}

// TestOpenAPI20Uber imports the Uber API example (Swagger 2.0, a real
// public spec), converted to OpenAPI 3: basePath, numbers in the query, an
// API key in the query read from a secret.
func TestOpenAPI20Uber(t *testing.T) {
	spec, conv := convert(t, "uber-2.0.yaml", OpenAPIOptions{})
	if spec.Format != "Swagger 2.0 (converted to OpenAPI 3)" || conv.BaseURL != "https://api.uber.com/v1" {
		t.Fatalf("read %q calling %q", spec.Format, conv.BaseURL)
	}
	a := testutil.NewAPI(t)
	conv = spec.Convert(OpenAPIOptions{BaseURL: a.URL + "/v1", Prefix: "uber_"})
	tools, secrets := pick(t, conv, "GET /products")
	if tools[0].Name != "uber_get_products" || len(secrets) != 1 || secrets[0].Name != "uber_api_apikey" {
		t.Fatalf("tool %q, secrets %+v", tools[0].Name, secrets)
	}
	s := serve(t, tools, map[string]string{"uber_api_apikey": "srv-TOKEN"})
	call(t, s, "uber_get_products", map[string]any{"latitude": 37.5, "longitude": -122.25})
	r := a.Last(t)
	q := queryOf(t, r.RawQuery)
	if r.Path != "/v1/products" || q.Get("latitude") != "37.5" || q.Get("longitude") != "-122.25" || q.Get("server_token") != "srv-TOKEN" {
		t.Errorf("get_products sent %s?%s", r.Path, r.RawQuery)
	}
}

// TestOpenAPIMistakes: what is sound is imported, each mistake is named
// with what was done, and an operation that cannot be a tool says why.
func TestOpenAPIMistakes(t *testing.T) {
	_, conv := convert(t, "mistakes.yaml", OpenAPIOptions{})
	if conv.BaseURL != "https://api.example.com/v2" {
		t.Errorf("base URL %q: the server variable's default is not applied", conv.BaseURL)
	}
	ops := map[string]*Operation{}
	for _, o := range conv.Operations {
		ops[o.ID] = o
	}
	item := ops["get item!"]
	if item == nil || item.Problem != "" || item.Tool.Name != "get_item" {
		t.Fatalf("get item!: %+v", item)
	}
	for _, want := range []string{
		`the path variable {itemId} is not declared as a parameter (a mistake in the spec): added as a required text parameter`,
		`query parameter "count": the spec's type "int" is not a JSON type: read as integer`,
		`query parameter "count": the example many is not of type integer (a mistake in the spec): left out`,
		`query parameter "flag": the type "Boolean" is written in capitals, which JSON Schema does not allow: read as boolean`,
		`query parameter "filter" is an object, which mcptray cannot spell out in a URL or header: left out`,
		`the path /items/{itemId} names its own server: this tool calls https://items.example.com`,
	} {
		if !slices.Contains(item.Notes, want) {
			t.Errorf("get item! notes lack %q:\n%s", want, strings.Join(item.Notes, "\n"))
		}
	}
	h := item.Tool.Action.HTTP
	if h.URL != "https://items.example.com/items/{{pathescape .args.itemId}}" || !strings.Contains(string(h.Headers["Cookie"]), "session=") {
		t.Errorf("get item! calls %s with headers %v", h.URL, h.Headers)
	}
	thing := ops["addThing"]
	for _, want := range []string{
		`body field name: the spec's type "text" is not a JSON type: read as string`,
		`body field size: the allowed value two is not of type integer: left out`,
		`body field size: the default 9 does not fit the schema: left out`,
		`the API asks for oauth (OAuth 2), which mcptray cannot sign in with`,
	} {
		if !slices.ContainsFunc(thing.Notes, func(n string) bool { return strings.HasPrefix(n, want) }) {
			t.Errorf("addThing notes lack %q:\n%s", want, strings.Join(thing.Notes, "\n"))
		}
	}
	if p := thing.Tool.Params; len(p) != 2 || !reflect.DeepEqual(p[1].Enum, []any{1.0, 3.0}) || p[1].Default != nil {
		t.Errorf("addThing params %+v", p)
	}
	if up := ops["upload"]; up.Problem != "the request body is multipart/form-data, which a tool cannot send (it sends JSON, a form or text)" {
		t.Errorf("upload problem %q", up.Problem)
	}

	// All or nothing: choosing the operation that cannot be a tool lists
	// it, and nothing is built; without it the rest builds.
	all, _ := conv.Select([]string{"get item!", "addThing", "upload"})
	_, _, err := Build(all)
	var ve *catalog.ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 1 || ve.Problems[0].Entry != "operation upload" {
		t.Fatalf("Build with upload: %v", err)
	}
	if tools, _ := pick(t, conv); len(tools) != 2 {
		t.Errorf("the sound operations give %d tools", len(tools))
	}
	if _, err := conv.Select([]string{"nope", "addThing"}); err == nil || !strings.Contains(err.Error(), `no operation "nope"`) {
		t.Errorf("selecting an unknown operation: %v", err)
	}
	// Two tools of one name, once renamed, are refused together.
	a, b := *ops["get item!"], *ops["addThing"]
	b.Tool.Name = a.Tool.Name
	if _, _, err := Build([]*Operation{&a, &b}); !errors.As(err, &ve) || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("two tools of one name: %v", err)
	}

	// A base URL given replaces the path's own server, and says so.
	conv = convertBase(t, "https://mirror.example.com")
	item = conv.Operations[0]
	if item.Tool.Action.HTTP.URL != "https://mirror.example.com/items/{{pathescape .args.itemId}}" ||
		!slices.Contains(item.Notes, "the path /items/{itemId} names its own server (https://items.example.com): the Base URL given replaces it") {
		t.Errorf("with a base URL: %s, %q", item.Tool.Action.HTTP.URL, item.Notes)
	}
}

func convertBase(t *testing.T, base string) *Conversion {
	t.Helper()
	_, conv := convert(t, "mistakes.yaml", OpenAPIOptions{BaseURL: base})
	return conv
}

// TestOpenAPIFromURL reads a spec from the web: a relative server resolves
// against the spec's address; a file with one needs a base URL.
func TestOpenAPIFromURL(t *testing.T) {
	const doc = `{"openapi": "3.1.0", "info": {"title": "Rel", "version": "1"}, "servers": [{"url": "/api"}],
		"paths": {"/ping": {"get": {"operationId": "ping", "responses": {"200": {"description": "ok"}}}}}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/spec/openapi.json" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(doc))
	}))
	defer srv.Close()
	s, err := ReadOpenAPI(context.Background(), srv.URL+"/spec/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if conv := s.Convert(OpenAPIOptions{}); conv.BaseURL != srv.URL+"/api" || conv.Operations[0].Problem != "" {
		t.Errorf("base %q, problem %q", conv.BaseURL, conv.Operations[0].Problem)
	}
	if _, err := ReadOpenAPI(context.Background(), srv.URL+"/missing.json"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("a missing spec: %v", err)
	}
	s, err = ParseOpenAPI(context.Background(), []byte(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	if conv := s.Convert(OpenAPIOptions{}); !strings.Contains(conv.Operations[0].Problem, `"/api" is relative`) {
		t.Errorf("a relative server in a file: %q", conv.Operations[0].Problem)
	}
	for doc, want := range map[string]string{
		`{"info": {"title": "x"}}`:   "not an OpenAPI document",
		`{"swagger": "1.2"}`:         `swagger "1.2"`,
		"openapi: 3.0.0\npaths: [\n": "reading the spec",
		`{"openapi": "3.0.0", "info": {"title": "x", "version": "1"}, "paths": {"/a": {"$ref": "other.yaml#/a"}}}`: "other files",
	} {
		if _, err := ParseOpenAPI(context.Background(), []byte(doc), nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parsing %s: %v, want %q", doc, err, want)
		}
	}
}

// TestImportedToolsHaveATitle: an operation that has only a summary gets
// it as its title too (the lists show titles), and a tool made from a
// curl command is titled after its name.
func TestImportedToolsHaveATitle(t *testing.T) {
	spec := []byte(`{"openapi": "3.0.3", "info": {"title": "Items", "version": "1"},
		"servers": [{"url": "https://api.example.com"}],
		"paths": {"/items": {"get": {"operationId": "listItems", "summary": "List the items.",
			"responses": {"200": {"description": "ok"}}}}}}`)
	s, err := ParseOpenAPI(context.Background(), spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	conv := s.Convert(OpenAPIOptions{})
	if len(conv.Operations) != 1 || conv.Operations[0].Tool.Title != "List the items" || conv.Operations[0].Tool.Description != "List the items." {
		t.Errorf("an operation with only a summary: %+v", conv.Operations)
	}
	ct, err := ParseCurl("curl https://api.example.com/items", "list_items")
	if err != nil {
		t.Fatal(err)
	}
	tool, _, err := ct.Tool()
	if err != nil || tool.Title != "List items" {
		t.Errorf("the tool made from curl: title %q (%v)", tool.Title, err)
	}
}

// TestConvertOnceHandsEachTool: ConvertOnce hands over, in order, the very
// tools Convert makes (the spec's mistakes included), keeps the operations
// with their names, notes and problems, and lets the spec's paths go.
func TestConvertOnceHandsEachTool(t *testing.T) {
	for _, file := range []string{"petstore-3.0.yaml", "mistakes.yaml", "uber-2.0.yaml", "museum-3.1.yaml"} {
		_, want := convert(t, file, OpenAPIOptions{Prefix: "p_"})
		s, err := ReadOpenAPI(context.Background(), "testdata/"+file)
		if err != nil {
			t.Fatal(err)
		}
		var taken []catalog.Tool
		got := s.ConvertOnce(OpenAPIOptions{Prefix: "p_"}, func(o *Operation) bool {
			if o.Problem != "" {
				return false
			}
			taken = append(taken, o.Tool)
			return true
		})
		var wantTools []catalog.Tool
		for i, o := range want.Operations {
			g := got.Operations[i]
			if g.ID != o.ID || g.Tool.Name != o.Tool.Name || g.Problem != o.Problem || !reflect.DeepEqual(g.Notes, o.Notes) || !reflect.DeepEqual(g.Secrets, o.Secrets) {
				t.Errorf("%s: operation %d is %+v, want %+v", file, i, g, o)
			}
			if o.Problem == "" {
				wantTools = append(wantTools, o.Tool)
			}
		}
		if len(got.Operations) != len(want.Operations) || !reflect.DeepEqual(taken, wantTools) || !reflect.DeepEqual(got.Notes, want.Notes) {
			t.Errorf("%s: %d operations, %d tools handed over; want %d, %d", file, len(got.Operations), len(taken), len(want.Operations), len(wantTools))
		}
		if n := s.doc.Paths.Len(); n != 0 {
			t.Errorf("%s: the spec keeps %d paths", file, n)
		}
	}
}
