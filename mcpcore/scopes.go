package mcpcore

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mcptray/mcptray/record"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// buildDefault makes the default scope's server (every tool; used without
// auth and by tokens not limited to some tools) as the engine starts, before
// anyone can connect, so the first request after listening, typically
// tools/list, never waits for go-sdk to register the whole catalog. Built in
// the background instead, that request waited for the build anyway (it
// needs the server, and the build holds e.mu), so the first answer came no
// sooner; now the listener is up only once it can answer. For a catalog of
// thousands of tools this is the slowest part of a start (go-sdk validates
// each tool's schema as it is registered).
func (e *Engine) buildDefault() {
	e.serverFor(record.Principal{})
}

// schemaPool shares tools' input schemas by content across tools and
// scopes: one parsed schema per distinct schema text, and one
// mcp.SchemaCache, given to every scope's server, in which go-sdk keeps the
// resolved form of each parsed schema it has seen (by pointer). Without it
// every tool of every scope parsed and resolved its own copy — seconds and
// hundreds of MB for a catalog of thousands of tools, paid again by each
// tool-limited token's scope. What clients see is the parsed schema encoded
// again: the same keywords and values, keys in go-sdk's order.
//
// Schemas stay for the engine's life: edits are rare and a schema is small
// next to the cost of telling when no scope serves it any more.
type schemaPool struct {
	cache *mcp.SchemaCache

	mu     sync.Mutex
	byText map[string]*jsonschema.Schema
}

func newSchemaPool() *schemaPool {
	return &schemaPool{cache: mcp.NewSchemaCache(), byText: map[string]*jsonschema.Schema{}}
}

// schema returns the shared parsed form of raw, a tool's input schema.
func (p *schemaPool) schema(raw json.RawMessage) (*jsonschema.Schema, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s, ok := p.byText[string(raw)]; ok {
		return s, nil
	}
	s := new(jsonschema.Schema)
	if err := json.Unmarshal(raw, s); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	p.byText[string(raw)] = s
	return s, nil
}
