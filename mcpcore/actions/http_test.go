package actions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcptray/mcptray/catalog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests call real HTTP servers on 127.0.0.1.

func TestHTTPGetEscapesPathAndQuery(t *testing.T) {
	type seen struct{ method, path, rawQuery, ua string }
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- seen{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, r.UserAgent()}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		fmt.Fprint(w, `{"ok":true}`)
	}))
	defer srv.Close()

	h := &catalog.HTTP{
		URL:   catalog.Template(srv.URL + "/items/{{pathescape .args.id}}/x?fixed=1"),
		Query: map[string]catalog.Template{"q": "{{.args.q}}", "empty": "{{.args.missing}}", "n": "{{.args.n}}"},
	}
	if ps := ValidateHTTP(h, nil); len(ps) > 0 {
		t.Fatalf("valid action rejected: %v", ps)
	}
	args := map[string]any{"id": "../a/b c?#", "q": "x&y=z #ü", "n": 3}
	res, err := runHTTP(context.Background(), h, &Data{Args: args}, nil)
	if err != nil || res.IsError {
		t.Fatalf("run: %+v, %v", res, err)
	}
	if text(t, res) != `{"ok":true}` {
		t.Errorf("body = %q", text(t, res))
	}
	s := <-got
	if s.method != "GET" || s.path != "/items/..%2Fa%2Fb%20c%3F%23/x" || s.ua != "mcptray" {
		t.Errorf("request: %+v", s)
	}
	q, _ := url.ParseQuery(s.rawQuery)
	if !strings.HasPrefix(s.rawQuery, "fixed=1&") || q.Get("q") != "x&y=z #ü" || q.Get("n") != "3" || q.Has("empty") {
		t.Errorf("query %q → %v", s.rawQuery, q)
	}
}

func TestHTTPPostJSONWithSecretHeader(t *testing.T) {
	const key = "sk-live-0123456789"
	type seen struct {
		key, auth, contentType string
		body                   map[string]any
	}
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var s seen
		s.key, s.auth, s.contentType = r.Header.Get("X-Api-Key"), r.Header.Get("Authorization"), r.Header.Get("Content-Type")
		if err := json.NewDecoder(r.Body).Decode(&s.body); err != nil || r.Method != "POST" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		got <- s
		// A careless API echoes the credentials back.
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Echo", r.Header.Get("X-Api-Key"))
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"created":%q,"by":%q}`, s.body["name"], r.Header.Get("X-Api-Key"))
	}))
	defer srv.Close()

	h := &catalog.HTTP{
		Method:  "post",
		URL:     catalog.Template(srv.URL + "/things"),
		Headers: map[string]catalog.Template{"X-Api-Key": `{{secret "api"}}`, "Authorization": `Bearer {{secret "api"}}`, "X-Optional": "{{.args.none}}"},
		Body:    `{"name": {{json .args.name}}, "tags": {{json .args.tags}}}`,
	}
	data := &Data{Args: map[string]any{"name": `Ada "the first"`, "tags": []any{"a", "b"}}, Secret: secrets(map[string]string{"api": key})}
	resp, err := Fetch(context.Background(), h, data)
	if err != nil {
		t.Fatal(err)
	}
	s := <-got
	if s.key != key || s.auth != "Bearer "+key || s.contentType != "application/json" || s.body["name"] != `Ada "the first"` || len(s.body["tags"].([]any)) != 2 {
		t.Errorf("the server saw %+v", s)
	}
	if resp.Status != 201 || resp.Reason != "Created" || strings.Contains(string(resp.Body), key) || resp.Header.Get("X-Echo") != "[secret:api]" {
		t.Errorf("response: %d %q %s %v", resp.Status, resp.Reason, resp.Body, resp.Header)
	}
	res, err := runHTTP(context.Background(), h, data, nil)
	if err != nil || res.IsError {
		t.Fatalf("run: %+v, %v", res, err)
	}
	if got := text(t, res); strings.Contains(got, key) || got != `{"created":"Ada \"the first\"","by":"[secret:api]"}` {
		t.Errorf("result = %q", got)
	}

	// The secret stays out of errors too: a URL carrying it, a failed call.
	h = &catalog.HTTP{URL: catalog.Template(srv.URL + `/x?token={{secret "api"}}`), TimeoutMs: 1}
	srv.Close()
	res, err = runHTTP(context.Background(), h, data, nil)
	if err != nil || !res.IsError || strings.Contains(text(t, res), key) || !strings.Contains(text(t, res), "token=[secret:api]") {
		t.Errorf("error = %q, %v", text(t, res), err)
	}
	// Even when escaping changed how the secret is written in the URL.
	const odd = "p@ss/w+rd w%rd"
	h = &catalog.HTTP{URL: catalog.Template(srv.URL + `/{{pathescape (secret "odd")}}`), Query: map[string]catalog.Template{"t": `{{secret "odd"}}`}}
	res, err = runHTTP(context.Background(), h, &Data{Secret: secrets(map[string]string{"odd": odd})}, nil)
	if got := text(t, res); err != nil || !res.IsError || strings.Contains(got, "ss/w") || strings.Contains(got, "w%25rd") || !strings.Contains(got, "/[secret:odd]?t=[secret:odd]") {
		t.Errorf("escaped secret: %q, %v", got, err)
	}
}

func TestHTTPNon2xxIsErrorWithExcerpt(t *testing.T) {
	body := "not here: " + strings.Repeat("é", 2000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, body)
	}))
	defer srv.Close()
	res, err := runHTTP(context.Background(), (&catalog.HTTP{URL: catalog.Template(srv.URL + "/missing")}), nil, nil)
	if err != nil || !res.IsError {
		t.Fatalf("404: %+v, %v", res, err)
	}
	got := text(t, res)
	if !strings.HasPrefix(got, "HTTP 404 Not Found:\nnot here: éé") || !strings.HasSuffix(got, "…") || len(got) > errorExcerpt+100 {
		t.Errorf("message (%d bytes) = %.80q…", len(got), got)
	}
	if !utf8.ValidString(got) {
		t.Error("the excerpt cut a character in half")
	}
}

func TestHTTPResponseSizeCap(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		for range 1000 {
			if _, err := w.Write(bytes.Repeat([]byte("0123456789"), 1000)); err != nil {
				return // the client stopped reading
			}
		}
	}))
	defer srv.Close()
	h := &catalog.HTTP{URL: catalog.Template(srv.URL), MaxBytes: 1000}
	resp, err := Fetch(context.Background(), h, nil)
	if err != nil || len(resp.Body) != 1000 || !resp.Truncated {
		t.Fatalf("fetch: %d bytes, truncated %v, %v", len(resp.Body), resp.Truncated, err)
	}
	res, err := runHTTP(context.Background(), h, nil, nil)
	if err != nil || res.IsError || !strings.HasSuffix(text(t, res), "[response truncated at 1000 bytes]") {
		t.Errorf("run: %+v, %v", res, err)
	}
	// The default cap applies to the 10 MB body.
	resp, err = Fetch(context.Background(), (&catalog.HTTP{URL: catalog.Template(srv.URL)}), nil)
	if err != nil || len(resp.Body) != catalog.DefaultHTTPMaxBytes || !resp.Truncated {
		t.Errorf("default cap: %d bytes, %v", len(resp.Body), err)
	}
}

func TestHTTPRedirects(t *testing.T) {
	// /hop/N redirects to /hop/N-1 until /hop/0, which answers.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/hop/"))
		if n > 0 {
			http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
			return
		}
		io.WriteString(w, "arrived")
	}))
	defer srv.Close()
	resp, err := Fetch(context.Background(), (&catalog.HTTP{URL: catalog.Template(srv.URL + "/hop/{{.args.n}}")}), &Data{Args: map[string]any{"n": catalog.MaxRedirects}})
	if err != nil || string(resp.Body) != "arrived" || resp.URL != srv.URL+"/hop/0" {
		t.Fatalf("%d redirects: %+v, %v", catalog.MaxRedirects, resp, err)
	}
	res, err := runHTTP(context.Background(), (&catalog.HTTP{URL: catalog.Template(srv.URL + "/hop/{{.args.n}}")}), &Data{Args: map[string]any{"n": catalog.MaxRedirects + 1}}, nil)
	if err != nil || !res.IsError || !strings.Contains(text(t, res), fmt.Sprintf("stopped after %d redirects", catalog.MaxRedirects)) {
		t.Errorf("%d redirects: %+v, %v", catalog.MaxRedirects+1, res, err)
	}

	// https → http is refused.
	check := newHTTPClient(nil, false).CheckRedirect
	from := httptest.NewRequest("GET", "https://example.com/a", nil)
	to := httptest.NewRequest("GET", "http://example.com/b", nil)
	if err := check(to, []*http.Request{from}); err == nil || !strings.Contains(err.Error(), "https to http") {
		t.Errorf("downgrade: %v", err)
	}
	if err := check(from, []*http.Request{to}); err != nil {
		t.Errorf("upgrade refused: %v", err)
	}
}

func TestHTTPRedirectToAnotherHostDropsSecrets(t *testing.T) {
	const key = "k-55aa66bb"
	seen := make(chan http.Header, 1)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Clone()
		io.WriteString(w, "other host")
	}))
	defer other.Close()
	var bodyHits atomic.Int32
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/post" {
			bodyHits.Add(1)
			http.Redirect(w, r, other.URL+"/landing", http.StatusTemporaryRedirect) // resends the body
			return
		}
		http.Redirect(w, r, other.URL+"/landing", http.StatusFound)
	}))
	defer first.Close()
	data := func() *Data { return &Data{Secret: secrets(map[string]string{"api": key})} }

	h := &catalog.HTTP{URL: catalog.Template(first.URL + "/get"), Headers: map[string]catalog.Template{"X-Api-Key": `{{secret "api"}}`, "X-Plain": "visible"}}
	res, err := runHTTP(context.Background(), h, data(), nil)
	if err != nil || res.IsError || text(t, res) != "other host" {
		t.Fatalf("run: %+v, %v", res, err)
	}
	hdr := <-seen
	if hdr.Get("X-Api-Key") != "" || hdr.Get("X-Plain") != "visible" {
		t.Errorf("the other host saw %v", hdr)
	}

	h = &catalog.HTTP{Method: "POST", URL: catalog.Template(first.URL + "/post"), Body: `{"key": "{{secret "api"}}"}`}
	res, err = runHTTP(context.Background(), h, data(), nil)
	if err != nil || !res.IsError || !strings.Contains(text(t, res), "body carrying a secret") || bodyHits.Load() != 1 {
		t.Errorf("body resent: %+v, %v", res, err)
	}
	select {
	case hdr := <-seen:
		t.Errorf("the other host was called with the secret body: %v", hdr)
	default:
	}
}

func TestHTTPTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	start := time.Now()
	res, err := runHTTP(context.Background(), (&catalog.HTTP{URL: catalog.Template(srv.URL), TimeoutMs: 200}), nil, nil)
	if err != nil || !res.IsError || !strings.Contains(text(t, res), "timed out after 200ms") {
		t.Fatalf("timeout: %+v, %v", res, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}

	// Cancellation is the caller's error, not a tool result.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, err := runHTTP(ctx, (&catalog.HTTP{URL: catalog.Template(srv.URL)}), nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestHTTPContentTypes(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/img":
			w.Header().Set("Content-Type", "image/png")
			w.Write(png)
		case "/bin":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write([]byte{0xff, 0xfe, 0x00, 0x01})
		case "/html":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, "<p>hi</p>")
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	defer srv.Close()
	run := func(path string) *mcp.CallToolResult {
		t.Helper()
		res, err := runHTTP(context.Background(), (&catalog.HTTP{URL: catalog.Template(srv.URL + path)}), nil, nil)
		if err != nil || res.IsError || len(res.Content) != 1 {
			t.Fatalf("%s: %+v, %v", path, res, err)
		}
		return res
	}
	if img, ok := run("/img").Content[0].(*mcp.ImageContent); !ok || !bytes.Equal(img.Data, png) || img.MIMEType != "image/png" {
		t.Errorf("image: %#v", run("/img").Content[0])
	}
	if er, ok := run("/bin").Content[0].(*mcp.EmbeddedResource); !ok || !bytes.Equal(er.Resource.Blob, []byte{0xff, 0xfe, 0x00, 0x01}) || er.Resource.URI != srv.URL+"/bin" {
		t.Errorf("binary: %#v", run("/bin").Content[0])
	}
	if got := text(t, run("/html")); got != "<p>hi</p>" {
		t.Errorf("html: %q", got)
	}
	if got := text(t, run("/empty")); got != "HTTP 204 No Content" {
		t.Errorf("empty: %q", got)
	}
	// A cut image is useless: a tool error, not a broken block.
	res, err := runHTTP(context.Background(), (&catalog.HTTP{URL: catalog.Template(srv.URL + "/img"), MaxBytes: 4}), nil, nil)
	if err != nil || !res.IsError || !strings.Contains(text(t, res), "maxBytes") {
		t.Errorf("cut image: %+v, %v", res, err)
	}
}

func TestHTTPConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	res, err := runHTTP(context.Background(), (&catalog.HTTP{URL: catalog.Template("http://" + addr + "/x")}), nil, nil)
	if err != nil || !res.IsError || !strings.Contains(text(t, res), "connection refused") || !strings.Contains(text(t, res), "GET http://"+addr+"/x") {
		t.Errorf("refused: %+v, %v", res, err)
	}
	// A URL that renders to something else than http(s) is refused before dialing.
	res, err = runHTTP(context.Background(), (&catalog.HTTP{URL: "{{.args.u}}"}), &Data{Args: map[string]any{"u": "file:///etc/passwd"}}, nil)
	if err != nil || !res.IsError || !strings.Contains(text(t, res), "not an http or https URL") {
		t.Errorf("file URL: %+v, %v", res, err)
	}
}

func TestHTTPRejectsUntrustedCertificate(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, "should not be reached")
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake error is expected
	srv.StartTLS()
	defer srv.Close()
	res, err := runHTTP(context.Background(), (&catalog.HTTP{URL: catalog.Template(srv.URL)}), nil, nil)
	if err != nil || !res.IsError || !strings.Contains(text(t, res), "certificate") {
		t.Errorf("untrusted certificate: %+v, %v", res, err)
	}
	if hits.Load() != 0 {
		t.Error("the request reached a server whose certificate is not trusted")
	}
}

func TestHTTPValidate(t *testing.T) {
	h := &catalog.HTTP{
		Method:    "FETCH",
		URL:       "ftp://{{.args.host}}/x",
		Query:     map[string]catalog.Template{"q": "{{"},
		Headers:   map[string]catalog.Template{"Bad Name": "x", "Content-Length": "3", "X-Ok": "{{end}}"},
		Body:      "{{if}}",
		TimeoutMs: -1,
		MaxBytes:  -1,
	}
	fields := map[string]bool{}
	for _, p := range ValidateHTTP(h, nil) {
		fields[p.Field] = true
	}
	for _, f := range []string{"method", "url", "query.q", "headers", "headers.Content-Length", "headers.X-Ok", "body", "timeoutMs", "maxBytes"} {
		if !fields[f] {
			t.Errorf("no problem reported on %s; got %v", f, fields)
		}
	}
	for _, u := range []catalog.Template{"", "not a url", "https:///nohost", "{{.args.x"} {
		if ps := ValidateHTTP(&catalog.HTTP{URL: u}, nil); len(ps) != 1 || ps[0].Field != "url" {
			t.Errorf("url %q: %v", u, ps)
		}
	}
	ok := &catalog.HTTP{Method: "delete", URL: "https://api.example.com/v1/{{pathescape .args.id}}", Headers: map[string]catalog.Template{"Accept": "application/json"}, TimeoutMs: 10, MaxBytes: 10}
	if ps := ValidateHTTP(ok, nil); len(ps) != 0 {
		t.Errorf("valid action rejected: %v", ps)
	}
	if ps := Validate(catalog.Action{HTTP: &catalog.HTTP{}}, nil); len(ps) != 1 || ps[0].Field != "http.url" {
		t.Errorf("spec: %v", ps)
	}
}

func TestActionsJSONShape(t *testing.T) {
	in := `{"command":{"argv":["git","log","-n","{{.args.n}}"],"dir":"/src","inheritEnv":["@default","GIT_*"],"env":{"TOKEN":"{{secret \"gh\"}}"},"stdin":"x","timeoutMs":5000,"maxOutputBytes":4096,"stream":"progress"}}`
	var s catalog.Action
	if err := json.Unmarshal([]byte(in), &s); err != nil {
		t.Fatal(err)
	}
	if out, _ := json.Marshal(s); string(out) != in {
		t.Errorf("command round trip:\n%s\n%s", out, in)
	}
	in = `{"http":{"method":"POST","url":"https://api.example.com/x","query":{"q":"{{.args.q}}"},"headers":{"Authorization":"Bearer {{secret \"gh\"}}"},"body":"{}","timeoutMs":1000,"maxBytes":2048}}`
	s = catalog.Action{}
	if err := json.Unmarshal([]byte(in), &s); err != nil {
		t.Fatal(err)
	}
	if out, _ := json.Marshal(s); string(out) != in {
		t.Errorf("http round trip:\n%s\n%s", out, in)
	}
}
