package mcpcore

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"sync"
)

// schemaMemo remembers, for one check of a catalog, what the schema checks
// found, by each schema's shape: the schema without its descriptions and
// titles, which no check reads. An imported API's tools repeat a few
// shapes thousands of times (its components, flattened into each tool's
// parameters, under other words), and checking a schema of a few KB takes
// milliseconds. Safe for concurrent use; nil checks every schema.
type schemaMemo struct {
	mu    sync.Mutex
	found map[[sha256.Size]byte][]string
}

func newSchemaMemo() *schemaMemo { return &schemaMemo{found: map[[sha256.Size]byte][]string{}} }

// check returns what check finds in raw, or what it found in a schema of
// the same shape.
func (m *schemaMemo) check(kind string, raw json.RawMessage, check func(json.RawMessage) []string) []string {
	if m == nil {
		return check(raw)
	}
	shape, ok := schemaShape(raw)
	if !ok {
		return check(raw)
	}
	// The shapes' digests, not the shapes: thousands of them of a few KB.
	key := sha256.Sum256([]byte(kind + "\x00" + shape))
	m.mu.Lock()
	msgs, seen := m.found[key]
	m.mu.Unlock()
	if seen {
		return msgs
	}
	msgs = check(raw)
	m.mu.Lock()
	m.found[key] = msgs
	m.mu.Unlock()
	return msgs
}

// schemaShape is raw's shape: its JSON with the annotations no check reads
// (description, title, $comment, when they are strings) taken out of every
// place that holds a schema, and its object keys sorted. Anything else is
// kept as written: numbers as their text, and whatever sits under another
// keyword (a default, an enum, an x- extension) whole, even when it holds
// a key named "description". ok is false for what is not a JSON object
// nested within the limit.
func schemaShape(raw json.RawMessage) (string, bool) {
	if checkDepth(raw) != nil {
		return "", false
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var root map[string]any
	if d.Decode(&root) != nil || d.More() {
		return "", false
	}
	stripAnnotations(root)
	b, err := json.Marshal(root)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// The keywords whose values hold schemas: one, a list of them, or an
// object of them by name (JSON Schema 2020-12 and the drafts before it).
var (
	schemaKeywords     = []string{"items", "additionalItems", "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "contains", "propertyNames", "not", "if", "then", "else", "contentSchema"}
	schemaListKeywords = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
	schemaMapKeywords  = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)

// stripAnnotations takes the string annotations out of schema v and of the
// schemas it holds.
func stripAnnotations(v any) {
	s, ok := v.(map[string]any)
	if !ok {
		return
	}
	for _, k := range []string{"description", "title", "$comment"} {
		if _, isText := s[k].(string); isText {
			delete(s, k)
		}
	}
	for _, k := range schemaKeywords {
		stripAnnotations(s[k])
	}
	for _, k := range schemaListKeywords {
		if l, ok := s[k].([]any); ok {
			for _, sub := range l {
				stripAnnotations(sub)
			}
		}
	}
	for _, k := range schemaMapKeywords {
		if m, ok := s[k].(map[string]any); ok {
			for _, sub := range m {
				stripAnnotations(sub)
			}
		}
	}
}
