package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// specOf is an OpenAPI 3.0 document with these component schemas and,
// for each of bodies, an operation whose JSON body is that schema.
func specOf(t *testing.T, schemas map[string]any, bodies ...string) *Spec {
	t.Helper()
	paths := map[string]any{}
	for i, body := range bodies {
		paths[fmt.Sprintf("/op%d", i)] = map[string]any{"post": map[string]any{
			"operationId": fmt.Sprintf("op%d", i),
			"requestBody": map[string]any{"content": map[string]any{"application/json": map[string]any{
				"schema": map[string]any{"$ref": "#/components/schemas/" + body}}}},
			"responses": map[string]any{"200": map[string]any{"description": "ok"}},
		}}
	}
	doc, err := json.Marshal(map[string]any{
		"openapi": "3.0.3", "info": map[string]any{"title": "T", "version": "1"},
		"servers": []any{map[string]any{"url": "https://api.example.com"}},
		"paths":   paths, "components": map[string]any{"schemas": schemas},
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseOpenAPI(context.Background(), doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAllOfHoldingItself: parts of an allOf that hold the schema, or each
// other, are folded in once (they were folded in forever: a stack
// overflow, which ended the program).
func TestAllOfHoldingItself(t *testing.T) {
	conv := specOf(t, map[string]any{
		"A": map[string]any{"allOf": []any{
			map[string]any{"$ref": "#/components/schemas/B"},
			map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}},
		}},
		"B": map[string]any{"allOf": []any{
			map[string]any{"$ref": "#/components/schemas/A"},
			map[string]any{"properties": map[string]any{"b": map[string]any{"type": "integer"}}, "required": []any{"b"}},
		}},
	}, "A").Convert(OpenAPIOptions{})
	tools, _ := pick(t, conv)
	if p := tools[0].Params; len(p) != 2 || p[0].Name != "b" || p[0].Type != "integer" || p[1].Name != "a" {
		t.Errorf("params %+v", p)
	}
}
