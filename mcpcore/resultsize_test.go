package mcpcore

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The bound checkResultSize trusts without encoding must never be below
// the encoded size, whatever the text holds.
func TestTextResultBoundIsAnUpperBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	texts := []string{"", "hi", strings.Repeat("\x00", 1000), strings.Repeat(`"\<>&`, 100), "\u2028\u2029", string([]byte{0xff, 0xfe, 0x80}), "é☃😀"}
	for range 200 {
		b := make([]byte, rng.IntN(300))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		texts = append(texts, string(b))
	}
	for i, text := range texts {
		for _, blocks := range []int{0, 1, 3} {
			res := &mcp.CallToolResult{IsError: i%2 == 0}
			for range blocks {
				res.Content = append(res.Content, &mcp.TextContent{Text: text})
			}
			bound, ok := textResultBound(res)
			if !ok {
				t.Fatal("a text result got no bound")
			}
			enc, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(enc)) > bound {
				t.Fatalf("%d blocks of %q: encoded %d bytes, above the bound %d", blocks, text, len(enc), bound)
			}
		}
	}
	for _, res := range []mcp.Result{
		&mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: []byte("x")}}},
		&mcp.CallToolResult{StructuredContent: map[string]any{"a": 1}},
		&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x", Annotations: &mcp.Annotations{Priority: 1}}}},
		&mcp.ReadResourceResult{},
	} {
		if _, ok := textResultBound(res); ok {
			t.Errorf("%T %+v got a bound: it is not text alone", res, res)
		}
	}
}
