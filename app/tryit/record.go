package tryit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"

	"github.com/mcptray/mcptray/internal/atmostonce"
)

// authTransport sends the Trier's bearer token with every request and lets
// rec see the tools/call exchanges.
type authTransport struct {
	secret string
	rec    *recorder
	next   http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (a *authTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+a.secret)
	var body []byte
	if r.Method == http.MethodPost && r.Body != nil {
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("reading the request to record it: %w", err)
		}
		body = b
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	if id := taskHeader(body); id != "" {
		r.Header.Set("Mcp-Name", id)
	}
	call := a.rec.request(body)
	if call != nil {
		r, call.delivery = atmostonce.Track(r)
	}
	resp, err := a.next.RoundTrip(r)
	if err != nil || call == nil {
		return resp, err
	}
	call.response(resp)
	return resp, nil
}

// recorder keeps the latest tools/call exchange: the request as sent and
// the response body as the client read it. A call answered in several
// rounds (input_required) sends tools/call again; the last round is kept.
type recorder struct {
	mu   sync.Mutex
	last *exchange
}

// exchange is one recorded tools/call.
type exchange struct {
	mu      sync.Mutex
	id      json.RawMessage
	req     []byte
	sse     bool
	status  string
	code    int
	resp    bytes.Buffer
	hasResp bool
	// delivery tells whether any byte of the request was written.
	delivery *atmostonce.Delivery
}

// reset forgets the previous call.
func (r *recorder) reset() {
	r.mu.Lock()
	r.last = nil
	r.mu.Unlock()
}

// interrupted says whether the latest tools/call went out (some of it was
// written) and no answer came back: no response, or a successful one
// whose stream broke before the answer — the server stopped during the
// call, which may have run. A call the server refused (401, say) was
// answered.
func (r *recorder) interrupted() bool {
	r.mu.Lock()
	x := r.last
	r.mu.Unlock()
	if x == nil || x.delivery == nil || x.delivery.Unsent() {
		return false
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.hasResp {
		return true
	}
	if x.code < 200 || x.code > 299 {
		return false
	}
	if x.sse {
		return sseMessage(x.resp.Bytes(), x.id) == nil
	}
	return !json.Valid(bytes.TrimSpace(x.resp.Bytes()))
}

// unsent says whether no byte of a tools/call was written since reset:
// the server cannot have run it.
func (r *recorder) unsent() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last == nil || r.last.delivery == nil || r.last.delivery.Unsent()
}

// request starts recording body when it is a tools/call request, and
// returns the exchange to attach its response to; nil for anything else.
func (r *recorder) request(body []byte) *exchange {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if len(body) == 0 || json.Unmarshal(body, &msg) != nil || msg.Method != "tools/call" {
		return nil
	}
	x := &exchange{id: msg.ID, req: body}
	r.mu.Lock()
	r.last = x
	r.mu.Unlock()
	return x
}

// response tees the response body into the exchange as the client reads
// it, so a stream is never read ahead of the client.
func (x *exchange) response(resp *http.Response) {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	x.mu.Lock()
	x.sse = ct == "text/event-stream"
	x.status, x.code = resp.Status, resp.StatusCode
	x.hasResp = true
	x.mu.Unlock()
	resp.Body = &teeBody{ReadCloser: resp.Body, x: x}
}

// teeBody copies what is read from a response body into its exchange.
type teeBody struct {
	io.ReadCloser
	x *exchange
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	if n > 0 {
		t.x.mu.Lock()
		t.x.resp.Write(p[:n])
		t.x.mu.Unlock()
	}
	return n, err
}

// exchange returns the latest tools/call request and its response,
// indented; for a response streamed as server-sent events, the message
// answering the request (matched by id).
func (r *recorder) exchange() (req, resp string) {
	r.mu.Lock()
	x := r.last
	r.mu.Unlock()
	if x == nil {
		return "", ""
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	req = indent(x.req)
	if !x.hasResp {
		return req, ""
	}
	body := x.resp.Bytes()
	if x.sse {
		if msg := sseMessage(body, x.id); msg != nil {
			return req, indent(msg)
		}
		return req, strings.TrimSpace(string(body))
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return req, "(HTTP " + x.status + ", no body)"
	}
	if json.Valid(body) {
		return req, indent(body)
	}
	// Not JSON-RPC (an HTTP error page, say): shown as it came.
	return req, "HTTP " + x.status + "\n" + strings.TrimSpace(string(body))
}

// sseMessage finds, among the events of an SSE stream, the JSON-RPC
// response whose id is id.
func sseMessage(stream []byte, id json.RawMessage) []byte {
	var data []string
	var found []byte
	flush := func() {
		if len(data) == 0 || found != nil {
			data = nil
			return
		}
		msg := []byte(strings.Join(data, "\n"))
		data = nil
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(msg, &m) == nil && m.Method == "" && bytes.Equal(bytes.TrimSpace(m.ID), bytes.TrimSpace(id)) {
			found = msg
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	flush()
	return found
}

// indent pretty-prints a JSON message; what is not JSON stays as it is.
func indent(b []byte) string {
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return string(b)
	}
	return out.String()
}
