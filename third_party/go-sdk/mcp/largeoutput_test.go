// Copyright 2025 The Go MCP SDK Authors. All rights reserved.
// Use of this source code is governed by an MIT-style
// license that can be found in the LICENSE file.

package mcp

import (
	"encoding/json"
	"math/rand/v2"
	"net/http/httptest"
	"strings"
	"testing"
)

// A result of plain text blocks, written straight into its buffer, must
// be byte for byte what json.Marshal writes for it.
func TestPlainTextResultJSON(t *testing.T) {
	type refText struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type ref struct {
		Meta              Meta            `json:"_meta,omitempty"`
		Content           []refText       `json:"content"`
		StructuredContent any             `json:"structuredContent,omitempty"`
		IsError           bool            `json:"isError,omitempty"`
		RequestState      string          `json:"requestState,omitempty"`
		ResultType        resultType      `json:"resultType,omitempty"`
		InputRequests     json.RawMessage `json:"inputRequests,omitempty"`
	}
	rng := rand.New(rand.NewPCG(1, 2))
	texts := []string{"", "hi", "a\nb\t\"c\"\\", "<&>", "\u2028\u2029", "é☃😀", "\x00\x1f", string([]byte{0xff, 'a', 0xe2, 0x80})}
	for range 100 {
		b := make([]byte, rng.IntN(200))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		texts = append(texts, string(b))
	}
	for i, text := range texts {
		for _, blocks := range []int{1, 3} {
			res := &CallToolResult{IsError: i%2 == 0}
			want := ref{IsError: res.IsError}
			switch i % 4 {
			case 1:
				res.StructuredContent = map[string]any{"text": text}
				want.StructuredContent = res.StructuredContent
			case 2:
				res.RequestState, want.RequestState = "state", "state"
				res.setResultType(resultTypeComplete)
				want.ResultType = resultTypeComplete
			case 3:
				res.Meta = Meta{"k": text, "content": nil, "n": 1}
				want.Meta = res.Meta
			}
			for range blocks {
				res.Content = append(res.Content, &TextContent{Text: text})
				want.Content = append(want.Content, refText{"text", text})
			}
			got, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			wantJSON, err := json.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(wantJSON) {
				t.Errorf("%d blocks of %q:\ngot  %s\nwant %s", blocks, text, got, wantJSON)
			}
			if tc, err := res.Content[0].MarshalJSON(); err != nil || cap(tc) != len(tc) {
				t.Errorf("a text block of %q: %d bytes in a buffer of %d (%v), want it sized exactly", text, len(tc), cap(tc), err)
			}
		}
	}
}

// An event's data, small or large (written as it is), reads the same.
func TestWriteEventSizes(t *testing.T) {
	for _, size := range []int{0, 10, largeEventData - 1, largeEventData, 3 * largeEventData} {
		data := strings.Repeat("x", size)
		w := httptest.NewRecorder()
		n, err := writeEvent(w, Event{Name: "message", ID: "1", Data: []byte(data)})
		want := "event: message\nid: 1\ndata: " + data + "\n\n"
		if err != nil || n != len(want) || w.Body.String() != want || !w.Flushed {
			t.Errorf("%d bytes of data: wrote %d (%v), flushed %v; the body differs: %v", size, n, err, w.Flushed, w.Body.String() != want)
		}
	}
}
