package mcpcore

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sizeTexts are texts whose encoded size differs from their length:
// escapes of every kind, bytes that are not UTF-8, and random bytes.
func sizeTexts() []string {
	rng := rand.New(rand.NewPCG(1, 2))
	texts := []string{"", "hi", strings.Repeat("\x00", 1000), strings.Repeat(`"\<>&`, 100), "\u2028\u2029", string([]byte{0xff, 0xfe, 0x80}), "é☃😀", "\b\f\n\r\t\x7f"}
	for range 200 {
		b := make([]byte, rng.IntN(300))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		texts = append(texts, string(b))
	}
	return texts
}

// textResults are tool results of 0, 1 and 3 blocks of each text.
func textResults() []*mcp.CallToolResult {
	var out []*mcp.CallToolResult
	for i, text := range sizeTexts() {
		for _, blocks := range []int{0, 1, 3} {
			res := &mcp.CallToolResult{IsError: i%2 == 0}
			for range blocks {
				res.Content = append(res.Content, &mcp.TextContent{Text: text})
			}
			out = append(out, res)
		}
	}
	return out
}

// The bound checkResultSize trusts without counting must never be below
// the encoded size, whatever the text holds.
func TestTextResultBoundIsAnUpperBound(t *testing.T) {
	for _, res := range textResults() {
		bound, ok := textResultBound(res)
		if !ok {
			t.Fatal("a text result got no bound")
		}
		enc, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(enc)) > bound {
			t.Fatalf("%+v: encoded %d bytes, above the bound %d", res, len(enc), bound)
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

// Past the bound, checkResultSize counts a result's text without encoding
// it: the count must be the encoded size, whatever the text holds.
func TestEncodedSizeIsExact(t *testing.T) {
	var results []mcp.Result
	for _, res := range textResults() {
		results = append(results, res)
	}
	for _, text := range sizeTexts() {
		results = append(results,
			&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text, Annotations: &mcp.Annotations{Priority: 1}}, &mcp.ImageContent{Data: []byte(text)}},
				StructuredContent: map[string]any{"text": text}, Meta: mcp.Meta{"k": text}},
			&mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "x:y", Text: text}}})
	}
	results = append(results, (*mcp.CallToolResult)(nil))
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
