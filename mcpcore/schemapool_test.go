package mcpcore

import (
	"encoding/json"
	"testing"

	"github.com/mcptray/mcptray/catalog"
)

// TestSchemaPoolSharesByContent: tools whose input schemas have the same
// text get one parsed schema (so go-sdk's SchemaCache resolves it once for
// every tool and scope); different texts get their own; a schema that does
// not parse is an error, not a panic.
func TestSchemaPoolSharesByContent(t *testing.T) {
	p := newSchemaPool()
	params := []catalog.Param{{Name: "id", Type: "string", Required: true}}
	a, err := p.schema(catalog.Tool{Name: "a", Params: params}.InputSchemaJSON())
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.schema(catalog.Tool{Name: "b", Params: params}.InputSchemaJSON())
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Error("two tools with the same parameters got two parsed schemas")
	}
	c, err := p.schema(catalog.Tool{Name: "c", Params: []catalog.Param{{Name: "n", Type: "number"}}}.InputSchemaJSON())
	if err != nil {
		t.Fatal(err)
	}
	if c == a {
		t.Error("different parameters share a schema")
	}
	if c.Properties["n"] == nil || c.Properties["n"].Type != "number" {
		t.Errorf("parsed schema lost its parameter: %+v", c)
	}
	if _, err := p.schema(json.RawMessage(`{"type":`)); err == nil {
		t.Error("a broken schema parsed")
	}
}
