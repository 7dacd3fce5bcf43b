package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// OpenAPI import targets at BigSpecOperations operations (issue 25, item 5).
const (
	BigSpecOperations = 10_000
	// SpecImportTarget bounds `mcptray import-openapi` of the spec, from
	// start to exit.
	SpecImportTarget = 3 * time.Second
	// SpecImportRSSTarget bounds its peak resident memory.
	SpecImportRSSTarget = 200 << 20
	// SpecImportTimeout ends an import far past its target (one that
	// never ends is a result too), late enough that a slow one still
	// gives its figures.
	SpecImportTimeout = 5 * time.Minute
)

// SpecImport is what importing a big OpenAPI spec costs.
type SpecImport struct {
	Operations int
	// SpecBytes is the size of the spec file.
	SpecBytes int
	// Time is `mcptray import-openapi SPEC` from start to exit.
	Time time.Duration
	// CPU is the processor time it took, user and system (0 where not
	// measured): on a machine busy with other work, steadier than Time.
	CPU time.Duration
	// PeakRSS is its peak resident memory in bytes, as the kernel counted
	// it for the exited process (getrusage's ru_maxrss); 0 where that is
	// not measured.
	PeakRSS int64
	// TimedOut says it was killed after SpecImportTimeout, unfinished.
	TimedOut bool
}

// MeasureSpecImport writes BigSpec(n) into dir and imports it into a new
// database there with `bin import-openapi`, a process of its own, so that
// its peak memory is its own.
func MeasureSpecImport(ctx context.Context, bin, dir string, n int) (SpecImport, error) {
	m := SpecImport{Operations: (n + 4) / 5 * 5}
	spec, err := BigSpec(n)
	if err != nil {
		return m, err
	}
	m.SpecBytes = len(spec)
	file := filepath.Join(dir, "big-spec.json")
	if err := os.WriteFile(file, spec, 0o600); err != nil {
		return m, fmt.Errorf("write the spec: %w", err)
	}
	out, err := os.Create(filepath.Join(dir, "import-openapi.out"))
	if err != nil {
		return m, fmt.Errorf("import-openapi's output: %w", err)
	}
	defer out.Close()
	tctx, cancel := context.WithTimeout(ctx, SpecImportTimeout)
	defer cancel()
	cmd := exec.CommandContext(tctx, bin, "import-openapi", file, "-db", filepath.Join(dir, "import-openapi.db"))
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS=disabled:") // no keyring probing
	t0 := time.Now()
	err = cmd.Run()
	m.Time = time.Since(t0)
	if ps := cmd.ProcessState; ps != nil {
		m.PeakRSS = peakRSS(ps)
		m.CPU = ps.UserTime() + ps.SystemTime()
	}
	if tctx.Err() != nil && ctx.Err() == nil {
		m.TimedOut = true
		return m, nil
	}
	printed, rerr := os.ReadFile(out.Name())
	if rerr != nil {
		return m, fmt.Errorf("import-openapi's output: %w", rerr)
	}
	// Its first lines say what went wrong; the rest lists the tools.
	head := string(printed[:min(len(printed), 600)])
	if err != nil {
		return m, fmt.Errorf("%s import-openapi: %w: %s", bin, err, head)
	}
	if want := fmt.Sprintf("imported %d tools", m.Operations); !strings.HasPrefix(head, want) {
		return m, fmt.Errorf("%s import-openapi printed %q, want %q first", bin, head, want)
	}
	return m, nil
}

// BigSpec returns an OpenAPI 3.0 document (JSON) of n operations shaped
// like a large real API's: resources of five operations each (list with
// query parameters, create, get, replace, delete), each resource with its
// own schema, all of them sharing components (a money amount, an address,
// tags, a user) and naming themselves as real schemas do (a resource's
// parent, a user's manager), an API key in a header. Every operation can
// become a tool; n is rounded up to a multiple of five.
func BigSpec(n int) ([]byte, error) {
	ref := func(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	schemas := map[string]any{
		"Error": map[string]any{"type": "object", "required": []string{"code", "message"}, "properties": map[string]any{
			"code": map[string]any{"type": "integer"}, "message": str("What went wrong.")}},
		"Money": map[string]any{"type": "object", "required": []string{"amount", "currency"}, "properties": map[string]any{
			"amount":   map[string]any{"type": "number", "minimum": 0},
			"currency": map[string]any{"type": "string", "enum": []string{"EUR", "GBP", "USD"}, "default": "EUR"}}},
		"Address": map[string]any{"type": "object", "required": []string{"line1", "country"}, "properties": map[string]any{
			"line1": str("Street and number."), "line2": str("Flat, floor."), "city": str("City or town."),
			"postcode": map[string]any{"type": "string", "pattern": "^[A-Z0-9 -]{3,10}$"},
			"country":  map[string]any{"type": "string", "minLength": 2, "maxLength": 2, "description": "ISO 3166-1 alpha-2."}}},
		"Tag": map[string]any{"type": "object", "properties": map[string]any{
			"id": map[string]any{"type": "integer", "format": "int64"}, "name": str("The tag's label.")}},
		"User": map[string]any{"type": "object", "required": []string{"id"}, "properties": map[string]any{
			"id": str("The user's id."), "name": str("Full name."),
			"email":   map[string]any{"type": "string", "format": "email"},
			"address": ref("Address"), "manager": ref("User")}},
	}
	paths := map[string]any{}
	json200 := func(schema map[string]any) map[string]any {
		return map[string]any{
			"200":     map[string]any{"description": "OK", "content": map[string]any{"application/json": map[string]any{"schema": schema}}},
			"default": map[string]any{"description": "An error.", "content": map[string]any{"application/json": map[string]any{"schema": ref("Error")}}},
		}
	}
	query := func(name string, schema map[string]any) map[string]any {
		return map[string]any{"name": name, "in": "query", "schema": schema}
	}
	for r := range (n + 4) / 5 {
		kind := fmt.Sprintf("Widget%05d", r)
		coll := fmt.Sprintf("/widgets%05d", r)
		schemas[kind] = map[string]any{"type": "object", "required": []string{"name"}, "description": "A " + kind + ".", "properties": map[string]any{
			"id":          map[string]any{"type": "string", "readOnly": true},
			"name":        map[string]any{"type": "string", "minLength": 1, "maxLength": 200},
			"description": str("What it is for."),
			"status":      map[string]any{"type": "string", "enum": []string{"active", "archived", "draft"}, "default": "draft"},
			"count":       map[string]any{"type": "integer", "minimum": 0},
			"price":       ref("Money"),
			"tags":        map[string]any{"type": "array", "items": ref("Tag")},
			"owner":       ref("User"),
			"address":     ref("Address"),
			"labels":      map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
			"parent":      ref(kind),
			"created":     map[string]any{"type": "string", "format": "date-time", "readOnly": true},
		}}
		body := map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": ref(kind)}}}
		id := map[string]any{"name": "id", "in": "path", "required": true, "schema": map[string]any{"type": "string"}}
		paths[coll] = map[string]any{
			"get": map[string]any{"operationId": "list" + kind, "summary": "List " + kind + "s.", "parameters": []any{
				query("limit", map[string]any{"type": "integer", "minimum": 1, "maximum": 100, "default": 20}),
				query("offset", map[string]any{"type": "integer", "minimum": 0}),
				query("status", map[string]any{"type": "string", "enum": []string{"active", "archived", "draft"}}),
				query("tag", map[string]any{"type": "array", "items": map[string]any{"type": "string"}}),
				query("q", str("Words to search for.")),
			}, "responses": json200(map[string]any{"type": "array", "items": ref(kind)})},
			"post": map[string]any{"operationId": "create" + kind, "summary": "Create a " + kind + ".", "requestBody": body, "responses": json200(ref(kind))},
		}
		paths[coll+"/{id}"] = map[string]any{
			"parameters": []any{id},
			"get":        map[string]any{"operationId": "get" + kind, "summary": "Get a " + kind + ".", "responses": json200(ref(kind))},
			"put":        map[string]any{"operationId": "replace" + kind, "summary": "Replace a " + kind + ".", "requestBody": body, "responses": json200(ref(kind))},
			"delete":     map[string]any{"operationId": "delete" + kind, "summary": "Delete a " + kind + ".", "responses": json200(ref(kind))},
		}
	}
	doc := map[string]any{
		"openapi":  "3.0.3",
		"info":     map[string]any{"title": "Big API", "version": "1"},
		"servers":  []any{map[string]any{"url": "https://api.example.com/v1"}},
		"security": []any{map[string]any{"key": []string{}}},
		"paths":    paths,
		"components": map[string]any{
			"schemas":         schemas,
			"securitySchemes": map[string]any{"key": map[string]any{"type": "apiKey", "in": "header", "name": "X-API-Key"}},
		},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode the spec: %w", err)
	}
	return b, nil
}
