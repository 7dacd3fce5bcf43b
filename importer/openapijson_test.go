package importer

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestDecodeOpenAPI3JSONAsKinDoes: the JSON decoder gives the model kin's
// own decoding gives (but for the responses it leaves out, slimResponses), for the specs of testdata written as JSON, the
// hostile spec, one whose paths hold an extension, documents whose paths
// are missing, null or not an object, and documents whose component
// schemas are there with other components and extensions, alone, null,
// not an object, spelled twice, or in components that are null.
func TestDecodeOpenAPI3JSONAsKinDoes(t *testing.T) {
	specs := map[string][]byte{
		"hostile":            []byte(hostileSpec),
		"paths extension":    []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{"x-note":{"a":[1,2]},"/a":{"get":{"responses":{"200":{"description":"ok"}}},"x-b":true}},"x-top":1}`),
		"no paths":           []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"}}`),
		"null paths":         []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":null}`),
		"paths not object":   []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":[1]}`),
		"path item an array": []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{"/a":[1]}}`),
		"schemas":            []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{},"components":{"schemas":{"A":{"type":"object","x-a":1,"properties":{"b":{"$ref":"#/components/schemas/B"}}},"B":{"type":"string"}},"x-c":2,"parameters":{"p":{"name":"p","in":"query"}}}}`),
		"only schemas":       []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{},"components":{"schemas":{"A":{"type":"integer"}}}}`),
		"schemas null":       []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{},"components":{"schemas":null}}`),
		"schemas not object": []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{},"components":{"schemas":[1]}}`),
		"schema not object":  []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{},"components":{"schemas":{"A":[1]}}}`),
		"schemas twice":      []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{},"components":{"schemas":{"A":{"type":"integer"}},"Schemas":{"B":{"type":"string"}}}}`),
		"components null":    []byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{},"components":null}`),
	}
	for _, name := range []string{"petstore-3.0.yaml", "museum-3.1.yaml", "mistakes.yaml"} {
		specs[name] = testdataJSON(t, name)
	}
	for name, data := range specs {
		want := &openapi3.T{}
		wantErr := json.Unmarshal(data, want)
		var top map[string]json.RawMessage
		_ = json.Unmarshal(data, &top)
		got, gotErr := decodeOpenAPI3JSON(data, top)
		if (wantErr == nil) != (gotErr == nil) {
			t.Errorf("%s: kin says %v, the decoder %v", name, wantErr, gotErr)
			continue
		}
		if wantErr != nil {
			continue
		}
		slimResponses(want)
		w, _ := json.Marshal(want)
		g, _ := json.Marshal(got)
		if string(w) != string(g) {
			t.Errorf("%s: the decoder's model\n%s\nis not kin's\n%s", name, g, w)
		}
	}
}

// slimResponses leaves out of doc's responses what decodeResponses does:
// all but each inline response's description and media types.
func slimResponses(doc *openapi3.T) {
	if doc.Paths == nil {
		return
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if op.Responses == nil {
				continue
			}
			for _, r := range op.Responses.Map() {
				if r == nil || r.Value == nil || r.Ref != "" {
					continue
				}
				slim := &openapi3.Response{Description: r.Value.Description}
				if r.Value.Content != nil {
					slim.Content = openapi3.Content{}
					for mt, m := range r.Value.Content {
						slim.Content[mt] = nil
						if m != nil {
							slim.Content[mt] = openapi3.NewMediaType()
						}
					}
				}
				r.Value = slim
			}
		}
	}
}

// testdataJSON is the spec testdata/name as JSON, as kin's loader reads
// it.
func testdataJSON(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(b)
	if err != nil {
		t.Fatal(err)
	}
	j, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return j
}
