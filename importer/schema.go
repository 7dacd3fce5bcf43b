package importer

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// jsonTypes are the types a JSON Schema (and a tool parameter) may name.
var jsonTypes = []string{"string", "integer", "number", "boolean", "array", "object"}

// typeMistakes maps type names that real specs use although they are no
// JSON type (a language's name, a format written as a type) to the JSON
// type they mean. "file" and "binary" mean bytes, which a tool cannot
// send: they map to "".
var typeMistakes = map[string]string{
	"int": "integer", "int32": "integer", "int64": "integer", "long": "integer", "short": "integer",
	"float": "number", "double": "number", "decimal": "number", "bool": "boolean",
	"str": "string", "text": "string", "date": "string", "datetime": "string", "date-time": "string",
	"uuid": "string", "email": "string", "list": "array", "map": "object", "dict": "object",
	"file": "", "binary": "",
}

// maxDepth bounds how deep a schema is converted: recursive schemas (a
// tree's node naming itself) would otherwise never end.
const maxDepth = 8

// schemaConv converts the schemas of one operation, noting every mistake
// of the spec it meets and what was done about it.
type schemaConv struct {
	note func(format string, args ...any)
}

// errBinary is a schema of bytes (type file, format binary), which a tool
// cannot send.
var errBinary = fmt.Errorf("the value is a file (bytes), which a tool cannot send")

// typeOf is the JSON type of s, read as the spec means it: a type that is
// no JSON type is mapped when its meaning is plain (int → integer) and
// noted; a missing one is inferred from the rest of the schema. It is ""
// when any value goes, and errBinary for bytes.
func (c *schemaConv) typeOf(s *openapi3.Schema, what string) (string, error) {
	if s == nil {
		return "", nil
	}
	if s.Format == "binary" && (s.Type == nil || s.Type.Is("string")) {
		return "", errBinary
	}
	var types []string
	if s.Type != nil {
		for _, t := range s.Type.Slice() {
			if t != "null" {
				types = append(types, t)
			}
		}
	}
	switch len(types) {
	case 0:
		switch {
		case len(s.Properties) > 0 || s.AdditionalProperties.Schema != nil:
			return "object", nil
		case s.Items != nil:
			return "array", nil
		case len(s.Enum) > 0:
			return valueType(s.Enum[0]), nil
		}
		if len(s.AllOf) > 0 {
			for _, part := range s.AllOf {
				if part != nil && part.Value != nil {
					if t, err := c.typeOf(part.Value, what); t != "" || err != nil {
						return t, err
					}
				}
			}
		}
		return "", nil
	case 1:
	default:
		t := types[0]
		if slices.Contains(types, "string") {
			t = "string"
		}
		c.note("%s: the spec allows several types (%s): read as %s", what, strings.Join(types, ", "), t)
		types = []string{t}
	}
	t := types[0]
	if slices.Contains(jsonTypes, t) {
		return t, nil
	}
	lower := strings.ToLower(t)
	if slices.Contains(jsonTypes, lower) {
		c.note("%s: the type %q is written in capitals, which JSON Schema does not allow: read as %s", what, t, lower)
		return lower, nil
	}
	mapped, known := typeMistakes[lower]
	switch {
	case known && mapped == "":
		return "", errBinary
	case known:
		c.note("%s: the spec's type %q is not a JSON type: read as %s", what, t, mapped)
		return mapped, nil
	}
	c.note("%s: the spec's type %q is not a JSON type: read as text", what, t)
	return "string", nil
}

// valueType is the JSON type of a value decoded from the spec.
func valueType(v any) string {
	switch x := v.(type) {
	case bool:
		return "boolean"
	case float64:
		if x == math.Trunc(x) {
			return "integer"
		}
		return "number"
	case int, int64, uint64:
		return "integer"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "string"
}

// fits reports whether v is a value of the JSON type typ.
func fits(typ string, v any) bool {
	switch got := valueType(v); typ {
	case "":
		return true
	case "number":
		return got == "number" || got == "integer"
	default:
		return got == typ
	}
}

// cleanValue is v as JSON holds it: the spec's decoder may give integers
// as int or uint64, which mcpcore compares with its own float64 numbers.
func cleanValue(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	}
	return v
}

// enumOf is the schema's enum values that fit typ; the others (and a
// null) are noted and left out.
func (c *schemaConv) enumOf(s *openapi3.Schema, typ, what string) []any {
	var out []any
	for _, v := range s.Enum {
		switch {
		case v == nil:
		case fits(typ, v):
			out = append(out, cleanValue(v))
		default:
			c.note("%s: the allowed value %v is not of type %s: left out", what, v, typ)
		}
	}
	return out
}

// defaultOf is the schema's default when it fits typ (and the enum).
func (c *schemaConv) defaultOf(s *openapi3.Schema, typ string, enum []any, what string) any {
	if s.Default == nil {
		return nil
	}
	d := cleanValue(s.Default)
	if !fits(typ, d) || len(enum) > 0 && !slices.Contains(enum, d) {
		c.note("%s: the default %v does not fit the schema: left out", what, s.Default)
		return nil
	}
	return d
}

// exampleOf is the first example given (the parameter's own, or the
// schema's), as text for a description; a malformed one — not of the
// schema's type — is noted and left out.
func (c *schemaConv) exampleOf(own any, s *openapi3.Schema, typ, what string) string {
	ex := own
	if ex == nil && s != nil {
		ex = s.Example
		if ex == nil && len(s.Examples) > 0 {
			ex = s.Examples[0]
		}
	}
	if ex == nil {
		return ""
	}
	if typ != "" && typ != "object" && typ != "array" && !fits(typ, ex) {
		c.note("%s: the example %v is not of type %s (a mistake in the spec): left out", what, ex, typ)
		return ""
	}
	switch ex.(type) {
	case map[string]any, []any:
		return ""
	}
	return fmt.Sprint(cleanValue(ex))
}

// merged is s with its allOf parts folded in: their properties and
// required lists joined, their type and description used when s has none.
// Other keywords of the parts are not carried over.
func merged(s *openapi3.Schema) *openapi3.Schema {
	if s == nil || len(s.AllOf) == 0 {
		return s
	}
	out := *s
	out.AllOf = nil
	out.Properties = openapi3.Schemas{}
	for k, v := range s.Properties {
		out.Properties[k] = v
	}
	out.Required = slices.Clone(s.Required)
	// The parts are folded in depth first, a part's own keywords before
	// its parts', each part once: met again it would add nothing, and a
	// part holding s, or itself, would never end.
	seen := map[*openapi3.Schema]bool{s: true}
	var fold func(parts openapi3.SchemaRefs)
	fold = func(parts openapi3.SchemaRefs) {
		for _, part := range parts {
			if part == nil || part.Value == nil || seen[part.Value] {
				continue
			}
			p := part.Value
			seen[p] = true
			for k, v := range p.Properties {
				if _, ok := out.Properties[k]; !ok {
					out.Properties[k] = v
				}
			}
			for _, r := range p.Required {
				if !slices.Contains(out.Required, r) {
					out.Required = append(out.Required, r)
				}
			}
			if out.Type == nil || out.Type.IsEmpty() {
				out.Type = p.Type
			}
			if out.Description == "" {
				out.Description = p.Description
			}
			fold(p.AllOf)
		}
	}
	fold(s.AllOf)
	return &out
}

// isPrimitive reports a JSON type a tool parameter holds as one value.
func isPrimitive(typ string) bool {
	return typ == "string" || typ == "integer" || typ == "number" || typ == "boolean"
}

// jsonSchema converts an OpenAPI schema into the JSON Schema (2020-12) of
// a tool's input: types read as typeOf does, enums and defaults that fit,
// bounds and lengths, a pattern Go can compile, items, properties (a
// request leaves out readOnly ones) and additionalProperties; OpenAPI's
// own keywords (nullable, example, xml, discriminator) are dropped.
func (c *schemaConv) jsonSchema(s *openapi3.Schema, what string, depth int) (map[string]any, error) {
	out := map[string]any{}
	if s == nil {
		return out, nil
	}
	if depth > maxDepth {
		c.note("%s: nested deeper than %d levels (a schema that contains itself?): below that, any value is accepted", what, maxDepth)
		return out, nil
	}
	s = merged(s)
	typ, err := c.typeOf(s, what)
	if err != nil {
		return nil, err
	}
	if typ != "" {
		out["type"] = typ
	}
	if d := strings.TrimSpace(s.Description); d != "" {
		out["description"] = d
	}
	if s.Format != "" && typ == "string" {
		out["format"] = s.Format
	}
	enum := c.enumOf(s, typ, what)
	if len(enum) > 0 {
		out["enum"] = enum
	}
	if d := c.defaultOf(s, typ, enum, what); d != nil {
		out["default"] = d
	}
	if typ == "integer" || typ == "number" {
		bound(out, "minimum", "exclusiveMinimum", s.Min, s.ExclusiveMin)
		bound(out, "maximum", "exclusiveMaximum", s.Max, s.ExclusiveMax)
	}
	if typ == "string" {
		if s.MinLength > 0 {
			out["minLength"] = s.MinLength
		}
		if s.MaxLength != nil {
			out["maxLength"] = *s.MaxLength
		}
		if s.Pattern != "" {
			if _, err := regexp.Compile(s.Pattern); err != nil {
				c.note("%s: the pattern %q is not one Go can check (%v): left out", what, s.Pattern, err)
			} else {
				out["pattern"] = s.Pattern
			}
		}
	}
	var alts []any
	for _, alt := range append(slices.Clone(s.OneOf), s.AnyOf...) {
		if alt == nil || alt.Value == nil {
			continue
		}
		a, err := c.jsonSchema(alt.Value, what, depth+1)
		if err != nil {
			return nil, err
		}
		alts = append(alts, a)
	}
	if len(alts) > 0 {
		out["anyOf"] = alts
	}
	if typ == "array" && s.Items != nil && s.Items.Value != nil {
		items, err := c.jsonSchema(s.Items.Value, what+" (each item)", depth+1)
		if err != nil {
			return nil, err
		}
		out["items"] = items
	}
	if typ == "object" {
		props := map[string]any{}
		var required []string
		for _, name := range propertyOrder(s) {
			p := s.Properties[name].Value
			if p == nil || p.ReadOnly {
				continue
			}
			ps, err := c.jsonSchema(p, what+"."+name, depth+1)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			props[name] = ps
			if slices.Contains(s.Required, name) {
				required = append(required, name)
			}
		}
		if len(props) > 0 {
			out["properties"] = props
		}
		if len(required) > 0 {
			out["required"] = required
		}
		switch ap := s.AdditionalProperties; {
		case ap.Has != nil:
			out["additionalProperties"] = *ap.Has
		case ap.Schema != nil && ap.Schema.Value != nil:
			as, err := c.jsonSchema(ap.Schema.Value, what+" (each value)", depth+1)
			if err != nil {
				return nil, err
			}
			out["additionalProperties"] = as
		}
	}
	return out, nil
}

// bound writes a minimum or maximum: OpenAPI 3.0 marks it exclusive with
// a boolean, 3.1 (like JSON Schema) gives the exclusive bound as a number.
func bound(out map[string]any, key, exclusiveKey string, v *float64, ex openapi3.ExclusiveBound) {
	switch {
	case ex.Value != nil:
		out[exclusiveKey] = *ex.Value
	case v != nil && ex.IsTrue():
		out[exclusiveKey] = *v
	case v != nil:
		out[key] = *v
	}
}

// propertyOrder lists an object's properties: the required ones in the
// order the spec lists them, then the others by name. (The spec's own
// order is lost when it is read into maps.)
func propertyOrder(s *openapi3.Schema) []string {
	var out []string
	for _, r := range s.Required {
		if _, ok := s.Properties[r]; ok && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	var rest []string
	for name := range s.Properties {
		if !slices.Contains(out, name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}
