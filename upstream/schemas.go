package upstream

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// compactSchemas is a sending middleware of the client of a server: the
// tools of each tools/list page it reads keep their schemas as JSON text
// rather than as the maps go-sdk decodes them into. go-sdk's client keeps
// every page it read for the session's life (on 2026-07-28: a call's
// Mcp-Param-* headers are built from the tool's last inputSchema,
// SEP-2243); as maps, the schemas of a server of 10,000 tools held about
// 20 MB of mcptray's heap there, as text a few. The change is made before
// go-sdk caches the page or hands it to anyone, so no one sees the maps.
// The text is the maps' own encoding (keys sorted, numbers as decoded):
// a tool hashes as before (gateway.DefinitionHash).
func compactSchemas(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || method != "tools/list" {
			return res, err
		}
		if page, ok := res.(*mcp.ListToolsResult); ok {
			for _, t := range page.Tools {
				if err := compactTool(t); err != nil {
					return nil, err
				}
			}
		}
		return res, nil
	}
}

// compactTool turns t's schemas into JSON text.
func compactTool(t *mcp.Tool) error {
	if t == nil {
		return nil
	}
	var err error
	if t.InputSchema, err = schemaText(t.InputSchema); err != nil {
		return fmt.Errorf("tool %q: input schema: %w", t.Name, err)
	}
	if t.OutputSchema, err = schemaText(t.OutputSchema); err != nil {
		return fmt.Errorf("tool %q: output schema: %w", t.Name, err)
	}
	return nil
}

// schemaText is a decoded schema as JSON text; nil (none) and text stay
// as they are.
func schemaText(s any) (any, error) {
	switch s.(type) {
	case nil, json.RawMessage:
		return s, nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(b), nil
}
