package importer

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
)

// marshalSchema is json.Marshal of a schema spelled out as maps and
// slices, byte for byte, without its reflection: a 10,000-operation spec
// spent about a tenth of its import there. The common values (objects,
// arrays, plain text, whole numbers, booleans, null) are written here;
// any other value, and text or a number that needs escaping or an
// exponent, is written by json.Marshal.
func marshalSchema(v any) ([]byte, error) {
	return appendSchemaJSON(make([]byte, 0, 512), v)
}

func appendSchemaJSON(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case string:
		return appendJSONString(b, v)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1e21 {
			return strconv.AppendFloat(b, v, 'f', -1, 64), nil
		}
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSONString(b, k); err != nil {
				return nil, err
			}
			b = append(b, ':')
			if b, err = appendSchemaJSON(b, v[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		return appendList(b, v)
	case []string:
		return appendList(b, v)
	}
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, j...), nil
}

// appendJSONString writes s as JSON: itself in quotes when it is printable
// ASCII that encoding/json leaves as it is, else as json.Marshal writes
// it (escapes, HTML's <, > and &, and any other character).
func appendJSONString(b []byte, s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			j, err := json.Marshal(s)
			if err != nil {
				return nil, err
			}
			return append(b, j...), nil
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), nil
}

// appendList writes a list of schema values as a JSON array.
func appendList[T any](b []byte, v []T) ([]byte, error) {
	b = append(b, '[')
	for i, e := range v {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendSchemaJSON(b, e); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}
