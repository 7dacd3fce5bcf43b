package importer

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// kin's PathItem and Operation decode each object twice: once into their
// type, and once more whole into generic values, to find its extensions;
// a path item is so decoded again at every level below it, and each
// response's schemas too, which the importer never reads. For a spec of
// 10,000 operations that was most of reading it (make bench). Here a path
// item and its operations are decoded once, their extensions found among
// their keys, and each operation's responses kept as far as the importer
// reads them (see decodeResponses). Every other member is decoded by kin.

// pathItemBis and operationBis are kin's types without their decoding
// methods: decoded as plain structs, each field by kin's own decoding.
type (
	pathItemBis  openapi3.PathItem
	operationBis openapi3.Operation
)

// pathItemKeys and operationKeys are the members kin reads as fields; any
// other is an extension, as kin keeps it.
var (
	pathItemKeys = []string{"$ref", "summary", "description", "connect", "delete", "get", "head", "options",
		"patch", "post", "put", "trace", "query", "additionalOperations", "servers", "parameters"}
	operationKeys = []string{"tags", "summary", "description", "operationId", "parameters", "requestBody",
		"responses", "callbacks", "deprecated", "security", "servers", "externalDocs"}
)

// operationJSON decodes one operation with decodeOperation.
type operationJSON struct{ op *openapi3.Operation }

// UnmarshalJSON implements json.Unmarshaler.
func (o *operationJSON) UnmarshalJSON(data []byte) error {
	op, err := decodeOperation(data)
	o.op = op
	return err
}

// decodePathItem decodes a path item as kin does, but for its operations'
// responses (see decodeResponses).
func decodePathItem(data []byte) (*openapi3.PathItem, error) {
	// The operations, written here, hide the embedded item's own.
	var x struct {
		*pathItemBis
		Connect              *operationJSON            `json:"connect"`
		Delete               *operationJSON            `json:"delete"`
		Get                  *operationJSON            `json:"get"`
		Head                 *operationJSON            `json:"head"`
		Options              *operationJSON            `json:"options"`
		Patch                *operationJSON            `json:"patch"`
		Post                 *operationJSON            `json:"post"`
		Put                  *operationJSON            `json:"put"`
		Trace                *operationJSON            `json:"trace"`
		Query                *operationJSON            `json:"query"`
		AdditionalOperations map[string]*operationJSON `json:"additionalOperations"`
	}
	x.pathItemBis = &pathItemBis{}
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	item := (*openapi3.PathItem)(x.pathItemBis)
	for _, f := range []struct {
		to   **openapi3.Operation
		from *operationJSON
	}{
		{&item.Connect, x.Connect}, {&item.Delete, x.Delete}, {&item.Get, x.Get}, {&item.Head, x.Head},
		{&item.Options, x.Options}, {&item.Patch, x.Patch}, {&item.Post, x.Post}, {&item.Put, x.Put},
		{&item.Trace, x.Trace}, {&item.Query, x.Query},
	} {
		if f.from != nil {
			*f.to = f.from.op
		}
	}
	if x.AdditionalOperations != nil {
		item.AdditionalOperations = make(map[string]*openapi3.Operation, len(x.AdditionalOperations))
		for k, o := range x.AdditionalOperations {
			item.AdditionalOperations[k] = nil
			if o != nil {
				item.AdditionalOperations[k] = o.op
			}
		}
	}
	var err error
	item.Extensions, err = extensionsOf(data, pathItemKeys)
	return item, err
}

// decodeOperation decodes an operation as kin does, but for its responses
// (see decodeResponses).
func decodeOperation(data []byte) (*openapi3.Operation, error) {
	var x struct {
		*operationBis
		Responses json.RawMessage `json:"responses"`
	}
	x.operationBis = &operationBis{}
	if err := json.Unmarshal(data, &x); err != nil {
		return nil, err
	}
	if bytes.Equal(x.Responses, []byte("null")) {
		// kin marks responses written as null, in a field of its own.
		op := &openapi3.Operation{}
		return op, op.UnmarshalJSON(data)
	}
	op := (*openapi3.Operation)(x.operationBis)
	if x.Responses != nil {
		var err error
		if op.Responses, err = decodeResponses(x.Responses); err != nil {
			return nil, err
		}
	}
	var err error
	op.Extensions, err = extensionsOf(data, operationKeys)
	return op, err
}

// decodeResponses decodes an operation's responses as far as the importer
// reads them (acceptsJSON): each status's response, its description and
// the media types of its content. Their schemas, examples, headers, links
// and extensions are left out; a response by $ref is kin's, and the
// loader resolves it.
func decodeResponses(data []byte) (*openapi3.Responses, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	out := openapi3.NewResponsesWithCapacity(len(raw))
	out.Extensions = map[string]any{}
	for code, r := range raw {
		if strings.HasPrefix(code, "x-") {
			var v any
			if err := json.Unmarshal(r, &v); err != nil {
				return nil, err
			}
			out.Extensions[code] = v
			continue
		}
		var resp struct {
			Ref         string                     `json:"$ref"`
			Description *string                    `json:"description"`
			Content     map[string]json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(r, &resp); err != nil {
			return nil, err
		}
		ref := &openapi3.ResponseRef{}
		if resp.Ref != "" {
			if err := ref.UnmarshalJSON(r); err != nil {
				return nil, err
			}
			out.Set(code, ref)
			continue
		}
		ref.Value = &openapi3.Response{Description: resp.Description}
		if resp.Content != nil {
			ref.Value.Content = make(openapi3.Content, len(resp.Content))
			for mt, m := range resp.Content {
				ref.Value.Content[mt] = nil
				if !bytes.Equal(m, []byte("null")) {
					ref.Value.Content[mt] = openapi3.NewMediaType()
				}
			}
		}
		out.Set(code, ref)
	}
	return out, nil
}

// extensionsOf is what kin keeps as the extensions of the object data: its
// members not among known, decoded as generic values; nil for none.
func extensionsOf(data []byte, known []string) (map[string]any, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	var ext map[string]any
	for k, v := range raw {
		if slices.Contains(known, k) {
			continue
		}
		var val any
		if err := json.Unmarshal(v, &val); err != nil {
			return nil, err
		}
		if ext == nil {
			ext = map[string]any{}
		}
		ext[k] = val
	}
	return ext, nil
}
