package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// paramHeader is a tool argument mirrored into an Mcp-Param-{Header} header
// (SEP-2243): the tool's input schema marks it with "x-mcp-header".
type paramHeader struct {
	arg, header string
}

// learnParamHeaders records the x-mcp-header arguments of the tools in a
// tools/list result the shim relays, so later calls carry their headers.
func (b *bridge) learnParamHeaders(msg []byte) {
	if !bytes.Contains(msg, []byte(`"tools"`)) {
		return
	}
	var r struct {
		Result struct {
			NextCursor string `json:"nextCursor"`
			Tools      []struct {
				Name        string `json:"name"`
				InputSchema struct {
					Properties map[string]struct {
						Header string `json:"x-mcp-header"`
					} `json:"properties"`
				} `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if json.Unmarshal(msg, &r) != nil || r.Result.Tools == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.toolsListed = true
	if b.params == nil {
		b.params = map[string][]paramHeader{}
	}
	for _, t := range r.Result.Tools {
		var hs []paramHeader
		for arg, p := range t.InputSchema.Properties {
			if p.Header != "" {
				hs = append(hs, paramHeader{arg: arg, header: p.Header})
			}
		}
		if hs != nil {
			b.params[t.Name] = hs
		} else {
			delete(b.params, t.Name)
		}
	}
}

// setParamHeaders adds the Mcp-Param-* headers of a tools/call.
func (b *bridge) setParamHeaders(h map[string][]string, tool string, args json.RawMessage) {
	b.mu.Lock()
	hs := b.params[tool]
	b.mu.Unlock()
	if len(hs) == 0 {
		return
	}
	var a map[string]json.RawMessage
	if json.Unmarshal(args, &a) != nil {
		return
	}
	for _, p := range hs {
		raw, ok := a[p.arg]
		if !ok || string(raw) == "null" {
			continue
		}
		var v string
		switch raw[0] {
		case '"':
			var s string
			if json.Unmarshal(raw, &s) != nil {
				continue
			}
			v = headerValue(s)
		case '{', '[':
			continue // only scalars are mirrored
		default:
			v = strings.TrimSpace(string(raw)) // numbers and booleans as written
		}
		h["Mcp-Param-"+p.header] = []string{v}
	}
}

// learnTools lists the tools itself (all pages) when a client calls a tool
// without having listed them through this shim, so the call can carry its
// Mcp-Param-* headers. It uses the call's own _meta.
func (b *bridge) learnTools(ctx context.Context, call message) {
	var p struct {
		Meta json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(call.Params, &p) != nil || p.Meta == nil {
		return
	}
	cursor := ""
	for page := 0; page < 50; page++ {
		params := map[string]any{"_meta": p.Meta}
		if cursor != "" {
			params["cursor"] = cursor
		}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": fmt.Sprintf("mcptray-stdio-tools-%d", page), "method": "tools/list", "params": params})
		m := message{Method: "tools/list", Params: call.Params}
		next := ""
		if _, err := b.post(ctx, body, b.modernHeaders(m), func(msg []byte) {
			b.learnParamHeaders(msg)
			var r struct {
				Result struct {
					NextCursor string `json:"nextCursor"`
				} `json:"result"`
			}
			if json.Unmarshal(msg, &r) == nil {
				next = r.Result.NextCursor
			}
		}, "", true); err != nil || next == "" {
			return
		}
		cursor = next
	}
}
