package testutil

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
)

// APIReply is what an API answers every request with.
const APIReply = `{"ok": true}`

// API is a local HTTP server standing in for the web API a tool calls: it
// records each request, body and all, and answers APIReply as JSON.
type API struct {
	*httptest.Server
	mu   sync.Mutex
	seen []Request
}

// Request is a request an API received.
type Request struct {
	Method string
	// Path is the path as sent, escapes kept ("/a%2Fb").
	Path     string
	RawQuery string
	Header   http.Header
	Body     string
}

// Query is the request's query parameters.
func (r Request) Query() url.Values {
	q, _ := url.ParseQuery(r.RawQuery) // what parses is what a server reads
	return q
}

// NewAPI starts an API, closed when the test ends.
func NewAPI(t testing.TB) *API {
	t.Helper()
	a := &API{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body) // a body cut short is recorded as far as it came
		a.mu.Lock()
		a.seen = append(a.seen, Request{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, r.Header.Clone(), string(b)})
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, APIReply)
	}))
	t.Cleanup(a.Close)
	return a
}

// Last is the last request the API received; it fails t when there was
// none.
func (a *API) Last(t testing.TB) Request {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.seen) == 0 {
		t.Fatal("the API received no request")
	}
	return a.seen[len(a.seen)-1]
}
