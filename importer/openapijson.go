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
// model as its own decoding does, but for the paths: kin decodes the paths
// object into generic values, encodes each path item again and decodes
// that, on one core. Here each path item is decoded once, straight from
// its bytes, on every core: for a spec of 10,000 operations that was the
// larger part of reading it. References are left for the loader.
func decodeOpenAPI3JSON(data []byte) (*openapi3.T, error) {
	doc := &openapi3.T{}
	var top map[string]json.RawMessage
	var items map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil || json.Unmarshal(top["paths"], &items) != nil || items == nil {
		// Not an object, or paths that are not one (or none): kin's own
		// decoding says what it makes of them.
		return doc, json.Unmarshal(data, doc)
	}
	delete(top, "paths")
	rest, err := json.Marshal(top)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(rest, doc); err != nil {
		return nil, err
	}
	keys := slices.Sorted(maps.Keys(items))
	decoded := make([]*openapi3.PathItem, len(keys))
	errs := make([]error, len(keys))
	parallel.Each(len(keys), 64, func(i int) {
		if strings.HasPrefix(keys[i], "x-") {
			return
		}
		decoded[i] = &openapi3.PathItem{}
		errs[i] = decoded[i].UnmarshalJSON(items[keys[i]])
	})
	doc.Paths = openapi3.NewPathsWithCapacity(len(keys))
	for i, k := range keys {
		if strings.HasPrefix(k, "x-") {
			// An extension, kept as kin keeps it.
			var v any
			if err := json.Unmarshal(items[k], &v); err != nil {
				return nil, err
			}
			if doc.Paths.Extensions == nil {
				doc.Paths.Extensions = map[string]any{}
			}
			doc.Paths.Extensions[k] = v
			continue
		}
		if errs[i] != nil {
			return nil, errs[i]
		}
		doc.Paths.Set(k, decoded[i])
	}
	return doc, nil
}
