package mcpcore_test

// Shared harness of the integration tests: a real SQLite file, the real
// engine watching it, a real HTTP server on 127.0.0.1, and two kinds of
// client — the official go-sdk client, and raw net/http requests for exact
// control of headers and bodies.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The two protocol eras served on one endpoint.
const (
	modern = "2026-07-28"
	legacy = "2025-11-25"
)

// eras lists both, for tests that run once per era.
var eras = []string{modern, legacy}

// Keys of the 2026 per-request _meta.
const (
	metaVersion      = "io.modelcontextprotocol/protocolVersion"
	metaCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaLogLevel     = "io.modelcontextprotocol/logLevel"
	metaSubscription = "io.modelcontextprotocol/subscriptionId"
)

// JSON-RPC error codes the tests expect.
const (
	codeParseError         = -32700
	codeInvalidRequest     = -32600
	codeInvalidParams      = -32602
	codeHeaderMismatch     = -32020
	codeMissingCapability  = -32021
	codeUnsupportedVersion = -32022
	codeLegacyNotFound     = -32002
)

// testCtx is a context bounded by testutil.Patience and by the test.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testutil.Patience)
	t.Cleanup(cancel)
	return ctx
}

// env is one engine serving a real database over real HTTP.
type env struct {
	st  *storage.Store
	eng *mcpcore.Engine
	srv *httptest.Server
	// url is the MCP endpoint.
	url string
	db  string
	ids atomic.Int64
}

// envOptions shape an env.
type envOptions struct {
	// auth turns bearer-token auth on (the store verifies tokens).
	auth bool
	// keepAlive is Options.KeepAlive (default 15 s, i.e. none in a test).
	keepAlive time.Duration
	// settings adjusts the stored settings before the engine starts.
	settings func(*catalog.Settings)
	// extra entries are imported over the conformance catalog.
	extra *catalog.Catalog
	// secrets and activity are Options.Secrets and Options.Activity.
	secrets  mcpcore.SecretReader
	activity mcpcore.ActivitySink
	// filePoll is Options.FilePollInterval (default 500 ms).
	filePoll time.Duration
	// db, when set, is the database file to use (e.g. one an earlier env
	// used), instead of a new one.
	db string
	// asker is Options.Asker.
	asker mcpcore.Asker
}

// conformanceCatalog is examples/conformance.json, parsed and validated.
func conformanceCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "examples", "conformance.json"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := mcpcore.ParseCatalog(b)
	if err != nil {
		t.Fatalf("examples/conformance.json: %v", err)
	}
	return c
}

// newEnv opens a database in a temp dir, imports the conformance catalog,
// starts the engine, its watcher and an HTTP server. Everything is torn
// down when the test ends.
func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	logger := testLogger(t) // first, so it stops logging after every other cleanup
	ctx := testCtx(t)
	db := o.db
	if db == "" {
		db = filepath.Join(t.TempDir(), "mcptray.db")
	}
	st, err := storage.Open(db, mcpcore.Validator{})
	if err != nil {
		t.Fatalf("storage.Open: %v", err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("closing the store: %v", err)
		}
	})
	if err := st.Import(ctx, conformanceCatalog(t), true); err != nil {
		t.Fatalf("importing the conformance catalog: %v", err)
	}
	if o.extra != nil {
		if err := st.Import(ctx, o.extra, false); err != nil {
			t.Fatalf("importing extra entries: %v", err)
		}
	}
	if o.settings != nil {
		set, err := st.Settings(ctx)
		if err != nil {
			t.Fatal(err)
		}
		o.settings(&set)
		if err := st.PutSettings(ctx, set); err != nil {
			t.Fatalf("PutSettings: %v", err)
		}
	}
	opts := mcpcore.Options{Version: "test", KeepAlive: o.keepAlive, Logger: logger,
		Secrets: o.secrets, Activity: o.activity, FilePollInterval: o.filePoll, Tasks: st, Asker: o.asker, Approvals: st}
	if o.auth {
		opts.Tokens = st
	}
	eng, err := mcpcore.New(ctx, st, openSecrets(t, st), opts)
	if err != nil {
		t.Fatalf("mcpcore.New: %v", err)
	}
	watchCtx, stopWatch := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		eng.Watch(watchCtx)
	}()
	t.Cleanup(func() { stopWatch(); <-watched })
	srv := httptest.NewServer(eng.Handler())
	t.Cleanup(func() {
		eng.Shutdown()
		srv.CloseClientConnections()
		srv.Close()
	})
	return &env{st: st, eng: eng, srv: srv, url: srv.URL + catalog.EndpointPath, db: db}
}

// testLogger sends the engine's log to the test log while the test runs.
func testLogger(t *testing.T) *slog.Logger {
	w := &testWriter{t: t}
	t.Cleanup(w.stop)
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

type testWriter struct {
	mu      sync.Mutex
	t       *testing.T
	stopped bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.t.Logf("engine: %s", bytes.TrimSpace(p))
	}
	return len(p), nil
}

func (w *testWriter) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
}

// origin is the server's own loopback origin.
func (e *env) origin() string { return e.srv.URL }

// waitSettings waits until the engine runs with settings that satisfy ok
// (they reach it asynchronously, through Changes and Sync).
func (e *env) waitSettings(t *testing.T, ok func(catalog.Settings) bool) {
	t.Helper()
	testutil.Eventually(t, "the settings change to reach the engine", func() bool { return ok(e.eng.Settings()) })
}

// ---- the official go-sdk client ----

// bearer adds a bearer token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// newClient is a go-sdk client with opts (nil for the defaults).
func newClient(opts *mcp.ClientOptions) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "mcpcore-integration-test", Version: "1"}, opts)
}

// connect opens a session of client (nil: a default client) speaking era —
// the client's default for modern, an explicit legacy version otherwise —
// closed when the test ends. token, when set, is sent as a bearer token.
func (e *env) connect(t *testing.T, era string, client *mcp.Client, token string) *mcp.ClientSession {
	t.Helper()
	if client == nil {
		client = newClient(nil)
	}
	transport := &mcp.StreamableClientTransport{Endpoint: e.url, MaxRetries: -1}
	if token != "" {
		transport.HTTPClient = &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}}
	}
	var sessionOpts *mcp.ClientSessionOptions
	if era == legacy {
		sessionOpts = &mcp.ClientSessionOptions{ProtocolVersion: legacy}
	}
	cs, err := client.Connect(testCtx(t), transport, sessionOpts)
	if err != nil {
		t.Fatalf("connecting the go-sdk client (%s): %v", era, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != era {
		t.Fatalf("negotiated protocol version %q, want %q", got, era)
	}
	return cs
}

// ---- raw JSON-RPC over net/http ----

// request is a JSON-RPC request ready to POST, with its id.
type request struct {
	*http.Request
	id int64
}

// as sends the request with token as its bearer token (none when empty).
func (r *request) as(token string) *request {
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	return r
}

// post builds a POST of body to the endpoint with the content headers every
// MCP request carries.
func (e *env) post(body []byte) *http.Request {
	r, err := http.NewRequest(http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		panic(err)
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	return r
}

// rpc builds a JSON-RPC request of method with params (nil means {}).
func (e *env) rpc(method string, params map[string]any) *request {
	if params == nil {
		params = map[string]any{}
	}
	id := e.ids.Add(1)
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		panic(err)
	}
	return &request{Request: e.post(body), id: id}
}

// modern builds a 2026-07-28 request: the per-request _meta (protocol
// version and, unless params' _meta has them, empty client capabilities)
// and the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers.
func (e *env) modern(method string, params map[string]any) *request {
	if params == nil {
		params = map[string]any{}
	}
	meta, _ := params["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	if _, ok := meta[metaVersion]; !ok {
		meta[metaVersion] = modern
	}
	if _, ok := meta[metaCapabilities]; !ok {
		meta[metaCapabilities] = map[string]any{}
	}
	params["_meta"] = meta
	r := e.rpc(method, params)
	r.Header.Set("MCP-Protocol-Version", modern)
	r.Header.Set("Mcp-Method", method)
	switch method {
	case "tools/call", "prompts/get":
		r.Header.Set("Mcp-Name", fmt.Sprint(params["name"]))
	case "resources/read":
		r.Header.Set("Mcp-Name", fmt.Sprint(params["uri"]))
	}
	return r
}

// legacy builds a request inside a 2025-11-25 session.
func (e *env) legacy(session, method string, params map[string]any) *request {
	r := e.rpc(method, params)
	r.Header.Set("Mcp-Session-Id", session)
	r.Header.Set("MCP-Protocol-Version", legacy)
	return r
}

// in builds a request of era: a 2026 request, or one inside the given
// 2025-11-25 session.
func (e *env) in(era, session, method string, params map[string]any) *request {
	if era == modern {
		return e.modern(method, params)
	}
	return e.legacy(session, method, params)
}

// initializeRequest is a raw 2025-11-25 initialize.
func (e *env) initializeRequest() *request {
	return e.rpc("initialize", map[string]any{
		"protocolVersion": legacy,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "raw", "version": "1"},
	})
}

// initialize opens a raw 2025-11-25 session and returns its id.
func (e *env) initialize(t *testing.T) string {
	t.Helper()
	rep := e.send(t, e.initializeRequest().Request)
	rep.result(t, nil)
	id := rep.header.Get("Mcp-Session-Id")
	if id == "" {
		t.Fatalf("initialize answered without an Mcp-Session-Id header")
	}
	n, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	if err != nil {
		t.Fatal(err)
	}
	r := e.post(n)
	r.Header.Set("Mcp-Session-Id", id)
	r.Header.Set("MCP-Protocol-Version", legacy)
	if rep := e.send(t, r); rep.status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: HTTP %d %s", rep.status, rep.body)
	}
	return id
}

// message is one JSON-RPC message read from a response.
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// isResponse reports whether m answers a request.
func (m message) isResponse() bool { return m.Method == "" && (m.Result != nil || m.Error != nil) }

// reply is a whole HTTP response: its status, headers and the JSON-RPC
// messages of its body in wire order (one JSON body, or SSE data events).
type reply struct {
	status int
	header http.Header
	body   []byte
	msgs   []message
}

var httpClient = &http.Client{Timeout: testutil.Patience}

// send performs r and reads the whole response.
func (e *env) send(t *testing.T, r *http.Request) *reply {
	t.Helper()
	resp, err := httpClient.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", r.Method, r.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the response: %v", err)
	}
	rep := &reply{status: resp.StatusCode, header: resp.Header, body: body}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for ev := range sseEvents(bytes.NewReader(body)) {
			if !ev.comment {
				rep.msgs = append(rep.msgs, decodeMessage(t, ev.data))
			}
		}
	} else if len(bytes.TrimSpace(body)) > 0 {
		rep.msgs = append(rep.msgs, decodeMessage(t, body))
	}
	return rep
}

func decodeMessage(t *testing.T, b []byte) message {
	t.Helper()
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not a JSON-RPC message: %v: %s", err, b)
	}
	return m
}

func (r *reply) String() string { return fmt.Sprintf("HTTP %d %s", r.status, bytes.TrimSpace(r.body)) }

// response is the reply's JSON-RPC response (its last message).
func (r *reply) response(t *testing.T) message {
	t.Helper()
	if len(r.msgs) == 0 || !r.msgs[len(r.msgs)-1].isResponse() {
		t.Fatalf("no JSON-RPC response in %v", r)
	}
	return r.msgs[len(r.msgs)-1]
}

// result requires a successful response and decodes its result into v
// (when v is not nil); it returns the raw result.
func (r *reply) result(t *testing.T, v any) json.RawMessage {
	t.Helper()
	m := r.response(t)
	if m.Error != nil || r.status != http.StatusOK {
		t.Fatalf("want a result, got %v", r)
	}
	if v != nil {
		if err := json.Unmarshal(m.Result, v); err != nil {
			t.Fatalf("decoding the result: %v: %s", err, m.Result)
		}
	}
	return m.Result
}

// rejected requires HTTP status and a JSON-RPC error body.
func (r *reply) rejected(t *testing.T, status int) *rpcError {
	t.Helper()
	if r.status != status {
		t.Fatalf("HTTP status %d, want %d: %v", r.status, status, r)
	}
	if ct := r.header.Get("Content-Type"); status >= 400 && !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q of an error, want application/json", ct)
	}
	m := r.response(t)
	if m.Error == nil {
		t.Fatalf("want a JSON-RPC error, got a result: %v", r)
	}
	return m.Error
}

// wantError requires a JSON-RPC error with code and HTTP status.
func (r *reply) wantError(t *testing.T, status int, code int64) *rpcError {
	t.Helper()
	re := r.rejected(t, status)
	if re.Code != code {
		t.Fatalf("JSON-RPC error code %d, want %d: %v", re.Code, code, r)
	}
	return re
}

// notifications returns the params of the reply's notifications of method,
// in wire order (all before the response, which response requires last).
func (r *reply) notifications(method string) []json.RawMessage {
	var out []json.RawMessage
	for _, m := range r.msgs {
		if m.Method == method {
			out = append(out, m.Params)
		}
	}
	return out
}

// toolList is a tools/list result.
type toolList struct {
	Tools      []listedTool `json:"tools"`
	TTLMs      int          `json:"ttlMs"`
	CacheScope string       `json:"cacheScope"`
}

type listedTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

func (l toolList) names() []string {
	var out []string
	for _, tool := range l.Tools {
		out = append(out, tool.Name)
	}
	return out
}

// listTools sends a 2026 tools/list, with token as a bearer token when set.
func (e *env) listTools(t *testing.T, token string) toolList {
	t.Helper()
	var l toolList
	e.send(t, e.modern("tools/list", nil).as(token).Request).result(t, &l)
	return l
}

// ---- SSE streams ----

// sseEvent is one server-sent event: a comment line, or a data payload.
type sseEvent struct {
	comment bool
	data    []byte
}

// sseEvents splits an SSE body into events.
func sseEvents(r io.Reader) func(yield func(sseEvent) bool) {
	return func(yield func(sseEvent) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
		var data []byte
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, ":"):
				if !yield(sseEvent{comment: true}) {
					return
				}
			case strings.HasPrefix(line, "data:"):
				if data != nil {
					data = append(data, '\n')
				}
				data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")...)
			case line == "":
				if data != nil {
					if !yield(sseEvent{data: data}) {
						return
					}
					data = nil
				}
			}
		}
	}
}

// stream is an open SSE response read event by event.
type stream struct {
	events <-chan sseEvent // closed at the end of the body
}

// open performs r, which must answer 200 with an event stream, and reads
// its events in the background until the body ends or the test does.
func (e *env) open(t *testing.T, r *http.Request) *stream {
	t.Helper()
	resp, err := (&http.Client{}).Do(r.WithContext(t.Context()))
	if err != nil {
		t.Fatalf("opening a stream: %v", err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("want an event stream, got HTTP %d %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	ch := make(chan sseEvent, 64)
	done := make(chan struct{})
	go func() {
		defer close(ch)
		for ev := range sseEvents(resp.Body) {
			select {
			case ch <- ev:
			case <-done:
				return
			}
		}
	}()
	t.Cleanup(func() { close(done); resp.Body.Close() })
	return &stream{events: ch}
}

// next returns the next event, or false when the stream ended; it fails
// the test when nothing comes within testutil.Patience.
func (s *stream) next(t *testing.T) (sseEvent, bool) {
	t.Helper()
	select {
	case ev, ok := <-s.events:
		return ev, ok
	case <-time.After(testutil.Patience):
		t.Fatalf("no event on the stream within %v", testutil.Patience)
		return sseEvent{}, false
	}
}

// nextMessage skips comments and returns the next JSON-RPC message; it
// fails the test when the stream ends first.
func (s *stream) nextMessage(t *testing.T) message {
	t.Helper()
	for {
		ev, ok := s.next(t)
		if !ok {
			t.Fatalf("the stream ended before the next message")
		}
		if !ev.comment {
			return decodeMessage(t, ev.data)
		}
	}
}

// ---- small JSON helpers ----

// field walks a decoded JSON value by object keys.
func field(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// decode unmarshals raw into a generic value.
func decode(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return v
}

// text returns the text of a tool result's only content block.
func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if res == nil || len(res.Content) != 1 {
		t.Fatalf("want one content block, got %+v", res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("want a text block, got %T", res.Content[0])
	}
	return tc.Text
}
