package importer

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"

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

// maxDepth bounds how deep a value's schema is spelled out: below it, a
// schema holding others becomes a loose one (see loose). Deeper detail
// helps a model little, and mcpcore refuses a tool's schema nested more
// than 64 JSON levels (a level here takes up to two).
const maxDepth = 8

// maxSchemaNodes bounds how many schemas one operation's parameters spell
// out, together (some 100-200 KB of JSON Schema, more than a model makes
// use of): past it, the schemas holding others become loose ones. Without
// it, a schema holding another twice, which holds another twice, and so
// on, spelled out grows exponentially with its depth, though each schema
// is converted once.
const maxSchemaNodes = 2000

// schemaConv converts the schemas of one operation, noting every mistake
// of the spec it meets and what was done about it.
type schemaConv struct {
	note func(format string, args ...any)
	// graph holds the schemas of the whole spec converted so far; when
	// nil, jsonSchema makes one for this operation.
	graph *schemaGraph
	// spelled counts the schemas this operation's parameters spelled out
	// so far, against maxSchemaNodes.
	spelled int
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

// jsonSchema is the JSON Schema (2020-12) of a value of schema s, which
// lies depth levels deep in a parameter: self-contained (no $ref, which
// clients would have to resolve), each schema spelled out where it is
// used. The schemas are converted once each (schemaGraph.node); spelling
// them out stops, with a loose schema in their place (see loose), where a
// schema recurs inside itself, below maxDepth levels, and past
// maxSchemaNodes schemas for the operation.
func (c *schemaConv) jsonSchema(s *openapi3.Schema, what string, depth int) (map[string]any, error) {
	if s == nil {
		return map[string]any{}, nil
	}
	if c.graph == nil {
		c.graph = &schemaGraph{}
	}
	sp := spelling{root: what}
	return c.spell(&sp, &openapi3.SchemaRef{Value: s}, what, depth)
}

// spelling is the state of spelling out one parameter's schema.
type spelling struct {
	// root is the parameter, as notes name it.
	root string
	// within are the schemas being spelled out, outermost first: one of
	// them met again inside itself recurs.
	within []*openapi3.Schema
}

// spell spells out the schema ref points to, at path what, depth levels
// deep.
func (c *schemaConv) spell(sp *spelling, ref *openapi3.SchemaRef, what string, depth int) (map[string]any, error) {
	s := ref.Value
	n := c.graph.node(s)
	switch {
	case ref.Ref != "" && slices.Contains(sp.within, s):
		// Only a $ref makes a schema recur (one written inside another
		// is inside it once), and it names it.
		return c.loose(sp, n, recursion, refName(ref.Ref)), nil
	case !n.holdsSchemas():
		// Nothing below it to bound.
	case depth > maxDepth:
		return c.loose(sp, n, tooDeep, ""), nil
	case c.spelled >= maxSchemaNodes:
		return c.loose(sp, n, tooLarge, ""), nil
	}
	for _, note := range n.notes {
		c.note("%s%s", what, note)
	}
	if n.err != nil {
		return nil, n.err
	}
	c.spelled++
	out := maps.Clone(n.keywords)
	if enum, ok := out["enum"].([]any); ok {
		out["enum"] = slices.Clone(enum) // a catalog.Param keeps it as its own
	}
	sp.within = append(sp.within, s)
	defer func() { sp.within = sp.within[:len(sp.within)-1] }()
	var alts []any
	for _, alt := range n.alternatives {
		a, err := c.spell(sp, alt, what, depth+1)
		if err != nil {
			return nil, err
		}
		alts = append(alts, a)
	}
	if len(alts) > 0 {
		out["anyOf"] = alts
	}
	if n.items != nil {
		items, err := c.spell(sp, n.items, what+" (each item)", depth+1)
		if err != nil {
			return nil, err
		}
		out["items"] = items
	}
	if len(n.properties) > 0 {
		props := make(map[string]any, len(n.properties))
		for _, p := range n.properties {
			ps, err := c.spell(sp, p.schema, what+"."+p.name, depth+1)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p.name, err)
			}
			props[p.name] = ps
		}
		out["properties"] = props
	}
	if n.values != nil {
		vs, err := c.spell(sp, n.values, what+" (each value)", depth+1)
		if err != nil {
			return nil, err
		}
		out["additionalProperties"] = vs
	}
	return out, nil
}

// cut is why a schema is not spelled out (see loose).
type cut int

const (
	recursion cut = iota // it is met again inside itself
	tooDeep              // it lies deeper than maxDepth
	tooLarge             // the operation spelled out maxSchemaNodes already
)

// loose is what stands for a schema (converted as n) where it is not
// spelled out: its type alone, so that any value of it is accepted, and a
// description saying that the structure goes on, for the model that fills
// it in. name names a schema that recurs. A recursion, or the operation's
// budget spent, is noted once for the operation; a parameter nested too
// deep, once for it.
func (c *schemaConv) loose(sp *spelling, n *schemaNode, why cut, name string) map[string]any {
	out := map[string]any{}
	kind := "value"
	if n.typ != "" {
		out["type"] = n.typ
		kind = n.typ
	}
	switch why {
	case recursion:
		out["description"] = fmt.Sprintf("A %s again: the same structure as the %s above.", name, name)
		c.note("%s contains itself: where it recurs, any %s is accepted (its structure is not spelled out again)", name, kind)
	case tooDeep:
		out["description"] = fmt.Sprintf("More of the structure, not spelled out: it lies over %d levels deep.", maxDepth)
		c.note("%s: nested deeper than %d levels: below that, the structure is not spelled out (any value of the type is accepted)", sp.root, maxDepth)
	case tooLarge:
		out["description"] = "More of the structure, not spelled out: the tool's schema is large enough without it."
		c.note("the parameters would spell out more than %d schemas: past that, their structure is not spelled out (any value of the type is accepted)", maxSchemaNodes)
	}
	return out
}

// refName is the name a $ref gives: its last part (Node, of
// #/components/schemas/Node).
func refName(ref string) string {
	if i := strings.LastIndexByte(ref, '/'); i >= 0 && i < len(ref)-1 {
		ref = ref[i+1:]
	}
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(ref)
}

// schemaGraph holds the schemas of a spec, each converted once, by
// identity: the spec's loader gives every $ref to a schema the same
// *openapi3.Schema, so a schema used by a thousand operations, or inside
// itself, is still converted once. Safe for concurrent use (operations
// are converted on every core).
type schemaGraph struct {
	// shared are the schemas the spec's components hold, at any depth:
	// only those are kept. One written in an operation is converted where
	// it is met and goes with it, rather than keep its part of the spec's
	// model alive (10,000 operations: some 15 MB). Nil keeps every schema.
	shared map[*openapi3.Schema]bool
	mu     sync.Mutex
	nodes  map[*openapi3.Schema]*schemaNode
	// converted counts the schemas kept: at most one for each schema the
	// spec writes, however often each is used.
	converted int
}

// newSchemaGraph is the graph of the schemas of components: theirs, those
// of their parameters and request bodies, and those these hold.
func newSchemaGraph(components *openapi3.Components) *schemaGraph {
	g := &schemaGraph{shared: map[*openapi3.Schema]bool{}}
	var walk func(r *openapi3.SchemaRef)
	walk = func(r *openapi3.SchemaRef) {
		if r == nil || r.Value == nil || g.shared[r.Value] {
			return
		}
		s := r.Value
		g.shared[s] = true
		for _, p := range s.Properties {
			walk(p)
		}
		walk(s.Items)
		walk(s.AdditionalProperties.Schema)
		for _, l := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
			for _, r := range l {
				walk(r)
			}
		}
	}
	if components == nil {
		return g
	}
	for _, r := range components.Schemas {
		walk(r)
	}
	for _, p := range components.Parameters {
		if p != nil && p.Value != nil {
			walk(p.Value.Schema)
		}
	}
	for _, b := range components.RequestBodies {
		if b != nil && b.Value != nil {
			for _, m := range b.Value.Content {
				if m != nil {
					walk(m.Schema)
				}
			}
		}
	}
	return g
}

// schemaNode is one schema converted on its own: its keywords, and the
// schemas it holds, which are converted when they are reached.
type schemaNode struct {
	// keywords are its JSON Schema keywords but those holding schemas.
	keywords map[string]any
	// typ is its JSON type, "" when any value goes.
	typ string
	// notes are the mistakes met in it, each without the path it is met
	// at (the notes read "%s: …" with "" for the path): spell prefixes
	// the path at each place it is used.
	notes []string
	// err is why a value of it cannot be sent (errBinary).
	err error
	// The schemas it holds, nil ones left out.
	alternatives []*openapi3.SchemaRef // oneOf, then anyOf: one of them
	items        *openapi3.SchemaRef
	properties   []property          // in propertyOrder, readOnly ones left out
	values       *openapi3.SchemaRef // additionalProperties
}

// holdsSchemas reports whether spelling n out goes deeper.
func (n *schemaNode) holdsSchemas() bool {
	return len(n.alternatives) > 0 || n.items != nil || len(n.properties) > 0 || n.values != nil
}

// property is one property of an object schema.
type property struct {
	name   string
	schema *openapi3.SchemaRef
}

// node is s converted, from the graph or now: types read as typeOf does,
// enums and defaults that fit, bounds and lengths, a pattern Go can
// compile, items, properties (a request leaves out readOnly ones) and
// additionalProperties; OpenAPI's own keywords (nullable, example, xml,
// discriminator) are dropped.
func (g *schemaGraph) node(s *openapi3.Schema) *schemaNode {
	if g.shared != nil && !g.shared[s] {
		return convertNode(s)
	}
	g.mu.Lock()
	n, ok := g.nodes[s]
	g.mu.Unlock()
	if ok {
		return n
	}
	// Converted outside the lock; of two goroutines converting one schema
	// at once, the first to finish is kept (both are the same).
	n = convertNode(s)
	g.mu.Lock()
	defer g.mu.Unlock()
	if first, ok := g.nodes[s]; ok {
		return first
	}
	if g.nodes == nil {
		g.nodes = map[*openapi3.Schema]*schemaNode{}
	}
	g.nodes[s] = n
	g.converted++
	return n
}

// convertNode converts s on its own, as node describes.
func convertNode(s *openapi3.Schema) *schemaNode {
	n := &schemaNode{keywords: map[string]any{}}
	c := &schemaConv{note: func(format string, args ...any) { n.notes = append(n.notes, fmt.Sprintf(format, args...)) }}
	const what = ""
	out := n.keywords
	s = merged(s)
	typ, err := c.typeOf(s, what)
	if err != nil {
		n.err = err
		return n
	}
	n.typ = typ
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
	for _, alt := range append(slices.Clone(s.OneOf), s.AnyOf...) {
		if alt != nil && alt.Value != nil {
			n.alternatives = append(n.alternatives, alt)
		}
	}
	if typ == "array" && s.Items != nil && s.Items.Value != nil {
		n.items = s.Items
	}
	if typ == "object" {
		var required []string
		for _, name := range propertyOrder(s) {
			p := s.Properties[name]
			if p == nil || p.Value == nil || p.Value.ReadOnly {
				continue
			}
			n.properties = append(n.properties, property{name, p})
			if slices.Contains(s.Required, name) {
				required = append(required, name)
			}
		}
		if len(required) > 0 {
			out["required"] = required
		}
		switch ap := s.AdditionalProperties; {
		case ap.Has != nil:
			out["additionalProperties"] = *ap.Has
		case ap.Schema != nil && ap.Schema.Value != nil:
			n.values = ap.Schema
		}
	}
	return n
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
