package app

import (
	"strings"
	"testing"
)

// TestSettingsInPeoplesUnits: Settings shows times in seconds and sizes in
// KB, reads back what it showed exactly, takes a fraction of a second,
// and refuses a number out of range in the unit the person typed it in.
func TestSettingsInPeoplesUnits(t *testing.T) {
	m, _ := newTestManager(t)
	s := m.settings
	field := func(key string) *numField {
		for _, n := range s.nums {
			if n.key == key {
				return n
			}
		}
		t.Fatalf("no field %s", key)
		return nil
	}
	for key, want := range map[string]string{"cacheTtlMs": "5", "taskTtlMs": "3600", "taskPollIntervalMs": "1", "maxBodyBytes": "4096", "maxResultBytes": "8192"} {
		if got := field(key).entry.Text; got != want {
			t.Errorf("%s shows %q, want %q", key, got, want)
		}
	}
	if s.Unsaved() {
		t.Error("the settings as loaded read as changed")
	}
	field("cacheTtlMs").entry.SetText("1.5")
	field("maxBodyBytes").entry.SetText("1")
	set, ps := s.Settings()
	if len(ps) > 0 || set.CacheTTLMs != 1500 || set.MaxBodyBytes != 1024 {
		t.Errorf("1.5 seconds and 1 KB read as %d ms and %d bytes (%v)", set.CacheTTLMs, set.MaxBodyBytes, ps)
	}
	field("taskPollIntervalMs").entry.SetText("0.05")
	field("maxResultBytes").entry.SetText("lots")
	_, ps = s.Settings()
	msgs := map[string]string{}
	for _, p := range ps {
		msgs[p.Field] = p.Message
	}
	if !strings.Contains(msgs["taskPollIntervalMs"], "seconds from 0.1 to 3600") || !strings.Contains(msgs["maxResultBytes"], "KB from 64 to") {
		t.Errorf("the problems: %v", msgs)
	}
}
