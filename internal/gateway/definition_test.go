package gateway

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestDefinitionHashSchemaText: a tool hashes the same whether its schemas
// are the maps go-sdk decodes or their JSON text (package upstream keeps
// the text): the pins stored before upstream did so still hold.
func TestDefinitionHashSchemaText(t *testing.T) {
	var decoded mcp.Tool
	if err := json.Unmarshal([]byte(`{"name":"a","description":"d",
		"inputSchema":{"type":"object","properties":{"n":{"type":"number","maximum":1.0,"minimum":-1e21,"description":"<b> & é"}}},
		"outputSchema":{"type":"object","required":["z","y"]}}`), &decoded); err != nil {
		t.Fatal(err)
	}
	text := decoded
	for _, s := range []*any{&text.InputSchema, &text.OutputSchema} {
		b, err := json.Marshal(*s)
		if err != nil {
			t.Fatal(err)
		}
		*s = json.RawMessage(b)
	}
	maps, err := DefinitionHash(&decoded)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := DefinitionHash(&text)
	if err != nil {
		t.Fatal(err)
	}
	if maps != raw {
		t.Errorf("hash with decoded schemas %s, with their text %s", maps, raw)
	}
}
