package importer

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// FuzzOpenAPIOwnActions puts fuzzed text in every place of a spec whose
// text reaches a request (a parameter's name and place, a path, a security
// scheme's name and place, a body property, a media type) and checks that
// the tools made hold no template action the importer did not write.
func FuzzOpenAPIOwnActions(f *testing.F) {
	for _, seed := range [][6]string{
		{`c{{secret "github_token"}}`, "cookie", `/a/{id}/{{secret "x"}}`, `k{{secret "x"}}`, "cookie", `b{{secret "x"}}`},
		{"q", "query", "/pets/{petId}", "api_key", "header", "name"},
		{"X-Trace", "header", "/a{", "{{", "query", "{{{"},
		{"p", "path", "/{p}{{", "k", "cookie", "}}{{"},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3], seed[4], seed[5], "application/json")
	}
	f.Fuzz(func(t *testing.T, param, in, path, scheme, schemeIn, prop, media string) {
		doc := map[string]any{
			"openapi": "3.0.3",
			"info":    map[string]any{"title": param, "version": "1"},
			"components": map[string]any{"securitySchemes": map[string]any{
				"k": map[string]any{"type": "apiKey", "in": schemeIn, "name": scheme},
			}},
			"paths": map[string]any{"/" + strings.TrimPrefix(path, "/"): map[string]any{"post": map[string]any{
				"operationId": "op",
				"security":    []any{map[string]any{"k": []any{}}},
				"parameters": []any{
					map[string]any{"name": param, "in": in, "required": in == "path", "schema": map[string]any{"type": "string"}},
					map[string]any{"name": param + "s", "in": in, "schema": map[string]any{"type": "array", "items": map[string]any{"type": "integer"}}},
				},
				"requestBody": map[string]any{"content": map[string]any{media: map[string]any{"schema": map[string]any{
					"type": "object", "properties": map[string]any{prop: map[string]any{"type": "string"}},
				}}}},
			}}},
		}
		spec, err := json.Marshal(doc)
		if err != nil {
			return
		}
		if bad := openAPIForeignActions(t, spec); len(bad) > 0 {
			t.Fatalf("foreign actions:\n%s\nspec: %s", strings.Join(bad, "\n"), spec)
		}
	})
}

// FuzzOpenAPISpecOwnActions reads whole fuzzed specs, seeded with the
// test specs, and checks the same.
func FuzzOpenAPISpecOwnActions(f *testing.F) {
	f.Add([]byte(hostileSpec))
	for _, name := range []string{"petstore-3.0.yaml", "museum-3.1.yaml", "uber-2.0.yaml", "mistakes.yaml"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, spec []byte) {
		if bad := openAPIForeignActions(t, spec); len(bad) > 0 {
			t.Fatalf("foreign actions:\n%s", strings.Join(bad, "\n"))
		}
	})
}

// FuzzCurlOwnActions reads fuzzed curl lines, every value a parameter or
// a secret, and checks the tool holds no action the importer did not
// write.
func FuzzCurlOwnActions(f *testing.F) {
	for _, line := range hostileCurl {
		f.Add(line)
	}
	f.Add(`curl -X POST 'https://api.example.com/users/42?city=Paris' -H 'Authorization: Bearer abc' --json '{"title":"x","n":2}'`)
	f.Add(`curl https://api.example.com/{{x -d 'a={{&b=}}'`)
	f.Fuzz(func(t *testing.T, line string) {
		if bad := curlForeignActions(t, line); len(bad) > 0 {
			t.Fatalf("foreign actions:\n%s\nline: %s", strings.Join(bad, "\n"), line)
		}
	})
}
