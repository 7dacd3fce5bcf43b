package upstream

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCompactSchemas: a tools/list page's schemas become JSON text, the
// encoding of the maps go-sdk decoded them into (so a tool's definition
// encodes, and hashes, as before); a tool without an output schema keeps
// none, and other results are left alone.
func TestCompactSchemas(t *testing.T) {
	var page mcp.ListToolsResult
	if err := json.Unmarshal([]byte(`{"tools":[
		{"name":"a","inputSchema":{"type":"object","properties":{"n":{"type":"number","maximum":1.0,"minimum":-1e21,"description":"<b> & é"}}},
		 "outputSchema":{"type":"object","required":["z","y"]}},
		{"name":"b","inputSchema":{"type":"object"}}]}`), &page); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, tool := range page.Tools {
		b, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, string(b))
	}
	next := func(_ context.Context, method string, _ mcp.Request) (mcp.Result, error) {
		if method == "tools/list" {
			return &page, nil
		}
		return &mcp.ListPromptsResult{}, nil
	}
	res, err := compactSchemas(next)(context.Background(), "tools/list", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, tool := range res.(*mcp.ListToolsResult).Tools {
		if _, ok := tool.InputSchema.(json.RawMessage); !ok {
			t.Errorf("%s: input schema is %T, not JSON text", tool.Name, tool.InputSchema)
		}
		b, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != want[i] {
			t.Errorf("%s encodes as\n%s\nwas\n%s", tool.Name, b, want[i])
		}
	}
	if out := page.Tools[1].OutputSchema; out != nil {
		t.Errorf("b gained an output schema: %#v", out)
	}
	if _, err := compactSchemas(next)(context.Background(), "prompts/list", nil); err != nil {
		t.Errorf("prompts/list: %v", err)
	}
}
