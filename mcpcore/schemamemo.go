package mcpcore

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"slices"

	"github.com/mcptray/mcptray/internal/memo"
)

// schemaMemo remembers, for one check of a catalog, what the schema checks
// found, by each schema's shape: the schema without its descriptions and
// titles, which no check reads. An imported API's tools repeat a few
// shapes thousands of times (its components, flattened into each tool's
// parameters, under other words), and checking a schema of a few KB takes
// milliseconds. Safe for concurrent use; nil checks every schema.
type schemaMemo struct {
	found *memo.Memo[[sha256.Size]byte, []string]
}

func newSchemaMemo() *schemaMemo {
	return &schemaMemo{found: memo.New[[sha256.Size]byte, []string]()}
}

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
	var key [sha256.Size]byte
	h := sha256.New()
	h.Write([]byte(kind + "\x00"))
	h.Write(shape)
	h.Sum(key[:0])
	return m.found.Get(key, func() []string { return check(raw) })
}

// schemaShape is raw's shape: its JSON with the annotations no check reads
// (description, title, $comment, when they are strings) taken out of every
// place that holds a schema, its object keys sorted and no space between
// its tokens. Anything else is kept as written: strings and numbers as
// their text, and whatever sits under another keyword (a default, an
// enum, an x- extension) whole, even when it holds a key named
// "description". ok is false for what is not a JSON object nested within
// the limit, and for an object with a key twice, or a key written with an
// escape (which could be the same key twice): its shape could not say
// which one counts, the last. Those are checked without the memo.
//
// It is read in one pass, without decoding: decoding into maps and
// encoding them again was a tenth of a 10,000-operation import.
func schemaShape(raw json.RawMessage) ([]byte, bool) {
	s := shaper{in: raw, out: make([]byte, 0, len(raw))}
	s.space()
	if s.pos >= len(s.in) || s.in[s.pos] != '{' || !s.value(oneSchema) {
		return nil, false
	}
	if s.space(); s.pos != len(s.in) {
		return nil, false
	}
	return s.out, true
}

// place says what a JSON value is to schemaShape.
type place uint8

const (
	// opaque is a value no check reads as a schema: kept whole.
	opaque place = iota
	// oneSchema is a schema when it is an object.
	oneSchema
	// schemaList is a list of schemas when it is an array.
	schemaList
	// schemaOrList is a schema or a list of them ("items").
	schemaOrList
	// schemaMap is an object of schemas by name.
	schemaMap
)

// keywordPlaces are the keywords whose values hold schemas: one, a list of
// them, or an object of them by name (JSON Schema 2020-12 and the drafts
// before it).
var keywordPlaces = map[string]place{
	"additionalItems":       oneSchema,
	"additionalProperties":  oneSchema,
	"unevaluatedProperties": oneSchema,
	"unevaluatedItems":      oneSchema,
	"contains":              oneSchema,
	"propertyNames":         oneSchema,
	"not":                   oneSchema,
	"if":                    oneSchema,
	"then":                  oneSchema,
	"else":                  oneSchema,
	"contentSchema":         oneSchema,
	"allOf":                 schemaList,
	"anyOf":                 schemaList,
	"oneOf":                 schemaList,
	"prefixItems":           schemaList,
	"items":                 schemaOrList,
	"properties":            schemaMap,
	"patternProperties":     schemaMap,
	"$defs":                 schemaMap,
	"definitions":           schemaMap,
	"dependentSchemas":      schemaMap,
}

// annotationKeywords are the keywords no check reads, taken out of a
// schema when their value is a string.
var annotationKeywords = map[string]bool{"description": true, "title": true, "$comment": true}

// shaper writes the shape of the JSON in in to out as it reads it.
type shaper struct {
	in    []byte
	pos   int
	out   []byte
	depth int
	// members are the spans in out of the members of the objects being
	// read, innermost last, to sort them once each object is read.
	members []member
}

// member is one "key":value of an object: its key as read, and where it
// is written in out (nowhere when start == end: an annotation taken out).
type member struct {
	key        []byte
	start, end int
}

func (s *shaper) space() {
	for s.pos < len(s.in) {
		switch s.in[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// value reads the JSON value at s.pos, whose place is p, and writes its
// shape; false means it is not valid JSON, or nests past the limit.
func (s *shaper) value(p place) bool {
	s.space()
	if s.pos >= len(s.in) {
		return false
	}
	switch c := s.in[s.pos]; {
	case c == '{':
		switch p {
		case oneSchema, schemaOrList:
			return s.object(true, opaque)
		case schemaMap:
			return s.object(false, oneSchema)
		}
		return s.object(false, opaque)
	case c == '[':
		if p == schemaList || p == schemaOrList {
			return s.array(oneSchema)
		}
		return s.array(opaque)
	case c == '"':
		start := s.pos
		if !s.skipString() {
			return false
		}
		s.out = append(s.out, s.in[start:s.pos]...)
		return true
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	}
	for _, lit := range []string{"true", "false", "null"} {
		if len(s.in)-s.pos >= len(lit) && string(s.in[s.pos:s.pos+len(lit)]) == lit {
			s.out = append(s.out, lit...)
			s.pos += len(lit)
			return true
		}
	}
	return false
}

// object reads an object: a schema, whose members are in the place their
// keyword says and lose their annotations, or not, whose members' values
// are in place p.
func (s *shaper) object(schema bool, p place) bool {
	if s.depth++; s.depth > maxSchemaDepth {
		return false
	}
	s.pos++ // {
	s.out = append(s.out, '{')
	base := len(s.members)
	for first := true; ; first = false {
		s.space()
		if s.pos < len(s.in) && s.in[s.pos] == '}' && first {
			break
		}
		keyStart := s.pos
		if s.pos >= len(s.in) || s.in[s.pos] != '"' || !s.skipString() {
			return false
		}
		key := s.in[keyStart:s.pos]
		if bytes.IndexByte(key, '\\') >= 0 {
			return false
		}
		s.space()
		if s.pos >= len(s.in) || s.in[s.pos] != ':' {
			return false
		}
		s.pos++
		s.space()
		name := key[1 : len(key)-1]
		valuePlace := p
		if schema {
			valuePlace = keywordPlaces[string(name)]
		}
		if schema && annotationKeywords[string(name)] && s.pos < len(s.in) && s.in[s.pos] == '"' {
			if !s.skipString() {
				return false
			}
			s.members = append(s.members, member{key: key})
		} else {
			if s.out[len(s.out)-1] != '{' {
				s.out = append(s.out, ',')
			}
			m := member{key: key, start: len(s.out)}
			s.out = append(s.out, key...)
			s.out = append(s.out, ':')
			if !s.value(valuePlace) {
				return false
			}
			m.end = len(s.out)
			s.members = append(s.members, m)
		}
		s.space()
		if s.pos >= len(s.in) {
			return false
		}
		if s.in[s.pos] == '}' {
			break
		}
		if s.in[s.pos] != ',' {
			return false
		}
		s.pos++
	}
	s.pos++ // }
	if !s.sortMembers(s.members[base:]) {
		return false
	}
	s.members = s.members[:base]
	s.out = append(s.out, '}')
	s.depth--
	return true
}

// sortMembers puts an object's members, just written, in the order of
// their keys. false means two have one key: which one counts is the last,
// which the shape would not say.
func (s *shaper) sortMembers(ms []member) bool {
	cmp := func(a, b member) int { return bytes.Compare(a.key, b.key) }
	sorted := slices.IsSortedFunc(ms, cmp)
	if !sorted {
		ms = slices.SortedFunc(slices.Values(ms), cmp)
	}
	for i := 1; i < len(ms); i++ {
		if bytes.Equal(ms[i-1].key, ms[i].key) {
			return false
		}
	}
	if sorted {
		return true
	}
	from := len(s.out)
	for _, m := range ms {
		if m.start != m.end {
			from = min(from, m.start)
		}
	}
	written := slices.Clone(s.out[from:])
	s.out = s.out[:from]
	for _, m := range ms {
		if m.start == m.end {
			continue
		}
		if len(s.out) > from {
			s.out = append(s.out, ',')
		}
		s.out = append(s.out, written[m.start-from:m.end-from]...)
	}
	return true
}

// array reads an array whose elements are in place p.
func (s *shaper) array(p place) bool {
	if s.depth++; s.depth > maxSchemaDepth {
		return false
	}
	s.pos++ // [
	s.out = append(s.out, '[')
	for first := true; ; first = false {
		s.space()
		if s.pos < len(s.in) && s.in[s.pos] == ']' && first {
			break
		}
		if !first {
			s.out = append(s.out, ',')
		}
		if !s.value(p) {
			return false
		}
		s.space()
		if s.pos >= len(s.in) {
			return false
		}
		if s.in[s.pos] == ']' {
			break
		}
		if s.in[s.pos] != ',' {
			return false
		}
		s.pos++
	}
	s.pos++ // ]
	s.out = append(s.out, ']')
	s.depth--
	return true
}

// skipString moves past the string at s.pos, false when it is not one.
func (s *shaper) skipString() bool {
	for i := s.pos + 1; i < len(s.in); i++ {
		switch c := s.in[i]; {
		case c == '"':
			s.pos = i + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if i++; i >= len(s.in) {
				return false
			}
			switch s.in[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(s.in) {
					return false
				}
				for _, h := range s.in[i+1 : i+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false
					}
				}
				i += 4
			default:
				return false
			}
		}
	}
	return false
}

// number writes the number at s.pos as written, false when it is not one:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *shaper) number() bool {
	start, i := s.pos, s.pos
	digits := func() bool {
		from := i
		for i < len(s.in) && '0' <= s.in[i] && s.in[i] <= '9' {
			i++
		}
		return i > from
	}
	if s.in[i] == '-' {
		i++
	}
	switch {
	case i < len(s.in) && s.in[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(s.in) && s.in[i] == '.' {
		if i++; !digits() {
			return false
		}
	}
	if i < len(s.in) && (s.in[i] == 'e' || s.in[i] == 'E') {
		if i++; i < len(s.in) && (s.in[i] == '+' || s.in[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	s.out = append(s.out, s.in[start:i]...)
	s.pos = i
	return true
}
