package mcpcore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	textmsg "golang.org/x/text/message"
)

// resolveSchema checks a user's JSON Schema twice: against the JSON Schema
// meta-schema (2020-12 unless it declares another dialect), which catches
// mistakes such as an unknown type, and by resolving it with the library
// go-sdk validates arguments with, which panics on what it rejects.
func resolveSchema(raw json.RawMessage) (*jsonschema.Resolved, error) {
	if err := checkDepth(raw); err != nil {
		return nil, err
	}
	doc, err := santhosh.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	c := santhosh.NewCompiler()
	c.DefaultDraft(santhosh.Draft2020)
	// No loader for remote schemes: a network $ref must never be fetched.
	c.UseLoader(santhosh.SchemeURLLoader{})
	const loc = "mem:///schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("invalid JSON Schema: %w", err)
	}
	if _, err := c.Compile(loc); err != nil {
		return nil, fmt.Errorf("invalid JSON Schema: %s", schemaError(err))
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("not a JSON Schema: %w", err)
	}
	r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, fmt.Errorf("invalid JSON Schema: %w", err)
	}
	return r, nil
}

// maxSchemaDepth bounds how deeply a hand-written schema nests (objects and
// arrays). Real schemas nest a few levels; the libraries that check a
// schema take superlinear time on deep ones, and the database refuses JSON
// nested past 1000 levels with an opaque error.
const maxSchemaDepth = 64

// checkDepth refuses JSON nested more than maxSchemaDepth levels, saying
// where the limit was passed.
func checkDepth(raw []byte) error {
	depth, inString, escaped := 0, false, false
	for i, b := range raw {
		switch {
		case escaped:
			escaped = false
		case inString:
			switch b {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			if depth++; depth > maxSchemaDepth {
				return fmt.Errorf("the schema nests more than %d levels deep (at byte %d); flatten it, e.g. with $defs and $ref", maxSchemaDepth, i)
			}
		case b == '}' || b == ']':
			depth--
		}
	}
	return nil
}

// schemaError flattens a meta-schema failure into one readable line.
func schemaError(err error) string {
	var sve *santhosh.SchemaValidationError
	if errors.As(err, &sve) {
		err = sve.Err
	}
	var ve *santhosh.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var leaves []string
	seen := map[string]bool{}
	p := textmsg.NewPrinter(language.English)
	var walk func(e *santhosh.ValidationError)
	walk = func(e *santhosh.ValidationError) {
		if len(e.Causes) == 0 {
			// Of the alternatives an anyOf reports at one place, the
			// first is the useful one.
			at := "/" + strings.Join(e.InstanceLocation, "/")
			if !seen[at] {
				seen[at] = true
				leaves = append(leaves, fmt.Sprintf("at %s: %s", at, e.ErrorKind.LocalizedString(p)))
			}
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(leaves, "; ")
}

// checkOutputSchema is what resolveSchema finds wrong in a tool's output
// schema.
func checkOutputSchema(raw json.RawMessage) []string {
	if _, err := resolveSchema(raw); err != nil {
		return []string{err.Error()}
	}
	return nil
}

// checkInputSchema applies MCP's rules for a tool input schema: an object
// root, a resolvable schema, and valid x-mcp-header annotations.
func checkInputSchema(raw json.RawMessage) []string {
	if err := checkDepth(raw); err != nil {
		return []string{err.Error()}
	}
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		return []string{fmt.Sprintf("not a JSON object: %v", err)}
	}
	var msgs []string
	if root["type"] != "object" {
		msgs = append(msgs, `the root must have "type": "object"`)
	}
	if _, err := resolveSchema(raw); err != nil {
		msgs = append(msgs, err.Error())
	}
	return append(msgs, checkHeaderAnnotations(root)...)
}

// checkHeaderAnnotations enforces SEP-2243's x-mcp-header rules: only on
// string/integer/boolean properties reachable through "properties" alone,
// each value an RFC 9110 token, unique regardless of case. Clients drop
// tools that break them, and go-sdk panics on them.
func checkHeaderAnnotations(root map[string]any) []string {
	var msgs []string
	seen := map[string]string{}
	// walk visits every subschema; only one reached from the root through
	// "properties" keys alone (isProp all the way) may carry a header.
	var walk func(node map[string]any, path string, isProp bool)
	walk = func(node map[string]any, path string, isProp bool) {
		msgs = append(msgs, checkHeaderProperty(node, path, isProp, seen)...)
		for key, v := range node {
			switch x := v.(type) {
			case map[string]any:
				if key == "properties" && (isProp || path == "") {
					for name, p := range x {
						if ps, ok := p.(map[string]any); ok {
							walk(ps, joinPath(path, name), true)
						}
					}
					continue
				}
				walk(x, joinPath(path, key), false)
			case []any:
				for _, e := range x {
					if m, ok := e.(map[string]any); ok {
						walk(m, joinPath(path, key), false)
					}
				}
			}
		}
	}
	walk(root, "", false)
	sort.Strings(msgs)
	return msgs
}

func checkHeaderProperty(p map[string]any, path string, reachable bool, seen map[string]string) []string {
	h, has := p["x-mcp-header"]
	if !has {
		return nil
	}
	name, ok := h.(string)
	switch {
	case !ok || name == "":
		return []string{fmt.Sprintf("property %s: x-mcp-header must be a non-empty string", path)}
	case !reachable:
		return []string{fmt.Sprintf("%s: x-mcp-header is only allowed on a property reached from the root through \"properties\" alone", orRoot(path))}
	case !isToken(name):
		return []string{fmt.Sprintf("property %s: x-mcp-header %q is not a valid HTTP header name token", path, name)}
	}
	if typ, _ := p["type"].(string); typ != "string" && typ != "integer" && typ != "boolean" {
		return []string{fmt.Sprintf("property %s: x-mcp-header needs type string, integer or boolean (got %v)", path, p["type"])}
	}
	low := strings.ToLower(name)
	if other, dup := seen[low]; dup {
		return []string{fmt.Sprintf("property %s: x-mcp-header %q is already used by %s", path, name, other)}
	}
	seen[low] = path
	return nil
}

func orRoot(path string) string {
	if path == "" {
		return "the schema root"
	}
	return "property " + path
}

func joinPath(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// isToken reports whether s is an RFC 9110 token (1*tchar).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return false
		}
	}
	return true
}

// checkValue reports whether v (decoded JSON) fits a parameter type.
func checkValue(typ string, v any) error {
	ok := false
	switch typ {
	case "string":
		_, ok = v.(string)
	case "number":
		_, ok = v.(float64)
	case "integer":
		f, isNum := v.(float64)
		ok = isNum && f == math.Trunc(f) && math.Abs(f) <= 1<<53-1
	case "boolean":
		_, ok = v.(bool)
	case "array":
		_, ok = v.([]any)
	case "object":
		_, ok = v.(map[string]any)
	}
	if !ok {
		return fmt.Errorf("%v is not a valid %s", v, typ)
	}
	return nil
}
