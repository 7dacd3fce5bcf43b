package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
)

// errSessionGone means mcptray no longer knows the 2025 session (it stopped
// or restarted).
var errSessionGone = errors.New("the session with mcptray is gone")

// sessInfo reads a session's current id and protocol version.
func (b *bridge) sessInfo(s *session) (id, version string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return s.id, s.version
}

func (b *bridge) sessVersion() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sess == nil {
		return ""
	}
	return b.sess.version
}

// resume re-establishes the 2025 session after mcptray restarted, so a
// client that initialized once (and never does again) keeps working: the
// client's initialize is replayed under the shim's own id, its answer kept
// from the client, notifications/initialized sent, and the client told that
// the lists may have changed. It returns the session id to use.
func (b *bridge) resume(ctx context.Context, oldID string) (string, bool) {
	b.mu.Lock()
	sess := b.sess
	b.mu.Unlock()
	if sess == nil || sess.initLine == nil {
		return "", false
	}
	sess.resumeMu.Lock()
	defer sess.resumeMu.Unlock()
	if id, _ := b.sessInfo(sess); id != oldID {
		return id, true // resumed already by another request
	}
	var init map[string]json.RawMessage
	if json.Unmarshal(sess.initLine, &init) != nil {
		return "", false
	}
	init["id"] = json.RawMessage(`"mcptray-stdio-resume"`)
	line, _ := json.Marshal(init)
	version := ""
	resp, err := b.post(ctx, line, http.Header{}, func(msg []byte) {
		var r struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if json.Unmarshal(msg, &r) == nil && r.Result.ProtocolVersion != "" {
			version = r.Result.ProtocolVersion
		}
	}, "", true)
	if err != nil || resp == nil || version == "" || resp.Header.Get("Mcp-Session-Id") == "" {
		b.logf("re-establishing the session with mcptray failed: %v", err)
		return "", false
	}
	id := resp.Header.Get("Mcp-Session-Id")
	h := http.Header{}
	h.Set("MCP-Protocol-Version", version)
	if _, err := b.post(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), h, nil, id, true); err != nil {
		b.logf("re-establishing the session with mcptray failed: %v", err)
		return "", false
	}
	b.mu.Lock()
	sess.id, sess.version, sess.offline = id, version, ""
	b.mu.Unlock()
	if oldID == "" {
		b.logf("mcptray is reachable now; the session is set up")
	} else {
		b.logf("mcptray restarted; the session was re-established")
	}
	select {
	case sess.kick <- struct{}{}:
	default:
	}
	for _, n := range []string{"tools", "prompts", "resources"} {
		_ = b.out.write([]byte(`{"jsonrpc":"2.0","method":"notifications/` + n + `/list_changed"}`))
	}
	return id, true
}

// requestedVersion is the version an initialize asks for, when it is one
// the shim can stand in for; else 2025-11-25.
func requestedVersion(params json.RawMessage) string {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(params, &p)
	switch p.ProtocolVersion {
	case "2025-11-25", "2025-06-18", "2025-03-26":
		return p.ProtocolVersion
	}
	return "2025-11-25"
}

func offlineInitResult(version, why string) any {
	lc := map[string]any{"listChanged": true}
	return map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{"tools": lc, "prompts": lc, "resources": lc},
		"serverInfo":      map[string]any{"name": "mcptray", "version": "unavailable"},
		"instructions":    "mcptray is not reachable yet: " + why + " Its tools appear as soon as it runs.",
	}
}

// answerOffline answers a request while mcptray cannot be reached: the
// lists are empty (they fill in with list_changed once it runs), ping
// works, and everything else gets an error that says what to do.
func (b *bridge) answerOffline(sess *session, m message) {
	b.mu.Lock()
	why := sess.offline
	b.mu.Unlock()
	if why == "" {
		why = "mcptray is not reachable."
	}
	switch m.Method {
	case "ping":
		b.writeResult(m.ID, map[string]any{})
	case "tools/list":
		b.writeResult(m.ID, map[string]any{"tools": []any{}})
	case "prompts/list":
		b.writeResult(m.ID, map[string]any{"prompts": []any{}})
	case "resources/list":
		b.writeResult(m.ID, map[string]any{"resources": []any{}})
	case "resources/templates/list":
		b.writeResult(m.ID, map[string]any{"resourceTemplates": []any{}})
	default:
		b.writeError(m.ID, codeUnavailable, why, nil)
	}
}

func (b *bridge) writeResult(id json.RawMessage, result any) {
	out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	if err := b.out.write(out); err != nil {
		b.logf("writing a result: %v", err)
	}
}
