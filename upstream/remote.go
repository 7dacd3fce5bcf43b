package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// headerTransport adds a remote server's headers to every request and
// keeps what went wrong last, in the words httpWords needs: go-sdk's
// errors name a status only as text, and lose the network error's type.
type headerTransport struct {
	base    *http.Transport
	headers map[string]string

	mu     sync.Mutex
	bad    int   // the last status >= 400
	netErr error // the last error of a request that got no answer
}

// RoundTrip sends req with the headers.
func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for _, k := range slices.Sorted(maps.Keys(t.headers)) {
		req.Header.Set(k, t.headers[k])
	}
	var cancel context.CancelFunc = func() {}
	if req.Method == http.MethodDelete {
		// The session's end, sent by Close: best effort, and bounded more
		// tightly than go-sdk's 5 s. A go-sdk server answers it once its
		// calls ended, while go-sdk's client holds back the cancellation
		// of a call given up just before until Close returns: each waits
		// for the other until the bound.
		ctx, c := context.WithTimeout(req.Context(), deleteTimeout)
		req, cancel = req.WithContext(ctx), c
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		cancel()
	} else {
		resp.Body = cancelOnClose{resp.Body, cancel}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case err != nil && req.Context().Err() == nil:
		t.netErr = err
	case err == nil && resp.StatusCode >= 400:
		t.bad = resp.StatusCode
	}
	return resp, err
}

// deleteTimeout bounds the request that ends a Streamable HTTP session.
const deleteTimeout = 500 * time.Millisecond

// cancelOnClose ends a request's context once its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelOnClose) Close() error {
	defer c.cancel()
	return c.ReadCloser.Close()
}

// explain turns err, from a connection or a call, into words.
func (t *headerTransport) explain(url string, err error) error {
	var words *signInError
	if errors.As(err, &words) {
		return words
	}
	t.mu.Lock()
	bad, netErr := t.bad, t.netErr
	t.mu.Unlock()
	if bad == 0 && netErr != nil {
		err = netErr
	}
	return httpWords(url, bad, err)
}

// connectRemote opens a session with a server over HTTP: Streamable HTTP,
// or the older HTTP+SSE transport.
func (s *server) connectRemote(ctx context.Context, name string, r *catalog.UpstreamRemote) (*conn, error) {
	headers := make(map[string]string, len(r.Headers))
	for k, v := range r.Headers {
		val, err := s.m.cfg.expand(ctx, v)
		if err != nil {
			return nil, fmt.Errorf("header %s: %w", k, err)
		}
		headers[k] = val
	}
	ht := &headerTransport{base: http.DefaultTransport.(*http.Transport).Clone(), headers: headers}
	hc := &http.Client{Transport: ht}
	oauth := s.oauthHandler(name, r)
	var t mcp.Transport = &mcp.StreamableClientTransport{Endpoint: r.URL, HTTPClient: hc, OAuthHandler: oauth}
	if r.Transport == catalog.UpstreamSSE {
		t = &mcp.SSEClientTransport{Endpoint: r.URL, HTTPClient: &http.Client{Transport: &oauthTransport{base: ht, h: oauth}}}
	}
	life, endLife := context.WithCancel(context.Background())
	cs, err := s.client().Connect(ctx, lifetime{t, life}, nil)
	if err != nil {
		endLife()
		ht.base.CloseIdleConnections()
		return nil, ht.explain(r.URL, err)
	}
	c := newConn(cs, func() {
		_ = cs.Close()
		endLife()
		ht.base.CloseIdleConnections()
	})
	c.unreachable = func(err error) error {
		// A request that got no answer at all; a refusal (401, 404…) is
		// the server's answer, said by the error itself.
		var urlErr *url.Error
		if !errors.As(err, &urlErr) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil // answered, or given up by the caller
		}
		return httpWords(r.URL, 0, err)
	}
	return c, nil
}

// oauthHandler is the server's sign-in, kept across its sessions: a
// session started anew uses the token in memory.
func (s *server) oauthHandler(name string, r *catalog.UpstreamRemote) *oauthHandler {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.oauth == nil {
		s.oauth = newOAuthHandler(name, r, &s.m.cfg, s.m.log)
	}
	s.oauth.newStart()
	return s.oauth
}

// lifetime connects its transport with ctx rather than the start's
// context: the SSE transport's event stream lives as long as the context
// it was connected with, and the start's ends with the start (its
// timeout).
type lifetime struct {
	mcp.Transport
	ctx context.Context
}

// Connect connects the transport for the session's life.
func (l lifetime) Connect(context.Context) (mcp.Connection, error) {
	return l.Transport.Connect(l.ctx)
}
