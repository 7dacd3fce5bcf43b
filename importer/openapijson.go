package importer

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/mcptray/mcptray/internal/parallel"
)

// decodeOpenAPI3JSON decodes a JSON OpenAPI 3 document into kin-openapi's
// model as its own decoding does, but for the paths and the component
// schemas: kin decodes each object twice (into its type, and again into
// generic values for its extensions) at every level, so that a path item
// is decoded over and over, and all on one core. Here each path item and
// each component schema is decoded straight from its bytes, on every
// core: for a spec of 10,000 operations that was the larger part of
// reading it. top are data's members (nil when it is not an object),
// read once by the caller; they are taken apart here. References are left
// for the loader.
func decodeOpenAPI3JSON(data []byte, top map[string]json.RawMessage) (*openapi3.T, error) {
	doc := &openapi3.T{}
	var items map[string]json.RawMessage
	if top == nil || json.Unmarshal(top["paths"], &items) != nil || items == nil {
		// Not an object, or paths that are not one (or none): kin's own
		// decoding says what it makes of them.
		return doc, json.Unmarshal(data, doc)
	}
	delete(top, "paths")
	schemas, err := takeSchemas(top)
	if err != nil {
		return nil, err
	}
	rest, err := json.Marshal(top)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(rest, doc); err != nil {
		return nil, err
	}
	if schemas != nil {
		keys, decoded, err := decodeEach(schemas, func(string) bool { return true }, func(b []byte) (*openapi3.SchemaRef, error) {
			s := &openapi3.SchemaRef{}
			return s, s.UnmarshalJSON(b)
		})
		if err != nil {
			return nil, err
		}
		doc.Components.Schemas = make(openapi3.Schemas, len(keys))
		for i, k := range keys {
			doc.Components.Schemas[k] = decoded[i]
		}
	}
	keys, decoded, err := decodeEach(items, func(k string) bool { return !strings.HasPrefix(k, "x-") }, decodePathItem)
	if err != nil {
		return nil, err
	}
	doc.Paths = openapi3.NewPathsWithCapacity(len(keys))
	for i, k := range keys {
		if decoded[i] != nil {
			doc.Paths.Set(k, decoded[i])
			continue
		}
		// An extension, kept as kin keeps it.
		var v any
		if err := json.Unmarshal(items[k], &v); err != nil {
			return nil, err
		}
		if doc.Paths.Extensions == nil {
			doc.Paths.Extensions = map[string]any{}
		}
		doc.Paths.Extensions[k] = v
	}
	return doc, nil
}

// takeSchemas takes the component schemas out of top, the document's
// members, to be decoded on their own; nil when it has none to take (no
// components object, or schemas that are not an object): kin's own
// decoding then says what it makes of them.
func takeSchemas(top map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	var components, schemas map[string]json.RawMessage
	if json.Unmarshal(top["components"], &components) != nil || json.Unmarshal(components["schemas"], &schemas) != nil || schemas == nil {
		return nil, nil
	}
	for k := range components {
		if k != "schemas" && strings.EqualFold(k, "schemas") {
			// Another spelling, which kin's decoding would read as well.
			return nil, nil
		}
	}
	delete(components, "schemas")
	b, err := json.Marshal(components)
	if err != nil {
		return nil, err
	}
	top["components"] = b
	return schemas, nil
}

// decodeEach decodes, on every core, the values of raw whose key keep
// says, and returns raw's keys in order with them: nil for the others.
// The first error in that order is returned.
func decodeEach[T any](raw map[string]json.RawMessage, keep func(key string) bool, decode func([]byte) (*T, error)) ([]string, []*T, error) {
	keys := slices.Sorted(maps.Keys(raw))
	decoded := make([]*T, len(keys))
	errs := make([]error, len(keys))
	parallel.Each(len(keys), 64, func(i int) {
		if keep(keys[i]) {
			decoded[i], errs[i] = decode(raw[keys[i]])
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	return keys, decoded, nil
}
