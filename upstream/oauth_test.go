package upstream

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// TestOAuthSignInAndRefresh: a server behind a local authorization server
// is reached after the person signs in (the client registered
// dynamically, PKCE, the resource parameter); after its access token is
// refused, through the refresh grant alone; after mcptray restarts with a
// stored token past its expiry, through a refresh made before any request
// is refused; and after its refresh token is revoked, through a new
// sign-in under the same registration. No token reaches the log.
func TestOAuthSignInAndRefresh(t *testing.T) {
	w := newOAuthWorld(t)
	tokens := &memTokens{}
	var logged bytes.Buffer
	cfg := Config{Tokens: tokens, OpenBrowser: w.browser(nil),
		Logger: slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	u := catalog.Upstream{Name: "cloud", Remote: &catalog.UpstreamRemote{URL: w.mcpURL}}

	m := newManager(t, cfg, u)
	if got := call(t, m, "cloud", "echo", map[string]any{"text": "signed in"}); got != "signed in" {
		t.Errorf("echo: %q", got)
	}
	w.want(t, "after the sign-in", counts{opened: 1, registrations: 1, codes: 1})
	if s := tokens.signIn(t, "cloud"); s.Token.RefreshToken == "" || s.ClientID == "" || s.Resource != w.mcpURL {
		t.Errorf("kept: %+v", s)
	}

	w.expireAccess()
	if got := call(t, m, "cloud", "echo", map[string]any{"text": "refreshed"}); got != "refreshed" {
		t.Errorf("echo: %q", got)
	}
	w.want(t, "after the access token was refused", counts{opened: 1, registrations: 1, codes: 1, refreshes: 1})
	m.Close()

	// mcptray starts again; the kept token expired meanwhile.
	s := tokens.signIn(t, "cloud")
	s.Token.Expiry = time.Now().Add(-time.Minute)
	tokens.put(t, "cloud", s)
	refusedBefore := w.snapshot().refused
	m = newManager(t, cfg, u)
	if got := call(t, m, "cloud", "echo", map[string]any{"text": "restarted"}); got != "restarted" {
		t.Errorf("echo: %q", got)
	}
	w.want(t, "after a restart past the expiry", counts{opened: 1, registrations: 1, codes: 1, refreshes: 2, refused: refusedBefore})

	w.revokeAll()
	if got := call(t, m, "cloud", "echo", map[string]any{"text": "again"}); got != "again" {
		t.Errorf("echo: %q", got)
	}
	c := w.snapshot()
	w.want(t, "after the refresh token was revoked", counts{opened: 2, registrations: 1, codes: 2, refreshes: 2,
		refreshRefused: 1, refused: c.refused})

	for _, tok := range w.issued() {
		if strings.Contains(logged.String(), tok) {
			t.Errorf("a token is in the log:\n%s", logged.String())
		}
	}
}

// TestOAuthWrongStateRefused: an answer to the sign-in that carries
// another state than mcptray sent (a forged one) is refused, and no code
// is exchanged.
func TestOAuthWrongStateRefused(t *testing.T) {
	w := newOAuthWorld(t)
	cfg := Config{OpenBrowser: w.browser(func(q url.Values) { q.Set("state", "forged") })}
	_, err := Test(context.Background(), catalog.Upstream{Name: "cloud", Remote: &catalog.UpstreamRemote{URL: w.mcpURL}}, cfg)
	want := "the sign-in to cloud was refused: the answer did not carry the state mcptray sent"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want %q", err, want)
	}
	w.want(t, "after a forged answer", counts{opened: 1, registrations: 1, refused: w.snapshot().refused})
}

// TestOAuthWithoutBrowser: with no browser to open (the serving process),
// a server behind OAuth says how to sign in; a refused consent is said
// in words.
func TestOAuthWithoutBrowser(t *testing.T) {
	w := newOAuthWorld(t)
	u := catalog.Upstream{Name: "cloud", Remote: &catalog.UpstreamRemote{URL: w.mcpURL}}
	_, err := Test(context.Background(), u, Config{})
	if want := "cloud needs you to sign in: run `mcptray upstream signin cloud`"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
	_, err = Test(context.Background(), u, Config{OpenBrowser: w.browser(func(q url.Values) {
		q.Del("code")
		q.Set("error", "access_denied")
		q.Set("error_description", "the person said no")
	})})
	if want := "the sign-in to cloud was refused: access_denied: the person said no"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}

// memTokens is a TokenStore in memory.
type memTokens struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memTokens) LoadSignIn(_ context.Context, server string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.m[server]), nil
}

func (s *memTokens) SaveSignIn(_ context.Context, server string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[server] = bytes.Clone(data)
	return nil
}

func (s *memTokens) signIn(t *testing.T, server string) *signIn {
	t.Helper()
	data, _ := s.LoadSignIn(context.Background(), server)
	var si signIn
	if err := json.Unmarshal(data, &si); err != nil {
		t.Fatalf("kept sign-in of %s: %v", server, err)
	}
	return &si
}

func (s *memTokens) put(t *testing.T, server string, si *signIn) {
	t.Helper()
	data, err := json.Marshal(si)
	if err != nil {
		t.Fatal(err)
	}
	_ = s.SaveSignIn(context.Background(), server, data)
}

// oauthWorld is a local OAuth 2.1 authorization server (metadata, dynamic
// registration, a consent step, the authorization code grant with PKCE
// S256 and the refresh grant, tokens for one resource) and an MCP server
// it protects (go-sdk's RequireBearerToken and protected-resource
// metadata), on 127.0.0.1.
type oauthWorld struct {
	t      *testing.T
	as, rs *httptest.Server
	mcpURL string

	mu       sync.Mutex
	clients  map[string][]string // client id → its redirect addresses
	consents map[string]authRequest
	codes    map[string]authRequest
	access   map[string]time.Time // access token → expiry
	refresh  map[string]bool      // refresh token → still good
	all      []string             // every token issued
	n        counts
}

// counts is what happened, for the tests to compare.
type counts struct {
	opened         int // the browser was opened
	registrations  int // clients registered
	codes          int // authorization codes exchanged
	refreshes      int // refresh grants answered with a token
	refreshRefused int // refresh grants refused
	refused        int // MCP requests refused (401)
}

// authRequest is an authorization request, from its consent to its code.
type authRequest struct {
	clientID, redirect, state, challenge, resource string
}

func newOAuthWorld(t *testing.T) *oauthWorld {
	w := &oauthWorld{t: t, clients: map[string][]string{}, consents: map[string]authRequest{},
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
	t.Cleanup(w.rs.Close)
	w.mcpURL = w.rs.URL + "/mcp"
	metaPath := "/.well-known/oauth-protected-resource/mcp"
	rsMux.Handle(metaPath, auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: w.mcpURL, AuthorizationServers: []string{w.as.URL}, ScopesSupported: []string{"mcp"}}))
	protect := auth.RequireBearerToken(w.verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: w.rs.URL + metaPath})
	rsMux.Handle("/mcp", w.counting(protect(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))))
	return w
}

func (w *oauthWorld) metadata(rw http.ResponseWriter, _ *http.Request) {
	writeJSON(rw, http.StatusOK, map[string]any{
		"issuer": w.as.URL, "authorization_endpoint": w.as.URL + "/authorize", "token_endpoint": w.as.URL + "/token",
		"registration_endpoint": w.as.URL + "/register", "response_types_supported": []string{"code"},
		"grant_types_supported":            []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none"},
		"scopes_supported": []string{"mcp", "offline_access"},
	})
}

func (w *oauthWorld) register(rw http.ResponseWriter, r *http.Request) {
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
	w.n.registrations++
	w.mu.Unlock()
	writeJSON(rw, http.StatusCreated, map[string]any{"client_id": id, "redirect_uris": meta.RedirectURIs,
		"token_endpoint_auth_method": "none"})
}

// authorize checks the request and shows the consent page: "consent ID".
func (w *oauthWorld) authorize(rw http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	req := authRequest{clientID: q.Get("client_id"), redirect: q.Get("redirect_uri"), state: q.Get("state"),
		challenge: q.Get("code_challenge"), resource: q.Get("resource")}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case !slices.Contains(w.clients[req.clientID], req.redirect):
		http.Error(rw, "unknown client or redirect address", http.StatusBadRequest)
	case q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || req.challenge == "":
		http.Error(rw, "the code flow with PKCE S256 only", http.StatusBadRequest)
	case req.resource != w.mcpURL:
		http.Error(rw, fmt.Sprintf("resource %q, want %q", req.resource, w.mcpURL), http.StatusBadRequest)
	default:
		id := rand.Text()
		w.consents[id] = req
		fmt.Fprintf(rw, "consent %s", id)
	}
}

// consent is the person's yes: back to the client with a code.
func (w *oauthWorld) consent(rw http.ResponseWriter, r *http.Request) {
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

func (w *oauthWorld) token(rw http.ResponseWriter, r *http.Request) {
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
			base64.RawURLEncoding.EncodeToString(sum[:]) != req.challenge || r.FormValue("resource") != w.mcpURL {
			writeJSON(rw, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		w.n.codes++
	case "refresh_token":
		if !w.refresh[r.FormValue("refresh_token")] {
			w.n.refreshRefused++
			writeJSON(rw, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		delete(w.refresh, r.FormValue("refresh_token")) // rotated
		w.n.refreshes++
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
func (w *oauthWorld) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	exp, ok := w.access[token]
	if !ok || time.Now().After(exp) {
		return nil, fmt.Errorf("%w: unknown or expired", auth.ErrInvalidToken)
	}
	return &auth.TokenInfo{Expiration: exp}, nil
}

// counting counts the requests the protected server refuses.
func (w *oauthWorld) counting(next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: rw}
		next.ServeHTTP(sw, r)
		if sw.status == http.StatusUnauthorized {
			w.mu.Lock()
			w.n.refused++
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

// browser is the person's browser: it opens the authorization address,
// says yes on the consent page and goes back to mcptray with the answer,
// which tamper (when not nil) changes first.
func (w *oauthWorld) browser(tamper func(url.Values)) func(string) error {
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return func(authURL string) error {
		w.mu.Lock()
		w.n.opened++
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

// expireAccess makes the server refuse every access token issued so far.
func (w *oauthWorld) expireAccess() {
	w.mu.Lock()
	defer w.mu.Unlock()
	clear(w.access)
}

// revokeAll makes the server refuse every token issued so far.
func (w *oauthWorld) revokeAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	clear(w.access)
	clear(w.refresh)
}

func (w *oauthWorld) snapshot() counts {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

func (w *oauthWorld) issued() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.all...)
}

// want compares what happened; refused is compared only when wanted
// (the first sign-in's 401s depend on how many requests go-sdk sends).
func (w *oauthWorld) want(t *testing.T, when string, want counts) {
	t.Helper()
	got := w.snapshot()
	if want.refused == 0 {
		got.refused = 0
	}
	if got != want {
		t.Errorf("%s: %+v, want %+v", when, got, want)
	}
}

func writeJSON(rw http.ResponseWriter, status int, v any) {
	rw.Header().Set("Content-Type", "application/json")
	rw.WriteHeader(status)
	_ = json.NewEncoder(rw).Encode(v)
}
