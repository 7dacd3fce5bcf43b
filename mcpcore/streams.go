package mcpcore

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/mcptray/mcptray/record"
)

// What client tokens hold open: subscriptions/listen streams, 2025-11-25
// sessions and their GET streams. Tokens are checked on every request, but
// these outlive the request that opened them, so after every change of the
// tokens (a revocation, a new allowlist, a replaced secret) the engine
// checks each again with the credential it was opened with, and ends those
// whose token no longer stands as it did (Engine.revalidate). The same
// records bound the sessions one token may keep.

// held is one long-lived stream: a subscriptions/listen stream or a
// session's GET stream.
type held struct {
	token      string
	credential string   // the bearer token it was opened with
	tools      []string // the allowlist it was opened under; nil is all
	end        context.CancelFunc
}

// heldSession is one 2025-11-25 session.
type heldSession struct {
	token      string
	credential string
	tools      []string
	lastUsed   time.Time
	// streams counts its open GET streams: a session listening is in use
	// however long ago its last request came.
	streams int
}

// holdings are what client tokens hold open.
type holdings struct {
	mu       sync.Mutex
	streams  map[*held]struct{}
	sessions map[string]*heldSession
}

// credentialKey carries a request's verified bearer token in its context,
// for what the request opens to be checked again later.
type credentialKey struct{}

// credentialOf is the bearer token a request was authenticated with, or "".
func credentialOf(r *http.Request) string {
	c, _ := r.Context().Value(credentialKey{}).(string)
	return c
}

// holdStream records a long-lived stream opened by r under principal p and
// returns the request to serve it with, whose context ends when the token
// no longer stands; release forgets the stream and must run when it ends.
func (e *Engine) holdStream(r *http.Request, p record.Principal, session string) (_ *http.Request, release func()) {
	ctx, cancel := context.WithCancel(r.Context())
	h := &held{token: p.Token, credential: credentialOf(r), tools: p.Tools, end: cancel}
	e.held.mu.Lock()
	if e.held.streams == nil {
		e.held.streams = map[*held]struct{}{}
	}
	e.held.streams[h] = struct{}{}
	if s := e.held.sessions[session]; s != nil {
		s.streams++
	}
	e.held.mu.Unlock()
	return r.WithContext(ctx), func() {
		cancel()
		e.held.mu.Lock()
		defer e.held.mu.Unlock()
		delete(e.held.streams, h)
		if s := e.held.sessions[session]; s != nil {
			s.streams--
			s.lastUsed = time.Now()
		}
	}
}

// makeRoomForSession is called before p opens a new 2025-11-25 session: a
// token holding max sessions already loses its least recently used one
// (one without a GET stream first), so that a client that never closes its
// sessions cannot pile them up, and a new client is never locked out.
func (e *Engine) makeRoomForSession(p record.Principal, max int) {
	live := e.liveSessions()
	e.held.mu.Lock()
	var mine []string
	for id, s := range e.held.sessions {
		switch {
		case !live[id]:
			delete(e.held.sessions, id) // closed, deleted or timed out
		case s.token == p.Token:
			mine = append(mine, id)
		}
	}
	var evict []string
	if over := len(mine) - max + 1; over > 0 {
		slices.SortFunc(mine, func(a, b string) int {
			sa, sb := e.held.sessions[a], e.held.sessions[b]
			if (sa.streams > 0) != (sb.streams > 0) {
				if sa.streams > 0 {
					return 1
				}
				return -1
			}
			return sa.lastUsed.Compare(sb.lastUsed)
		})
		evict = mine[:over]
		for _, id := range evict {
			delete(e.held.sessions, id)
		}
	}
	e.held.mu.Unlock()
	for _, id := range evict {
		e.log.Info("closing the least recently used session of a client token at its limit", "token", p.Token, "maxSessionsPerToken", max)
		e.closeSession(id)
	}
}

// sessionOpened records the 2025-11-25 session id that r opened for p.
func (e *Engine) sessionOpened(id string, r *http.Request, p record.Principal) {
	e.held.mu.Lock()
	defer e.held.mu.Unlock()
	if e.held.sessions == nil {
		e.held.sessions = map[string]*heldSession{}
	}
	e.held.sessions[id] = &heldSession{token: p.Token, credential: credentialOf(r), tools: p.Tools, lastUsed: time.Now()}
}

// sessionUsed notes a request in session id.
func (e *Engine) sessionUsed(id string) {
	e.held.mu.Lock()
	defer e.held.mu.Unlock()
	if s := e.held.sessions[id]; s != nil {
		s.lastUsed = time.Now()
	}
}

// liveSessions are the ids of the sessions go-sdk holds on any server.
func (e *Engine) liveSessions() map[string]bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	live := map[string]bool{}
	for _, sc := range e.scopes {
		for ss := range sc.server.Sessions() {
			live[ss.ID()] = true
		}
	}
	return live
}

// closeSession closes the session id on whichever server holds it; its
// GET stream ends and its next request is told the session is gone.
func (e *Engine) closeSession(id string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, sc := range e.scopes {
		for ss := range sc.server.Sessions() {
			if ss.ID() == id {
				_ = ss.Close()
			}
		}
	}
}

// revalidate checks every held stream and session against the tokens as
// they are now, and ends those whose token was revoked, got another secret
// or another tool allowlist: what it may see is no longer what the stream
// was opened for. A failure to read the tokens ends nothing (it is logged).
func (e *Engine) revalidate(ctx context.Context) {
	if e.opts.Tokens == nil {
		return
	}
	type verdict struct {
		p   record.Principal
		err error
	}
	verdicts := map[string]verdict{}
	stands := func(credential string, tools []string) bool {
		v, ok := verdicts[credential]
		if !ok {
			v.p, v.err = e.opts.Tokens.VerifyToken(ctx, credential)
			verdicts[credential] = v
			if v.err != nil && !errors.Is(v.err, record.ErrUnknownToken) {
				e.log.Error("checking the client tokens of open streams", "err", v.err)
			}
		}
		if v.err != nil {
			return !errors.Is(v.err, record.ErrUnknownToken)
		}
		return sameAllowlist(v.p.Tools, tools)
	}
	e.held.mu.Lock()
	streams := make([]*held, 0, len(e.held.streams))
	for h := range e.held.streams {
		streams = append(streams, h)
	}
	sessions := make(map[string]heldSession, len(e.held.sessions))
	for id, s := range e.held.sessions {
		sessions[id] = *s
	}
	e.held.mu.Unlock()
	for _, h := range streams {
		if !stands(h.credential, h.tools) {
			e.log.Info("ending a stream: its client token was revoked or changed", "token", h.token)
			h.end()
		}
	}
	for id, s := range sessions {
		if !stands(s.credential, s.tools) {
			e.log.Info("closing a session: its client token was revoked or changed", "token", s.token)
			e.held.mu.Lock()
			delete(e.held.sessions, id)
			e.held.mu.Unlock()
			e.closeSession(id)
		}
	}
}

// sameAllowlist reports whether two tool allowlists allow the same tools
// (nil allows every tool, an empty list none).
func sameAllowlist(a, b []string) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}
