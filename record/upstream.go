package record

import (
	"encoding/json"
	"time"
)

// Kinds of UpstreamChange.
const (
	UpstreamNew     = "new"
	UpstreamChanged = "changed"
	UpstreamGone    = "gone"
)

// UpstreamChange is a tool another MCP server offers that differs from what
// the person approved: a new tool, a changed definition, or a tool the
// server no longer offers. It waits for the person's approval.
type UpstreamChange struct {
	// Server is the upstream's name; Tool the tool's name on that server.
	Server string `json:"server"`
	Tool   string `json:"tool"`
	// Kind is UpstreamNew, UpstreamChanged or UpstreamGone.
	Kind string `json:"kind"`
	// Definition is the tool as the server offers it now (its MCP JSON),
	// empty when gone.
	Definition json.RawMessage `json:"definition,omitempty"`
	// Hash is Definition's definition hash, empty when gone.
	Hash string `json:"hash,omitempty"`
	// Seen is when the server was first seen offering it.
	Seen time.Time `json:"seen"`
}
