// Copyright 2025 The Go MCP SDK Authors. All rights reserved.
// Use of this source code is governed by an MIT-style
// license that can be found in the LICENSE file.

package jsonrpc2

import (
	"bytes"
	"encoding/json"
	"testing"
)

// marshalsItself is a result that marshals itself, as mcp's results do.
type marshalsItself struct{ json string }

func (m *marshalsItself) MarshalJSON() ([]byte, error) { return []byte(m.json), nil }

// A response, and a result that marshals itself, are encoded without the
// encoder's copies: byte for byte what the encoder writes.
func TestEncodeWithoutCopies(t *testing.T) {
	encoder := func(v any) string {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		return string(bytes.TrimRight(buf.Bytes(), "\n"))
	}
	results := []string{`{"content":[{"type":"text","text":"a <b> \"c\"\n"}]}`, `{ "spaced" : [1, 2] }`, `"x"`, `[]`, `{"s":" \" \\ "}`}
	for _, id := range []ID{Int64ID(7), StringID("id <&> \"1\"")} {
		for _, result := range results {
			res, err := NewResponse(id, &marshalsItself{result}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := encoder(&marshalsItself{result}); string(res.Result) != want {
				t.Errorf("result %s: marshaled as %s, want %s", result, res.Result, want)
			}
			got, err := EncodeMessage(res)
			if err != nil {
				t.Fatal(err)
			}
			wire := wireCombined{VersionTag: wireVersion}
			res.marshal(&wire)
			if want := encoder(&wire); string(got) != want {
				t.Errorf("response of %s: encoded as %s, want %s", result, got, want)
			}
		}
	}
	if _, err := NewResponse(Int64ID(1), &marshalsItself{`{"not json"`}, nil); err == nil {
		t.Error("a result that is not JSON was encoded")
	}
	if b, err := jsonMarshal((*marshalsItself)(nil)); err != nil || string(b) != "null" {
		t.Errorf("a nil result: %s, %v; want null", b, err)
	}
}
