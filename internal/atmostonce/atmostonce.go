// Package atmostonce decides whether an HTTP request may be sent again:
// only when no byte of it was written to a connection, so the server
// provably never saw it. A request that failed after its first byte went
// out may have been read and acted on — a tool may have run — and sending
// it again could run it twice; its caller must say so instead.
//
// How it knows: Wrap makes every connection of a transport count the bytes
// its Write calls accepted, and Track notes, through net/http/httptrace,
// which connection a request got. A failed request whose connection
// accepted no byte after it was handed over — or that got no connection
// at all (the dial was refused) — was never written. net/http's own
// retries keep to the same rule for a POST: it re-sends one only when
// nothing was written (see persistConn.shouldRetryRequest), so a request
// it retried on a fresh connection is judged by that connection.
package atmostonce

import (
	"context"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
)

// Wrap returns a copy of base whose connections count the bytes written to
// them, which Track needs. base's DialContext (or a plain dialer) still
// makes the connections.
//
// It also makes every request take a new connection (no keep-alive). A
// kept connection may have been closed by the server — a restart, a port
// change — just as a request is written to it: the request then fails
// with its bytes written, and must be reported as possibly run although
// nobody read it. A new connection to a server that is gone is refused
// before a byte goes out, and the request can safely go to the server that
// replaced it. On 127.0.0.1 a connection costs tens of microseconds.
func Wrap(base *http.Transport) *http.Transport {
	t := base.Clone()
	t.DisableKeepAlives = true
	dial := t.DialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &countingConn{Conn: c}, nil
	}
	return t
}

// countingConn counts the bytes the connection's Write calls accepted.
type countingConn struct {
	net.Conn
	written atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.written.Add(int64(n))
	return n, err
}

// Delivery tells, after a round trip failed, whether its request could
// have reached the server.
type Delivery struct {
	mu    sync.Mutex
	conn  *countingConn
	start int64
	// foreign is set when a connection was not made by a Wrap transport:
	// nothing can be proved about it.
	foreign bool
}

// Track returns req carrying a trace that records the connection it gets,
// and the Delivery to ask once the round trip is over. req must go through
// a transport made by Wrap.
func Track(req *http.Request) (*http.Request, *Delivery) {
	d := &Delivery{}
	trace := &httptrace.ClientTrace{GotConn: d.gotConn}
	ctx := httptrace.WithClientTrace(req.Context(), trace)
	return req.WithContext(ctx), d
}

func (d *Delivery) gotConn(info httptrace.GotConnInfo) {
	d.mu.Lock()
	defer d.mu.Unlock()
	c, ok := info.Conn.(*countingConn)
	if !ok {
		d.foreign, d.conn = true, nil
		return
	}
	// A connection is used by one request at a time (HTTP/1.1), so what
	// it accepts from now on is this request's.
	d.foreign, d.conn, d.start = false, c, c.written.Load()
}

// Unsent reports whether no byte of the request was written: it got no
// connection (the server refused it: not running), or the connection it
// got accepted nothing more. Only then may the request be sent again.
func (d *Delivery) Unsent() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.foreign {
		return false
	}
	return d.conn == nil || d.conn.written.Load() == d.start
}
