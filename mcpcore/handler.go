package mcpcore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/record"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TokenVerifier resolves a bearer token to its principal.
type TokenVerifier interface {
	VerifyToken(ctx context.Context, token string) (record.Principal, error)
}

// principalOf names who made a request: the client token's name, which
// binds request state and owns tasks ("" when auth is off).
func principalOf(extra *mcp.RequestExtra) string {
	if extra == nil || extra.TokenInfo == nil {
		return ""
	}
	return extra.TokenInfo.UserID
}

// principalKey carries the verified Principal in a request context.
type principalKey struct{}

// Handler returns the HTTP handler of the MCP endpoint: the guard (Host,
// Origin, bearer token, body limit, well-formed JSON-RPC), then the router
// sending each request to the stateless 2026-07-28 handler or the session
// 2025-11-25 handler. Every error it or go-sdk produces is a JSON-RPC error
// body.
func (e *Engine) Handler() http.Handler {
	serverFor := func(r *http.Request) *mcp.Server {
		p, _ := r.Context().Value(principalKey{}).(record.Principal)
		return e.serverFor(p)
	}
	// The guard checks the Host first, case-insensitively as RFC 9110 has
	// it; go-sdk's own check takes "LOCALHOST" for a foreign host.
	modern := mcp.NewStreamableHTTPHandler(serverFor, &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		PropagateRequestCancellation: true,
		DisableLocalhostProtection:   true,
		Logger:                       e.sdkLog,
	})
	legacy := mcp.NewStreamableHTTPHandler(serverFor, &mcp.StreamableHTTPOptions{
		SessionTimeout:             30 * time.Minute,
		DisableLocalhostProtection: true,
		Logger:                     e.sdkLog,
	})
	// go-sdk reads the token identity through its own context key, which
	// only its middleware sets; the token was verified already, so this
	// verifier just hands the principal over.
	withTokenInfo := auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		p, _ := ctx.Value(principalKey{}).(record.Principal)
		return &auth.TokenInfo{UserID: p.Token}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
	route := &router{e: e, modern: modern, legacy: legacy}
	authed := withTokenInfo(route)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != catalog.EndpointPath {
			e.reject(w, r, http.StatusNotFound, jsonrpc.CodeInvalidRequest, fmt.Sprintf("no MCP endpoint at %s; use %s", r.URL.Path, catalog.EndpointPath))
			return
		}
		if !e.guard(w, r) {
			return
		}
		if e.opts.Tokens == nil {
			authenticated(r.Context())
			route.ServeHTTP(w, r)
			return
		}
		p, credential, ok := e.authenticate(w, r)
		if !ok {
			return
		}
		authenticated(r.Context())
		if !e.sessionInScope(r, p) {
			e.reject(w, r, http.StatusNotFound, jsonrpc.CodeInvalidRequest, "session not found: this client token's tool allowlist changed; initialize a new session")
			return
		}
		ctx := context.WithValue(r.Context(), principalKey{}, p)
		r = r.WithContext(context.WithValue(ctx, credentialKey{}, credential))
		authed.ServeHTTP(w, r)
	})
}

// authenticatedKey carries, in a connection's context, what to call once a
// request on the connection passed the guard and the token check.
type authenticatedKey struct{}

// OnAuthenticated returns ctx (a connection's base context: see
// http.Server.ConnContext) carrying mark, which the handler calls each time
// a request on that connection passes the guard and the token check. A
// connection limiter uses it to tell clients from connections that never
// showed a valid token.
func OnAuthenticated(ctx context.Context, mark func()) context.Context {
	return context.WithValue(ctx, authenticatedKey{}, mark)
}

// authenticated calls the OnAuthenticated mark of ctx, if any.
func authenticated(ctx context.Context) {
	if mark, ok := ctx.Value(authenticatedKey{}).(func()); ok {
		mark()
	}
}

// guard enforces the local-server posture: a loopback Host (DNS rebinding),
// and an Origin that is absent (native clients), the server's own, or on
// the allowlist. It answers CORS preflights for allowed origins.
func (e *Engine) guard(w http.ResponseWriter, r *http.Request) bool {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		host, port = r.Host, ""
	}
	if !IsLoopbackHost(host) {
		e.reject(w, r, http.StatusForbidden, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Host %q is not allowed: this server only answers on a loopback address", r.Host))
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		if r.Method == http.MethodOptions {
			w.WriteHeader(http.StatusNoContent)
			return false
		}
		return true
	}
	if !e.originAllowed(origin, port) {
		e.reject(w, r, http.StatusForbidden, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Origin %q is not allowed; add it to the allowed origins in mcptray's settings", origin))
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, WWW-Authenticate")
	if r.Method == http.MethodOptions {
		h.Set("Access-Control-Allow-Methods", "POST, GET, DELETE")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*, Last-Event-ID")
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return false
	}
	return true
}

// IsLoopbackHost reports whether a Host header's host part (no port) names
// this computer: "localhost" in any case, or a loopback address. Every
// endpoint mcptray serves checks it, against DNS rebinding.
func IsLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// originAllowed accepts the server's own loopback origin (same port) and the
// configured allowlist, compared exactly after normalization.
func (e *Engine) originAllowed(origin, port string) bool {
	norm, err := catalog.NormalizeOrigin(origin)
	if err != nil {
		return false
	}
	if h, p, err := net.SplitHostPort(strings.TrimPrefix(strings.TrimPrefix(norm, "http://"), "https://")); err == nil && IsLoopbackHost(h) && p == port {
		return true
	}
	for _, a := range e.currentSettings().AllowedOrigins {
		if n, err := catalog.NormalizeOrigin(a); err == nil && n == norm {
			return true
		}
	}
	return false
}

// authenticate resolves the bearer token, returning its principal and the
// token itself (what a stream it opens is checked with again later); on
// failure it answers 401 with a WWW-Authenticate challenge. The token
// itself is never logged.
func (e *Engine) authenticate(w http.ResponseWriter, r *http.Request) (record.Principal, string, bool) {
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !strings.EqualFold(scheme, "Bearer") || token == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcptray"`)
		e.reject(w, r, http.StatusUnauthorized, jsonrpc.CodeInvalidRequest, "missing bearer token: send Authorization: Bearer <token> (create one with `mcptray token create NAME`)")
		return record.Principal{}, "", false
	}
	p, err := e.opts.Tokens.VerifyToken(r.Context(), token)
	if err != nil {
		if !errors.Is(err, record.ErrUnknownToken) {
			e.log.Error("verifying a client token", "err", err)
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcptray", error="invalid_token"`)
		e.reject(w, r, http.StatusUnauthorized, jsonrpc.CodeInvalidRequest, "invalid bearer token: it is unknown or was revoked")
		return record.Principal{}, "", false
	}
	return p, token, true
}

// sessionInScope reports whether a 2025-11-25 session request belongs to
// the server of the token's current tool allowlist. go-sdk keeps a session
// on the server it was opened on, so after the allowlist changes the old
// session must end (404 makes the client initialize again); it is not
// closed here, so a token holder cannot close someone else's session.
func (e *Engine) sessionInScope(r *http.Request, p record.Principal) bool {
	id := r.Header.Get("Mcp-Session-Id")
	if v := r.Header.Get("MCP-Protocol-Version"); id == "" || (v != "" && !slices.Contains(legacyVersions, v)) {
		return true
	}
	current := e.serverFor(p)
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, sc := range e.scopes {
		if sc.server == current {
			continue
		}
		for ss := range sc.server.Sessions() {
			if ss.ID() == id {
				return false
			}
		}
	}
	return true
}

// router reads and checks the body, then picks the era's handler.
type router struct {
	e      *Engine
	modern http.Handler
	legacy http.Handler
}

func (rt *router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w = newWriteDeadlines(w)
	sessionID := r.Header.Get("Mcp-Session-Id")
	p, _ := r.Context().Value(principalKey{}).(record.Principal)
	if r.Method != http.MethodPost {
		if sessionID != "" && (r.Method == http.MethodGet || r.Method == http.MethodDelete) {
			rt.e.sessionUsed(sessionID)
			jw := &jsonErrors{ResponseWriter: w}
			defer jw.finish()
			if r.Method == http.MethodGet {
				var release func()
				r, release = rt.e.holdStream(r, p, sessionID)
				defer release()
			}
			rt.legacy.ServeHTTP(jw, r)
			return
		}
		w.Header().Set("Allow", "POST")
		rt.e.reject(w, r, http.StatusMethodNotAllowed, jsonrpc.CodeInvalidRequest, fmt.Sprintf("%s is not supported here: send each JSON-RPC message as a POST (a 2025-11-25 session's GET/DELETE needs its Mcp-Session-Id)", r.Method))
		return
	}
	limit := rt.e.currentSettings().MaxBodyBytes
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			rt.e.reject(w, r, http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest, fmt.Sprintf("request body is larger than %d bytes", limit))
			return
		}
		rt.e.reject(w, r, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "reading the request body: "+err.Error())
		return
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		rt.e.reject(w, r, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not supported: send one message per POST")
		return
	}
	var msg message
	if err := json.Unmarshal(body, &msg); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			rt.e.reject(w, r, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "not a JSON-RPC message: "+err.Error())
			return
		}
		rt.e.reject(w, r, http.StatusBadRequest, jsonrpc.CodeParseError, "parse error: "+err.Error())
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	jw := &jsonErrors{ResponseWriter: w, id: msg.ID}
	defer jw.finish()
	version := r.Header.Get("MCP-Protocol-Version")
	if !isModern(sessionID, version, &msg, body) {
		rt.serveLegacy(jw, r, p, sessionID, msg.Method)
		return
	}
	if version != "" && version < modernVersion && !slices.Contains(mcp.SupportedProtocolVersions(), version) {
		// go-sdk answers an unknown version older than 2026-07-28 in plain
		// text; the client is owed -32022 and the versions it may use (or
		// -32020 when the body names another version than the header).
		if mv, ok := metaVersion(body); ok && mv != version {
			writeError(jw, http.StatusBadRequest, msg.ID, mcp.CodeHeaderMismatch, fmt.Sprintf("the MCP-Protocol-Version header %q does not match the request's _meta protocolVersion %q", version, mv))
			return
		}
		writeUnsupportedVersion(jw, msg.ID, version)
		return
	}
	if isTaskMethod(msg.Method) {
		// go-sdk checks Mcp-Name for tools, prompts and resources only;
		// the tasks extension requires it to be the task id.
		if err := checkTaskName(r.Header.Values("Mcp-Name"), body); err != "" {
			writeError(jw, http.StatusBadRequest, msg.ID, mcp.CodeHeaderMismatch, err)
			return
		}
	}
	if msg.Method == "subscriptions/listen" {
		var release func()
		r, release = rt.e.holdStream(r, p, "")
		defer release()
		ka := &keepAlive{ResponseWriter: jw}
		defer ka.start(r.Context(), rt.e.opts.KeepAlive)()
		rt.modern.ServeHTTP(ka, r)
		return
	}
	rt.modern.ServeHTTP(jw, r)
}

// serveLegacy serves a 2025-11-25 POST: a request in a session notes the
// session's use; an initialize first makes room among the token's sessions
// (maxSessionsPerToken), and the session it opens is recorded, so it ends
// when the token is revoked or changed.
func (rt *router) serveLegacy(w http.ResponseWriter, r *http.Request, p record.Principal, sessionID, method string) {
	if sessionID != "" {
		rt.e.sessionUsed(sessionID)
		rt.legacy.ServeHTTP(w, r)
		return
	}
	if method != "initialize" {
		rt.legacy.ServeHTTP(w, r)
		return
	}
	rt.e.makeRoomForSession(p, rt.e.currentSettings().MaxSessionsPerToken)
	rt.legacy.ServeHTTP(w, r)
	if id := w.Header().Get("Mcp-Session-Id"); id != "" {
		rt.e.sessionOpened(id, r, p)
	}
}

// writeUnsupportedVersion answers a request for a protocol version this
// server does not speak: -32022 with the versions it does (HTTP 400).
func writeUnsupportedVersion(w http.ResponseWriter, id json.RawMessage, requested string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"error": map[string]any{
			"code":    mcp.CodeUnsupportedProtocolVersion,
			"message": fmt.Sprintf("protocol version %q is not supported; use one of %s", requested, strings.Join(mcp.SupportedProtocolVersions(), ", ")),
			"data":    mcp.UnsupportedProtocolVersionData{Supported: mcp.SupportedProtocolVersions(), Requested: requested},
		},
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(body)
}

// reject answers a request turned away before it reaches go-sdk (Host,
// Origin, token, size, malformed JSON-RPC) and puts it in the activity log,
// where failed attempts matter most.
func (e *Engine) reject(w http.ResponseWriter, r *http.Request, status int, code int64, msg string) {
	writeError(w, status, nil, code, msg)
	if e.opts.Activity == nil {
		return
	}
	p, _ := r.Context().Value(principalKey{}).(record.Principal)
	e.opts.Activity.Record(record.Activity{
		Time:      time.Now(),
		Token:     p.Token,
		Method:    record.RefusedMethodPrefix + r.Method,
		Target:    r.URL.Path,
		Outcome:   record.OutcomeError,
		ErrorCode: code,
		Detail:    fmt.Sprintf("%d %s: %s", status, http.StatusText(status), msg),
	})
}

// WriteHTTPError answers a request with status and a JSON-RPC error (id
// null) saying msg, as the engine answers a request it turns away before
// reading it: for a handler in front of the engine, so that clients get
// one kind of error body whoever refused them.
func WriteHTTPError(w http.ResponseWriter, status int, code int64, msg string) {
	writeError(w, status, nil, code, msg)
}

// writeError writes a JSON-RPC error response with an HTTP status.
func writeError(w http.ResponseWriter, status int, id json.RawMessage, code int64, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"error":   map[string]any{"code": code, "message": msg},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Del("Content-Length")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// jsonErrors turns go-sdk's plain-text HTTP errors into JSON-RPC error
// bodies, so clients always get a parseable error (the 2026 era detection
// depends on it).
type jsonErrors struct {
	http.ResponseWriter
	id      json.RawMessage
	status  int
	capture *bytes.Buffer
}

func (j *jsonErrors) WriteHeader(status int) {
	if status >= 400 && !strings.HasPrefix(j.Header().Get("Content-Type"), "application/json") && j.capture == nil {
		j.status = status
		j.capture = &bytes.Buffer{}
		return
	}
	j.ResponseWriter.WriteHeader(status)
}

func (j *jsonErrors) Write(p []byte) (int, error) {
	if j.capture != nil {
		return j.capture.Write(p)
	}
	return j.ResponseWriter.Write(p)
}

// Flush forwards flushes, which SSE needs.
func (j *jsonErrors) Flush() {
	if j.capture == nil {
		_ = http.NewResponseController(j.ResponseWriter).Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (j *jsonErrors) Unwrap() http.ResponseWriter { return j.ResponseWriter }

// finish writes the captured plain-text error as JSON-RPC.
func (j *jsonErrors) finish() {
	if j.capture == nil {
		return
	}
	code := int64(jsonrpc.CodeInvalidRequest)
	if j.status >= 500 {
		code = jsonrpc.CodeInternalError
	}
	msg := strings.TrimSpace(j.capture.String())
	if msg == "" {
		msg = http.StatusText(j.status)
	}
	w := j.ResponseWriter
	j.capture = nil
	writeError(w, j.status, j.id, code, msg)
}

// WriteTimeout is the longest one write of a response may block on a
// client that does not read. It is no bound on how long a response lasts:
// the HTTP server's WriteTimeout covers a response from its request's
// headers on, which would cut listen streams, session GET streams and
// calls that wait for a person; so every routed request drops that
// deadline and each of its writes gets one of its own instead.
const WriteTimeout = 30 * time.Second

// writeDeadlines gives each write of a response a deadline of WriteTimeout
// (renewed at most every quarter of it, so a busy stream does not pay a
// timer update per write).
type writeDeadlines struct {
	http.ResponseWriter
	rc   *http.ResponseController
	mu   sync.Mutex
	last time.Time
}

func newWriteDeadlines(w http.ResponseWriter) *writeDeadlines {
	d := &writeDeadlines{ResponseWriter: w, rc: http.NewResponseController(w)}
	_ = d.rc.SetWriteDeadline(time.Time{})
	return d
}

// extend renews the write deadline before a write.
func (d *writeDeadlines) extend() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if now := time.Now(); now.Sub(d.last) >= WriteTimeout/4 {
		_ = d.rc.SetWriteDeadline(now.Add(WriteTimeout))
		d.last = now
	}
}

func (d *writeDeadlines) WriteHeader(status int) {
	d.extend()
	d.ResponseWriter.WriteHeader(status)
}

func (d *writeDeadlines) Write(p []byte) (int, error) {
	d.extend()
	return d.ResponseWriter.Write(p)
}

// Flush forwards flushes, which SSE needs.
func (d *writeDeadlines) Flush() {
	d.extend()
	_ = d.rc.Flush()
}

// Unwrap lets http.ResponseController reach the real writer.
func (d *writeDeadlines) Unwrap() http.ResponseWriter { return d.ResponseWriter }

// keepAlive writes an SSE comment on a listen stream that has been quiet
// for a while, so proxies and clients keep the connection open.
type keepAlive struct {
	http.ResponseWriter
	mu      sync.Mutex
	started bool
	last    time.Time
}

func (k *keepAlive) Write(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.started, k.last = true, time.Now()
	return k.ResponseWriter.Write(p)
}

func (k *keepAlive) Flush() {
	k.mu.Lock()
	defer k.mu.Unlock()
	_ = http.NewResponseController(k.ResponseWriter).Flush()
}

func (k *keepAlive) Unwrap() http.ResponseWriter { return k.ResponseWriter }

// start begins the keep-alive ticker; the returned func stops it and must
// run before the handler returns.
func (k *keepAlive) start(ctx context.Context, every time.Duration) func() {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				k.mu.Lock()
				if k.started && time.Since(k.last) >= every {
					_, _ = io.WriteString(k.ResponseWriter, ":\n\n")
					_ = http.NewResponseController(k.ResponseWriter).Flush()
					k.last = time.Now()
				}
				k.mu.Unlock()
			}
		}
	}()
	return func() { cancel(); <-done }
}

// isTaskMethod reports whether a method is one of the tasks extension's.
func isTaskMethod(method string) bool {
	return method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel"
}

// checkTaskName checks that a tasks/* request's Mcp-Name header (surrounding
// whitespace aside) is its params.taskId; it returns the problem, or "".
func checkTaskName(values []string, body []byte) string {
	var m struct {
		Params struct {
			TaskID any `json:"taskId"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &m)
	id, _ := m.Params.TaskID.(string)
	switch {
	case len(values) == 0:
		return "missing Mcp-Name header: a tasks request must carry Mcp-Name: <taskId>"
	case len(values) > 1:
		return "more than one Mcp-Name header"
	case strings.TrimSpace(values[0]) != id:
		return fmt.Sprintf("the Mcp-Name header %q does not match params.taskId %q", strings.TrimSpace(values[0]), id)
	}
	return ""
}
