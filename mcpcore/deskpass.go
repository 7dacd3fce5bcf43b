package mcpcore

import (
	"crypto/rand"
	"sync"
	"time"
)

// A call of an upstream tool whose server asks the AI app for input is,
// on 2026-07-28, several requests: the app answers each input_required
// round by calling again. The person answered the tool's desktop
// questions (its approval) in the first request; the later ones carry
// those answers in mcptray's sealed requestState, so the person is asked
// once per call, not once per round.
//
// A sealed state can be sent again as it is, and the server's own state
// in it would have the server run the tool again: answers a person gave
// on the desktop must not let that happen unasked. So the state carries a
// pass too, which mcptray holds in memory and takes back when a request
// uses it: the state of one round lets one request through. A state sent
// again, or after mcptray restarted, has its pass no more: the person is
// asked again.

// deskPasses are the passes given out and not used yet, each with the
// time it lapses (the request state's own expiry).
type deskPasses struct {
	mu     sync.Mutex
	lapses map[string]time.Time
}

// issue gives out a new pass, valid for ttl, and forgets those lapsed.
func (p *deskPasses) issue(ttl time.Duration) string {
	id := rand.Text()
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lapses == nil {
		p.lapses = map[string]time.Time{}
	}
	for k, at := range p.lapses {
		if now.After(at) {
			delete(p.lapses, k)
		}
	}
	p.lapses[id] = now.Add(ttl)
	return id
}

// redeem takes pass back and reports whether it was valid: given out by
// this process, not used yet, not lapsed.
func (p *deskPasses) redeem(pass string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	at, ok := p.lapses[pass]
	delete(p.lapses, pass)
	return ok && !time.Now().After(at)
}
