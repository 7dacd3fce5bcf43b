package importer

import (
	"encoding/json"
	"math"
	"testing"
)

// TestMarshalSchemaIsJSONMarshal: marshalSchema writes what json.Marshal
// writes, byte for byte: for values of every kind it writes itself or
// hands on (text needing escapes, HTML's characters, other scripts,
// fractions, exponents, whole numbers near the limit, types of other
// kinds), and for every spec of testdata read as generic values.
func TestMarshalSchemaIsJSONMarshal(t *testing.T) {
	values := []any{
		nil, true, false, "", "plain text", `quote " and \ backslash`, "<b>&amp;</b>", "a > b", "a & b", "x\x7f", "line\nbreak\ttab\x01",
		"é, 日本, \u2028", "\xff invalid", 0.0, math.Copysign(0, -1), 1.0, -42.0, 3.5, 1e-7, 1e20, 1e21, -1e21, 123456789012345678.0,
		math.MaxFloat64, 7, -7, int64(9), uint64(10), float32(0.1), json.Number("12"), json.RawMessage(`{"b": 1}`),
		[]string{"a", "<"}, []any{1.0, "x", nil, []any{}}, map[string]any{}, []any{},
		map[string]any{"z": 1.0, "a": map[string]any{"<key>": "v", "é": []string{}}, "m": []any{map[string]any{"k": false}}},
		map[string]int{"b": 1, "a": 2}, struct{ A int }{1},
	}
	for _, v := range values {
		same(t, v)
	}
	var spec any
	if err := json.Unmarshal([]byte(hostileSpec), &spec); err != nil {
		t.Fatal(err)
	}
	same(t, spec)
	for _, name := range []string{"petstore-3.0.yaml", "museum-3.1.yaml", "mistakes.yaml", "uber-2.0.yaml"} {
		var v any
		if err := json.Unmarshal(testdataJSON(t, name), &v); err != nil {
			t.Fatal(err)
		}
		same(t, v)
	}
	// What json.Marshal refuses, marshalSchema refuses.
	for _, v := range []any{math.NaN(), map[string]any{"a": math.Inf(1)}, []any{make(chan int)}} {
		if _, err := marshalSchema(v); err == nil {
			t.Errorf("marshalSchema(%v) gave no error", v)
		}
	}
}

// same requires marshalSchema(v) to be json.Marshal(v).
func same(t *testing.T, v any) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := marshalSchema(v)
	if err != nil || string(got) != string(want) {
		t.Errorf("marshalSchema(%#v) = %s, %v; json.Marshal writes %s", v, got, err, want)
	}
}
