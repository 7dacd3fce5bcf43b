package mcpcore

import (
	"encoding/json"
	"slices"
)

// legacyVersions are the session-era revisions served through initialize.
var legacyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// message is what the router peeks from a POST body.
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	} `json:"params"`
}

// isModern decides the era of a POST: a legacy version header, or no
// header and a session id, means 2025-11-25 and earlier; another version
// header, or a body carrying the 2026 per-request _meta (or a method only
// 2026 has), means 2026-07-28. initialize without those is the legacy
// handshake.
func isModern(sessionID, versionHeader string, m *message) bool {
	if versionHeader != "" {
		// 2026-07-28 ignores Mcp-Session-Id, so the version decides first.
		return !slices.Contains(legacyVersions, versionHeader)
	}
	if sessionID != "" {
		return false
	}
	if _, ok := m.Params.Meta["io.modelcontextprotocol/protocolVersion"]; ok {
		return true
	}
	return m.Method == "server/discover" || m.Method == "subscriptions/listen"
}
