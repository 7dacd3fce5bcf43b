package mcpcore

import (
	"testing"
	"time"
)

// TestDeskPassesServeOnce: a pass lets one request through; used, lapsed
// or never given out, it lets none; lapsed passes are forgotten as new
// ones are given out, so they do not pile up.
func TestDeskPassesServeOnce(t *testing.T) {
	var p deskPasses
	pass := p.issue(time.Minute)
	if !p.redeem(pass) {
		t.Fatal("a new pass was refused")
	}
	if p.redeem(pass) {
		t.Error("a pass served twice")
	}
	if p.redeem("made-up") {
		t.Error("a pass never given out served")
	}
	lapsed := p.issue(-time.Second)
	if p.redeem(lapsed) {
		t.Error("a lapsed pass served")
	}
	p.issue(-time.Second)
	kept := p.issue(time.Minute)
	if n := len(p.lapses); n != 1 {
		t.Errorf("%d passes held, want 1 (the lapsed forgotten)", n)
	}
	if !p.redeem(kept) {
		t.Error("a pass given out after a lapsed one was refused")
	}
}
