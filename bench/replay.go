package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Replay re-sends one tools/call, captured from the real go-sdk client,
// straight into a handler — no network, no client — so that only the
// server's own work is measured. Each call gets a fresh JSON-RPC id. A
// Replay is not safe for concurrent use; make one per goroutine.
type Replay struct {
	h       http.Handler
	url     string
	header  http.Header
	prefix  []byte // body up to and including `"id":`
	suffix  []byte // body after the id
	id      int64
	body    []byte
	w       sink
	session *mcp.ClientSession
	srv     *http.Server
}

// Capture connects a go-sdk client speaking era to h (served on a loopback
// listener), makes one echo call, and keeps that request — headers and body,
// with the session id for Legacy — for replaying into h. The session stays
// open until Close, so a Legacy replay stays valid.
func Capture(ctx context.Context, h http.Handler, token string, era Era) (*Replay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	endpoint := "http://" + ln.Addr().String() + "/mcp"
	rec := &recorder{}
	hc := newHTTPClient(token, func(next http.RoundTripper) http.RoundTripper {
		return &recordingTransport{next: next, rec: rec}
	})
	cs, err := Connect(ctx, endpoint, hc, era)
	if err != nil {
		_ = srv.Close()
		return nil, err
	}
	r := &Replay{h: h, url: endpoint, session: cs, srv: srv, id: 1 << 30}
	if err := CallEcho(ctx, cs); err != nil {
		r.Close()
		return nil, fmt.Errorf("capturing a call: %w", err)
	}
	header, body := rec.get()
	if body == nil {
		r.Close()
		return nil, errors.New("capturing a call: no tools/call request seen")
	}
	at := bytes.Index(body, []byte(`"id":`))
	if at < 0 {
		r.Close()
		return nil, fmt.Errorf("capturing a call: no id in %s", body)
	}
	idStart := at + len(`"id":`)
	idEnd := idStart
	for idEnd < len(body) && body[idEnd] >= '0' && body[idEnd] <= '9' {
		idEnd++
	}
	if idEnd == idStart {
		r.Close()
		return nil, fmt.Errorf("capturing a call: id is not an integer in %s", body)
	}
	r.header, r.prefix, r.suffix = header, body[:idStart], body[idEnd:]
	if err := r.Call(); err != nil {
		r.Close()
		return nil, fmt.Errorf("replaying the captured call: %w", err)
	}
	return r, nil
}

// Call replays the request once and checks the response carries EchoText.
func (r *Replay) Call() error {
	r.id++
	r.body = append(strconv.AppendInt(append(r.body[:0], r.prefix...), r.id, 10), r.suffix...)
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, r.url, bytes.NewReader(r.body))
	if err != nil {
		return err
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	req.ContentLength = int64(len(r.body))
	r.w.reset()
	r.h.ServeHTTP(&r.w, req)
	if r.w.code != http.StatusOK || !bytes.Contains(r.w.buf.Bytes(), []byte(EchoText)) {
		return fmt.Errorf("replay: HTTP %d: %.300s", r.w.code, r.w.buf.Bytes())
	}
	return nil
}

// Close ends the captured session and its loopback server.
func (r *Replay) Close() {
	_ = r.session.Close()
	_ = r.srv.Close()
}

// sink is a reusable ResponseWriter that keeps the response in memory.
type sink struct {
	h    http.Header
	code int
	buf  bytes.Buffer
}

func (s *sink) reset() {
	if s.h == nil {
		s.h = http.Header{}
	}
	clear(s.h)
	s.code = 0
	s.buf.Reset()
}

func (s *sink) Header() http.Header { return s.h }

func (s *sink) WriteHeader(code int) {
	if s.code == 0 {
		s.code = code
	}
}

func (s *sink) Write(p []byte) (int, error) {
	if s.code == 0 {
		s.code = http.StatusOK
	}
	return s.buf.Write(p)
}

// Flush is a no-op; SSE writers call it.
func (s *sink) Flush() {}

// recorder keeps the last tools/call request a client sent.
type recorder struct {
	mu     sync.Mutex
	header http.Header
	body   []byte
}

func (r *recorder) get() (http.Header, []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.header, r.body
}

type recordingTransport struct {
	next http.RoundTripper
	rec  *recorder
}

func (t *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Method == http.MethodPost {
		body, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		if bytes.Contains(body, []byte(`"method":"tools/call"`)) {
			t.rec.mu.Lock()
			t.rec.header, t.rec.body = req.Header.Clone(), body
			t.rec.mu.Unlock()
		}
	}
	return t.next.RoundTrip(req)
}

// ReplayLoad runs each replay in its own goroutine, back to back, through
// a warm-up and the measured window, like Load.
func ReplayLoad(ctx context.Context, replays []*Replay, o LoadOptions) Result {
	calls := make([]func(context.Context) error, len(replays))
	for i, r := range replays {
		calls[i] = func(context.Context) error { return r.Call() }
	}
	return Load(ctx, calls, o)
}
