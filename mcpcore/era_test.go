package mcpcore

import (
	"encoding/json"
	"testing"
)

func TestIsModern(t *testing.T) {
	msg := func(body string) *message {
		var m message
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Fatal(err)
		}
		return &m
	}
	meta := `{"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	tests := []struct {
		name, session, version, body string
		want                         bool
	}{
		{"legacy header", "", "2025-11-25", meta, false},
		{"modern header", "", "2026-07-28", `{"method":"tools/list"}`, true},
		{"unknown future header", "", "2027-01-01", `{"method":"tools/list"}`, true},
		{"modern header wins over a stale session", "abc", "2026-07-28", meta, true},
		{"session without header", "abc", "", meta, false},
		{"initialize", "", "", `{"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`, false},
		{"meta without header", "", "", meta, true},
		{"discover without anything", "", "", `{"method":"server/discover"}`, true},
		{"plain legacy request", "", "", `{"method":"tools/list"}`, false},
	}
	for _, tt := range tests {
		if got := isModern(tt.session, tt.version, msg(tt.body), []byte(tt.body)); got != tt.want {
			t.Errorf("%s: isModern = %v, want %v", tt.name, got, tt.want)
		}
	}
}
