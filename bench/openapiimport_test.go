package bench

import (
	"context"
	"testing"

	"github.com/mcptray/mcptray/importer"
)

// TestBigSpecBecomesTools: every operation of the generated spec becomes
// a tool, so that the import measured is the whole spec's.
func TestBigSpecBecomesTools(t *testing.T) {
	data, err := BigSpec(50)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := importer.ParseOpenAPI(context.Background(), data, nil)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := spec.Convert(importer.OpenAPIOptions{}).Select(nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, secrets, err := importer.Build(ops)
	if err != nil || len(tools) != 50 || len(secrets) != 1 {
		t.Fatalf("%d tools, %d secrets: %v", len(tools), len(secrets), err)
	}
	schemas := 0
	for _, tl := range tools {
		if tl.InputSchema != nil {
			schemas++
		}
	}
	if schemas != 20 {
		t.Errorf("%d tools with an input schema, want 20 (the creates and replaces, with their nested bodies)", schemas)
	}
}
