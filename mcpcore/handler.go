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

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EndpointPath is where the MCP endpoint is served.
const EndpointPath = "/mcp"

// Principal is who a request is from: a client token (by name), or nobody
// when auth is off.
type Principal struct {
	// Token is the client token's name; empty when auth is off.
	Token string
	// Tools, when non-nil, is the only tools this principal may list and call.
	Tools []string
}

// ErrUnknownToken is what a TokenVerifier returns for a token it does not know.
var ErrUnknownToken = errors.New("unknown or revoked token")

// TokenVerifier resolves a bearer token to its principal.
type TokenVerifier interface {
	VerifyToken(ctx context.Context, token string) (Principal, error)
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
		p, _ := r.Context().Value(principalKey{}).(Principal)
		return e.serverFor(p)
	}
	modern := mcp.NewStreamableHTTPHandler(serverFor, &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		PropagateRequestCancellation: true,
		Logger:                       e.sdkLog,
	})
	legacy := mcp.NewStreamableHTTPHandler(serverFor, &mcp.StreamableHTTPOptions{
		SessionTimeout: 30 * time.Minute,
		Logger:         e.sdkLog,
	})
	// go-sdk reads the token identity through its own context key, which
	// only its middleware sets; the token was verified already, so this
	// verifier just hands the principal over.
	withTokenInfo := auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		p, _ := ctx.Value(principalKey{}).(Principal)
		return &auth.TokenInfo{UserID: p.Token}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
	route := &router{e: e, modern: modern, legacy: legacy}
	authed := withTokenInfo(route)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != EndpointPath {
			e.reject(w, r, http.StatusNotFound, jsonrpc.CodeInvalidRequest, fmt.Sprintf("no MCP endpoint at %s; use %s", r.URL.Path, EndpointPath))
			return
		}
		if !e.guard(w, r) {
			return
		}
		if e.opts.Tokens == nil {
			route.ServeHTTP(w, r)
			return
		}
		p, ok := e.authenticate(w, r)
		if !ok {
			return
		}
		if !e.sessionInScope(r, p) {
			e.reject(w, r, http.StatusNotFound, jsonrpc.CodeInvalidRequest, "session not found: this client token's tool allowlist changed; initialize a new session")
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), principalKey{}, p))
		authed.ServeHTTP(w, r)
	})
}

// guard enforces the local-server posture: a loopback Host (DNS rebinding),
// and an Origin that is absent (native clients), the server's own, or on
// the allowlist. It answers CORS preflights for allowed origins.
func (e *Engine) guard(w http.ResponseWriter, r *http.Request) bool {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		host, port = r.Host, ""
	}
	if !isLoopbackName(host) {
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

func isLoopbackName(host string) bool {
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
	norm, err := normalizeOrigin(origin)
	if err != nil {
		return false
	}
	if h, p, err := net.SplitHostPort(strings.TrimPrefix(strings.TrimPrefix(norm, "http://"), "https://")); err == nil && isLoopbackName(h) && p == port {
		return true
	}
	for _, a := range e.currentSettings().AllowedOrigins {
		if n, err := normalizeOrigin(a); err == nil && n == norm {
			return true
		}
	}
	return false
}

// authenticate resolves the bearer token; on failure it answers 401 with a
// WWW-Authenticate challenge. The token itself is never logged.
func (e *Engine) authenticate(w http.ResponseWriter, r *http.Request) (Principal, bool) {
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !strings.EqualFold(scheme, "Bearer") || token == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcptray"`)
		e.reject(w, r, http.StatusUnauthorized, jsonrpc.CodeInvalidRequest, "missing bearer token: send Authorization: Bearer <token> (create one with `mcptray token create NAME`)")
		return Principal{}, false
	}
	p, err := e.opts.Tokens.VerifyToken(r.Context(), token)
	if err != nil {
		if !errors.Is(err, ErrUnknownToken) {
			e.log.Error("verifying a client token", "err", err)
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcptray", error="invalid_token"`)
		e.reject(w, r, http.StatusUnauthorized, jsonrpc.CodeInvalidRequest, "invalid bearer token: it is unknown or was revoked")
		return Principal{}, false
	}
	return p, true
}

// sessionInScope reports whether a 2025-11-25 session request belongs to
// the server of the token's current tool allowlist. go-sdk keeps a session
// on the server it was opened on, so after the allowlist changes the old
// session must end (404 makes the client initialize again); it is not
// closed here, so a token holder cannot close someone else's session.
func (e *Engine) sessionInScope(r *http.Request, p Principal) bool {
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
	sessionID := r.Header.Get("Mcp-Session-Id")
	if r.Method != http.MethodPost {
		if sessionID != "" && (r.Method == http.MethodGet || r.Method == http.MethodDelete) {
			jw := &jsonErrors{ResponseWriter: w}
			defer jw.finish()
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
	if !isModern(sessionID, r.Header.Get("MCP-Protocol-Version"), &msg, body) {
		rt.legacy.ServeHTTP(jw, r)
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
		ka := &keepAlive{ResponseWriter: jw}
		defer ka.start(r.Context(), rt.e.opts.KeepAlive)()
		rt.modern.ServeHTTP(ka, r)
		return
	}
	rt.modern.ServeHTTP(jw, r)
}

// reject answers a request turned away before it reaches go-sdk (Host,
// Origin, token, size, malformed JSON-RPC) and puts it in the activity log,
// where failed attempts matter most.
func (e *Engine) reject(w http.ResponseWriter, r *http.Request, status int, code int64, msg string) {
	writeError(w, status, nil, code, msg)
	if e.opts.Activity == nil {
		return
	}
	p, _ := r.Context().Value(principalKey{}).(Principal)
	e.opts.Activity.Record(Activity{
		Time:      time.Now(),
		Token:     p.Token,
		Method:    "HTTP " + r.Method,
		Target:    r.URL.Path,
		Outcome:   OutcomeError,
		ErrorCode: code,
		Detail:    fmt.Sprintf("%d %s: %s", status, http.StatusText(status), msg),
	})
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
