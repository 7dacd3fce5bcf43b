package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
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

// object is an object schema whose properties are the named
// components, n times each, and one string.
func object(n int, names ...string) map[string]any {
	props := map[string]any{"label": map[string]any{"type": "string"}}
	for _, name := range names {
		for i := range n {
			props[fmt.Sprintf("%s%d", strings.ToLower(name), i)] = map[string]any{"$ref": "#/components/schemas/" + name}
		}
	}
	return map[string]any{"type": "object", "properties": props}
}

// spelledOut counts the schemas of an input schema that hold schemas
// (properties, items, alternatives, values): the ones spelling stops at
// once the budget is spent. Its own root is one.
func spelledOut(v any) int {
	n := 0
	switch v := v.(type) {
	case map[string]any:
		_, props := v["properties"]
		_, items := v["items"]
		_, alts := v["anyOf"]
		_, values := v["additionalProperties"].(map[string]any)
		if props || items || alts || values {
			n++
		}
		for _, x := range v {
			n += spelledOut(x)
		}
	case []any:
		for _, x := range v {
			n += spelledOut(x)
		}
	}
	return n
}

// TestSchemasAreConvertedOnce: schemas that hold themselves, each other,
// or the same schema many times over, become tools whose schemas are
// self-contained and bounded, each schema converted once, however many
// times it is used. (A Node holding itself three times took minutes: the
// conversion spelled out every path to a depth of 8, 3^8 of them.)
func TestSchemasAreConvertedOnce(t *testing.T) {
	chain := map[string]any{"D30": object(0)}
	for i := range 30 {
		chain[fmt.Sprintf("D%d", i)] = object(2, fmt.Sprintf("D%d", i+1))
	}
	wide := map[string]any{"W6": object(0)}
	for i := range 6 {
		wide[fmt.Sprintf("W%d", i)] = object(8, fmt.Sprintf("W%d", i+1))
	}
	many := make([]string, 50)
	for i := range many {
		many[i] = "Node"
	}
	for _, tc := range []struct {
		name    string
		schemas map[string]any
		bodies  []string
		// written is how many schemas the spec writes: the components
		// and their label properties.
		written int
	}{
		{"a node holding itself twice", map[string]any{"Node": object(2, "Node")}, []string{"Node"}, 2},
		{"a node holding itself 3 times", map[string]any{"Node": object(3, "Node")}, []string{"Node"}, 2},
		{"a node holding itself 12 times", map[string]any{"Node": object(12, "Node")}, []string{"Node"}, 2},
		{"three holding each other in a ring", map[string]any{"A": object(3, "B"), "B": object(3, "C"), "C": object(3, "A")}, []string{"A", "B"}, 6},
		{"30 each holding the next twice", chain, []string{"D0"}, 62},
		{"6 each holding the next 8 times", wide, []string{"W0"}, 14},
		{"50 operations on one node", map[string]any{"Node": object(4, "Node")}, many, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conv := specOf(t, tc.schemas, tc.bodies...).Convert(OpenAPIOptions{})
			if got := conv.schemas.converted; got > tc.written {
				t.Errorf("%d schemas converted, for a spec writing %d", got, tc.written)
			}
			tools, _ := pick(t, conv)
			for _, tool := range tools {
				if strings.Contains(string(tool.InputSchema), "$ref") {
					t.Fatalf("%s: the input schema refers elsewhere: %.300s", tool.Name, tool.InputSchema)
				}
				var schema any
				if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
					t.Fatal(err)
				}
				if n := spelledOut(schema); n > maxSchemaNodes+1 {
					t.Errorf("%s spells out %d schemas (at most %d)", tool.Name, n, maxSchemaNodes)
				}
			}
		})
	}
}

// TestARecursionIsSpelledOutOnce: where a schema recurs inside itself, a
// loose schema of its type says the structure goes on, and a note says so
// once for the operation.
func TestARecursionIsSpelledOutOnce(t *testing.T) {
	conv := specOf(t, map[string]any{
		"Tree": map[string]any{"type": "object", "properties": map[string]any{
			"name": map[string]any{"type": "string"},
			"kids": map[string]any{"type": "array", "items": map[string]any{"$ref": "#/components/schemas/Tree"}},
		}},
		"Pair": map[string]any{"type": "object", "properties": map[string]any{"tree": map[string]any{"$ref": "#/components/schemas/Tree"}}},
	}, "Pair").Convert(OpenAPIOptions{})
	tools, _ := pick(t, conv)
	jsonEqual(t, "the input schema", string(tools[0].InputSchema), `{"type": "object", "additionalProperties": false, "properties": {
		"tree_name": {"type": "string"},
		"tree_kids": {"type": "array", "items": {"type": "object", "properties": {
			"name": {"type": "string"},
			"kids": {"type": "array", "items": {"type": "object",
				"description": "A Tree again: the same structure as the Tree above."}}}}}}}`)
	if want := "Tree contains itself: where it recurs, any object is accepted (its structure is not spelled out again)"; len(conv.Operations[0].Notes) != 1 || conv.Operations[0].Notes[0] != want {
		t.Errorf("notes %q, want %q", conv.Operations[0].Notes, want)
	}
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
