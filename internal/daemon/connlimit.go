package daemon

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/mcptray/mcptray/mcpcore"
)

// maxConns caps the connections the server holds, on every port together.
// Real clients hold a few each (an AI app a handful, each listen stream
// one); the cap exists because anyone on this computer can open
// connections without a token, and each costs a file descriptor.
const maxConns = 1024

// connLimit caps the connections a server holds so that they never exhaust
// the process's file descriptors (which commands, the database and the
// connections of HTTP actions need too), and so that a flood of idle
// connections cannot lock clients out: at the cap, a new connection
// closes an idle one — first one that never showed a valid token, then
// the least recently used — and is refused only when every connection is
// busy serving a request.
type connLimit struct {
	max   int
	mu    sync.Mutex
	conns map[net.Conn]*connInfo
}

// connInfo is what the limit knows of one connection.
type connInfo struct {
	// idle: no request is being served (a new connection, or one kept
	// alive between requests); since: when it last changed.
	idle  bool
	since time.Time
	// authed: a request on it passed the guard and the token check.
	authed bool
}

// newConnLimit sizes the cap: maxConns, or half the file descriptors the
// process may open when that is less.
func newConnLimit() *connLimit {
	n := maxConns
	if fds := fdLimit(); fds > 0 && fds/2 < n {
		n = max(fds/2, 16)
	}
	return &connLimit{max: n, conns: map[net.Conn]*connInfo{}}
}

// listener wraps ln so that its connections count against the cap.
func (l *connLimit) listener(ln net.Listener) net.Listener {
	return &limitedListener{Listener: ln, l: l}
}

// limitedListener admits each accepted connection through its connLimit.
type limitedListener struct {
	net.Listener
	l *connLimit
}

// Accept returns the next connection the cap admits; those it refuses are
// closed at once.
func (ll *limitedListener) Accept() (net.Conn, error) {
	for {
		c, err := ll.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if ll.l.admit(c) {
			return c, nil
		}
		c.Close()
	}
}

// admit takes c into the count, closing an idle connection first when at
// the cap; it reports false when every connection is busy.
func (l *connLimit) admit(c net.Conn) bool {
	l.mu.Lock()
	var victim net.Conn
	if len(l.conns) >= l.max {
		var best *connInfo
		for vc, info := range l.conns {
			if !info.idle {
				continue
			}
			if best == nil || (best.authed && !info.authed) || (best.authed == info.authed && info.since.Before(best.since)) {
				victim, best = vc, info
			}
		}
		if victim == nil {
			l.mu.Unlock()
			slog.Warn("refusing a connection: every connection is busy", "max", l.max)
			return false
		}
		delete(l.conns, victim)
	}
	l.conns[c] = &connInfo{idle: true, since: time.Now()}
	l.mu.Unlock()
	if victim != nil {
		victim.Close()
	}
	return true
}

// track follows a connection's state (http.Server.ConnState).
func (l *connLimit) track(c net.Conn, state http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	info := l.conns[c]
	switch state {
	case http.StateClosed, http.StateHijacked:
		delete(l.conns, c)
	case http.StateActive, http.StateIdle:
		if info != nil {
			info.idle, info.since = state == http.StateIdle, time.Now()
		}
	}
}

// connContext gives each connection's requests a way to mark it as a
// client's (http.Server.ConnContext): mcpcore calls it once a request
// passes the guard and the token check.
func (l *connLimit) connContext(ctx context.Context, c net.Conn) context.Context {
	return mcpcore.OnAuthenticated(ctx, func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if info := l.conns[c]; info != nil {
			info.authed = true
		}
	})
}
