package mcpcore

import (
	"encoding/json"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// modernVersion is the first protocol revision without sessions, where input
// steps travel as input_required results instead of server→client requests.
const modernVersion = "2026-07-28"

// legacyVersions are the session-era revisions served through initialize.
var legacyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// isLegacy reports whether the session negotiated a pre-2026 revision.
func isLegacy(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion < modernVersion
}

// message is what the router peeks from every POST body.
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
}

// hasModernMeta reports whether a body carries the 2026 per-request
// protocolVersion; it is decoded only when the headers cannot decide.
func hasModernMeta(body []byte) bool {
	_, ok := metaVersion(body)
	return ok
}

// metaVersion is the 2026 per-request _meta protocolVersion of a body, and
// whether it has one (of any JSON type; a non-string reads as "").
func metaVersion(body []byte) (string, bool) {
	var m struct {
		Params struct {
			Meta struct {
				Version *json.RawMessage `json:"io.modelcontextprotocol/protocolVersion"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil || m.Params.Meta.Version == nil {
		return "", false
	}
	var v string
	_ = json.Unmarshal(*m.Params.Meta.Version, &v)
	return v, true
}

// isModern decides the era of a POST: a legacy version header, or no
// header and a session id, means 2025-11-25 and earlier; another version
// header, or a body carrying the 2026 per-request _meta (or a method only
// 2026 has), means 2026-07-28. initialize without those is the legacy
// handshake.
func isModern(sessionID, versionHeader string, m *message, body []byte) bool {
	if versionHeader != "" {
		// 2026-07-28 ignores Mcp-Session-Id, so the version decides first.
		return !slices.Contains(legacyVersions, versionHeader)
	}
	if sessionID != "" {
		return false
	}
	return m.Method == "server/discover" || m.Method == "subscriptions/listen" || hasModernMeta(body)
}
