package gateway

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// paramChanges says, a line each, how a tool's parameters changed between
// the input schemas was and now: a parameter added or removed, its type,
// whether it is required, its description, its other rules. Schemas that
// are not an object of named parameters are shown whole, as was and now.
func paramChanges(was, now json.RawMessage) []string {
	a, aok := paramsOf(was)
	b, bok := paramsOf(now)
	if !aok || !bok {
		return wasNow("input schema", cut(compact(was)), cut(compact(now)))
	}
	var lines []string
	for _, name := range slices.Sorted(maps.Keys(union(a.props, b.props))) {
		pa, ina := a.props[name]
		pb, inb := b.props[name]
		what := "parameter " + name
		switch {
		case !ina:
			lines = append(lines, fmt.Sprintf("  new %s: %s%s", what, typeWords(pb), requiredWords(b.required[name])))
			continue
		case !inb:
			lines = append(lines, fmt.Sprintf("  %s: removed", what))
			continue
		}
		if ta, tb := typeWords(pa), typeWords(pb); ta != tb {
			lines = append(lines, fmt.Sprintf("  %s: now %s (was %s)", what, tb, ta))
		}
		switch ra, rb := a.required[name], b.required[name]; {
		case rb && !ra:
			lines = append(lines, fmt.Sprintf("  %s: now required", what))
		case ra && !rb:
			lines = append(lines, fmt.Sprintf("  %s: no longer required", what))
		}
		da, _ := pa["description"].(string)
		db, _ := pb["description"].(string)
		if da != db {
			lines = append(lines, wasNow(what+"'s description", cut(da), cut(db))...)
		}
		if ra, rb := without(pa, "type", "description"), without(pb, "type", "description"); !reflect.DeepEqual(ra, rb) {
			lines = append(lines, wereAreNow(what+"'s other rules", ra, rb)...)
		}
	}
	if ra, rb := without(a.schema, "type", "properties", "required"), without(b.schema, "type", "properties", "required"); !reflect.DeepEqual(ra, rb) {
		lines = append(lines, wereAreNow("the other rules of its parameters", ra, rb)...)
	}
	return lines
}

// params is an input schema read as an object of named parameters.
type params struct {
	schema   map[string]any
	props    map[string]map[string]any
	required map[string]bool
}

// paramsOf reads raw as an object schema (of type object, or with
// properties) whose properties are schemas; ok is false for any other.
func paramsOf(raw json.RawMessage) (p params, ok bool) {
	if json.Unmarshal(raw, &p.schema) != nil || p.schema == nil {
		return p, false
	}
	props, _ := p.schema["properties"].(map[string]any)
	typ, typed := p.schema["type"]
	switch {
	case props == nil && p.schema["properties"] != nil,
		typed && typ != "object",
		!typed && props == nil:
		return p, false
	}
	p.props = make(map[string]map[string]any, len(props))
	for name, s := range props {
		m, ok := s.(map[string]any)
		if !ok {
			return p, false
		}
		p.props[name] = m
	}
	p.required = map[string]bool{}
	req, _ := p.schema["required"].([]any)
	for _, r := range req {
		if s, ok := r.(string); ok {
			p.required[s] = true
		}
	}
	return p, true
}

// typeWords says what kind of value a parameter takes, for people.
func typeWords(s map[string]any) string {
	var types []string
	switch t := s["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, v := range t {
			if s, ok := v.(string); ok {
				types = append(types, s)
			}
		}
	}
	if len(types) == 0 {
		return "any value"
	}
	var out []string
	for _, t := range types {
		out = append(out, map[string]string{"string": "text", "integer": "a whole number", "number": "a number",
			"boolean": "yes or no", "array": "a list", "object": "a group of values", "null": "nothing"}[t])
	}
	return strings.Join(slices.DeleteFunc(out, func(s string) bool { return s == "" }), " or ")
}

func requiredWords(required bool) string {
	if required {
		return ", required"
	}
	return ", optional"
}

// wasNow is the two lines of a part that changed: as approved, and now.
func wasNow(what, was, now string) []string {
	return []string{fmt.Sprintf("  %s was: %s", what, was), fmt.Sprintf("  %s now: %s", what, now)}
}

// without is m less keys; nil when nothing is left.
func without(m map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if !slices.Contains(keys, k) {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// wereAreNow is the two lines of rules that changed (JSON Schema
// keywords), as approved and now; nil is none.
func wereAreNow(what string, was, now map[string]any) []string {
	show := func(v map[string]any) string {
		if v == nil {
			return "(none)"
		}
		b, _ := json.Marshal(v)
		return cut(string(b))
	}
	return []string{fmt.Sprintf("  %s were: %s", what, show(was)), fmt.Sprintf("  %s are now: %s", what, show(now))}
}

func union[V any](a, b map[string]V) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}
