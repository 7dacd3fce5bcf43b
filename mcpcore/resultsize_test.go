package mcpcore

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// checkResultSize counts a result's text without encoding it: the count
// must be the encoded size, whatever the text holds.
func TestEncodedSizeIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	texts := []string{"", "hi", strings.Repeat("\x00", 1000), strings.Repeat(`"\<>&`, 100), "\u2028\u2029", string([]byte{0xff, 0xfe, 0x80}), "é☃😀", "\b\f\n\r\t\x7f"}
	for range 200 {
		b := make([]byte, rng.IntN(300))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		texts = append(texts, string(b))
	}
	var results []mcp.Result
	for i, text := range texts {
		for _, blocks := range []int{0, 1, 3} {
			res := &mcp.CallToolResult{IsError: i%2 == 0}
			for range blocks {
				res.Content = append(res.Content, &mcp.TextContent{Text: text})
			}
			results = append(results, res)
		}
		results = append(results,
			&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text, Annotations: &mcp.Annotations{Priority: 1}}, &mcp.ImageContent{Data: []byte(text)}},
				StructuredContent: map[string]any{"text": text}, Meta: mcp.Meta{"k": text}},
			&mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "x:y", Text: text}}})
	}
	results = append(results, (*mcp.CallToolResult)(nil), &mcp.CallToolResult{})
	for _, res := range results {
		enc, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		n, err := encodedSize(res)
		if err != nil || n != int64(len(enc)) {
			t.Fatalf("%T %+v: counted %d bytes (%v), encoded %d", res, res, n, err, len(enc))
		}
	}
}
