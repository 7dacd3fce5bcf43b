// Package oauthtest is a local OAuth 2.1 authorization server with an MCP
// server it protects, for tests of mcptray's sign-in to remote servers
// (upstream and the command line): written for mcptray, on go-sdk's
// resource-server pieces (RequireBearerToken, protected-resource
// metadata).
package oauthtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// World is a local OAuth 2.1 authorization server (metadata, dynamic
// registration, a consent step, the authorization code grant with PKCE
// S256 and the refresh grant, tokens for one resource) and an MCP server
// it protects (go-sdk's RequireBearerToken and protected-resource
// metadata), on 127.0.0.1.
type World struct {
	as, rs *httptest.Server
	// MCPURL is the protected MCP server's address (Streamable HTTP),
	// SSEURL the same server's over HTTP+SSE.
	MCPURL, SSEURL string

	mu       sync.Mutex
	clients  map[string][]string // client id → its redirect addresses
	consents map[string]authRequest
	codes    map[string]authRequest
	access   map[string]time.Time // access token → expiry
	refresh  map[string]bool      // refresh token → still good
	all      []string             // every token issued
	n        Counts
	// preregistered are client ids registered by hand: any loopback
	// port of their redirect address is taken (RFC 8252 §7.3).
	preregistered map[string]bool
	noDCR         bool     // no dynamic registration offered
	scopes        []string // asked for by the last authorization request
}

// Preregister registers a client by hand, as a person does at an
// authorization server without dynamic registration.
func (w *World) Preregister(clientID string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.preregistered[clientID] = true
}

// WithoutRegistration stops offering dynamic client registration.
func (w *World) WithoutRegistration() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.noDCR = true
}

// Scopes are the scopes the last authorization request asked for.
func (w *World) Scopes() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.scopes
}

// Counts is what happened, for the tests to compare.
type Counts struct {
	Opened         int // the browser was opened
	Registrations  int // clients registered
	Codes          int // authorization codes exchanged
	Refreshes      int // refresh grants answered with a token
	RefreshRefused int // refresh grants refused
	Refused        int // MCP requests refused (401)
}

// authRequest is an authorization request, from its consent to its code.
type authRequest struct {
	clientID, redirect, state, challenge, resource string
}

// New starts the servers, stopped when the test ends.
func New(t testing.TB) *World {
	w := &World{clients: map[string][]string{}, preregistered: map[string]bool{}, consents: map[string]authRequest{},
		codes: map[string]authRequest{}, access: map[string]time.Time{}, refresh: map[string]bool{}}
	asMux := http.NewServeMux()
	asMux.HandleFunc("GET /.well-known/oauth-authorization-server", w.metadata)
	asMux.HandleFunc("POST /register", w.register)
	asMux.HandleFunc("GET /authorize", w.authorize)
	asMux.HandleFunc("POST /consent", w.consent)
	asMux.HandleFunc("POST /token", w.token)
	w.as = httptest.NewServer(asMux)
	t.Cleanup(w.as.Close)

	srv := mcp.NewServer(&mcp.Implementation{Name: "protected"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	rsMux := http.NewServeMux()
	w.rs = httptest.NewServer(rsMux)
	t.Cleanup(func() {
		// A client still connected (an event stream open) would keep
		// Close waiting for its requests to end.
		w.rs.CloseClientConnections()
		w.rs.Close()
	})
	w.MCPURL, w.SSEURL = w.rs.URL+"/mcp", w.rs.URL+"/sse"
	get := func(*http.Request) *mcp.Server { return srv }
	for path, h := range map[string]http.Handler{"/mcp": mcp.NewStreamableHTTPHandler(get, nil), "/sse": mcp.NewSSEHandler(get, nil)} {
		metaPath := "/.well-known/oauth-protected-resource" + path
		rsMux.Handle(metaPath, auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource: w.rs.URL + path, AuthorizationServers: []string{w.as.URL}, ScopesSupported: []string{"mcp"}}))
		protect := auth.RequireBearerToken(w.verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: w.rs.URL + metaPath})
		rsMux.Handle(path, w.counting(protect(h)))
	}
	return w
}

// resource says whether r names one of the protected servers.
func (w *World) resource(r string) bool {
	return r == w.MCPURL || r == w.SSEURL
}

func (w *World) metadata(rw http.ResponseWriter, _ *http.Request) {
	meta := map[string]any{
		"issuer": w.as.URL, "authorization_endpoint": w.as.URL + "/authorize", "token_endpoint": w.as.URL + "/token",
		"registration_endpoint": w.as.URL + "/register", "response_types_supported": []string{"code"},
		"grant_types_supported":            []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none"},
		"scopes_supported": []string{"mcp", "offline_access"},
	}
	w.mu.Lock()
	if w.noDCR {
		delete(meta, "registration_endpoint")
	}
	w.mu.Unlock()
	writeJSON(rw, http.StatusOK, meta)
}

func (w *World) register(rw http.ResponseWriter, r *http.Request) {
	var meta struct {
		RedirectURIs []string `json:"redirect_uris"`
	}
	if err := json.NewDecoder(r.Body).Decode(&meta); err != nil || len(meta.RedirectURIs) == 0 {
		writeJSON(rw, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	id := rand.Text()
	w.mu.Lock()
	w.clients[id] = meta.RedirectURIs
	w.n.Registrations++
	w.mu.Unlock()
	writeJSON(rw, http.StatusCreated, map[string]any{"client_id": id, "redirect_uris": meta.RedirectURIs,
		"token_endpoint_auth_method": "none"})
}

// authorize checks the request and shows the consent page: "consent ID".
func (w *World) authorize(rw http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := authRequest{clientID: q.Get("client_id"), redirect: q.Get("redirect_uri"), state: q.Get("state"),
		challenge: q.Get("code_challenge"), resource: q.Get("resource")}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.scopes = strings.Fields(q.Get("scope"))
	switch {
	case !slices.Contains(w.clients[req.clientID], req.redirect) && !w.anyPort(req):
		http.Error(rw, "unknown client or redirect address", http.StatusBadRequest)
	case q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || req.challenge == "":
		http.Error(rw, "the code flow with PKCE S256 only", http.StatusBadRequest)
	case !w.resource(req.resource):
		http.Error(rw, fmt.Sprintf("resource %q is none of this server's", req.resource), http.StatusBadRequest)
	default:
		id := rand.Text()
		w.consents[id] = req
		fmt.Fprintf(rw, "consent %s", id)
	}
}

// anyPort says whether req's client was registered by hand and comes back
// to a loopback address; w.mu is held.
func (w *World) anyPort(req authRequest) bool {
	u, err := url.Parse(req.redirect)
	return err == nil && w.preregistered[req.clientID] && u.Scheme == "http" && u.Hostname() == "127.0.0.1"
}

// consent is the person's yes: back to the client with a code.
func (w *World) consent(rw http.ResponseWriter, r *http.Request) {
	w.mu.Lock()
	req, ok := w.consents[r.FormValue("id")]
	delete(w.consents, r.FormValue("id"))
	code := rand.Text()
	w.codes[code] = req
	w.mu.Unlock()
	if !ok {
		http.Error(rw, "no such consent", http.StatusBadRequest)
		return
	}
	back, _ := url.Parse(req.redirect)
	back.RawQuery = url.Values{"code": {code}, "state": {req.state}}.Encode()
	http.Redirect(rw, r, back.String(), http.StatusFound)
}

func (w *World) token(rw http.ResponseWriter, r *http.Request) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch r.FormValue("grant_type") {
	case "authorization_code":
		req, ok := w.codes[r.FormValue("code")]
		delete(w.codes, r.FormValue("code"))
		sum := sha256.Sum256([]byte(r.FormValue("code_verifier")))
		client, _, basic := r.BasicAuth()
		if !basic {
			client = r.FormValue("client_id")
		}
		if !ok || req.clientID != client || req.redirect != r.FormValue("redirect_uri") ||
			base64.RawURLEncoding.EncodeToString(sum[:]) != req.challenge || r.FormValue("resource") != req.resource {
			writeJSON(rw, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		w.n.Codes++
	case "refresh_token":
		if !w.refresh[r.FormValue("refresh_token")] {
			w.n.RefreshRefused++
			writeJSON(rw, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		delete(w.refresh, r.FormValue("refresh_token")) // rotated
		w.n.Refreshes++
	default:
		writeJSON(rw, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	access, refresh := rand.Text(), rand.Text()
	w.access[access] = time.Now().Add(time.Hour)
	w.refresh[refresh] = true
	w.all = append(w.all, access, refresh)
	writeJSON(rw, http.StatusOK, map[string]any{"access_token": access, "token_type": "Bearer",
		"expires_in": 3600, "refresh_token": refresh})
}

// verify is the protected server's check of a token.
func (w *World) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	exp, ok := w.access[token]
	if !ok || time.Now().After(exp) {
		return nil, fmt.Errorf("%w: unknown or expired", auth.ErrInvalidToken)
	}
	return &auth.TokenInfo{Expiration: exp}, nil
}

// counting counts the requests the protected server refuses.
func (w *World) counting(next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: rw}
		next.ServeHTTP(sw, r)
		if sw.status == http.StatusUnauthorized {
			w.mu.Lock()
			w.n.Refused++
			w.mu.Unlock()
		}
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Browser is the person's browser: it opens the authorization address,
// says yes on the consent page and goes back to mcptray with the answer,
// which tamper (when not nil) changes first.
func (w *World) Browser(tamper func(url.Values)) func(string) error {
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return func(authURL string) error {
		w.mu.Lock()
		w.n.Opened++
		w.mu.Unlock()
		resp, err := hc.Get(authURL)
		if err != nil {
			return err
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		id, ok := strings.CutPrefix(string(page), "consent ")
		if resp.StatusCode != http.StatusOK || !ok {
			return fmt.Errorf("the authorization page: %d %s", resp.StatusCode, page)
		}
		resp, err = hc.PostForm(w.as.URL+"/consent", url.Values{"id": {id}})
		if err != nil {
			return err
		}
		resp.Body.Close()
		back, err := url.Parse(resp.Header.Get("Location"))
		if err != nil || resp.StatusCode != http.StatusFound {
			return errors.New("the consent did not lead back to mcptray")
		}
		if tamper != nil {
			q := back.Query()
			tamper(q)
			back.RawQuery = q.Encode()
		}
		resp, err = hc.Get(back.String())
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
}

// ExpireAccess makes the server refuse every access token issued so far.
func (w *World) ExpireAccess() {
	w.mu.Lock()
	defer w.mu.Unlock()
	clear(w.access)
}

// RevokeAll makes the server refuse every token issued so far.
func (w *World) RevokeAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	clear(w.access)
	clear(w.refresh)
}

// Counts says what happened so far.
func (w *World) Counts() Counts {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// Issued is every token issued so far.
func (w *World) Issued() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.all...)
}

func writeJSON(rw http.ResponseWriter, status int, v any) {
	rw.Header().Set("Content-Type", "application/json")
	rw.WriteHeader(status)
	_ = json.NewEncoder(rw).Encode(v)
}
