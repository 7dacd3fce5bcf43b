package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// TokenStore keeps mcptray's sign-ins to remote servers behind OAuth (the
// tokens and the client registration), by server name, as opaque bytes
// that hold credentials: storage.Secrets keeps them in the secret store.
type TokenStore interface {
	// LoadSignIn returns what SaveSignIn stored for server; nil, nil when
	// nothing is.
	LoadSignIn(ctx context.Context, server string) ([]byte, error)
	// SaveSignIn replaces what is stored for server.
	SaveSignIn(ctx context.Context, server string, data []byte) error
}

// DefaultSignInTimeout bounds the wait for a person signing in in their
// browser: time to type a password and a second factor.
const DefaultSignInTimeout = 5 * time.Minute

// authTimeout bounds each request to an authorization server.
const authTimeout = 30 * time.Second

// signIn is what is kept of a sign-in to one server: enough to refresh its
// token, and to sign in again under the same client registration.
type signIn struct {
	// Resource is the server's address the sign-in is for; a record for
	// another address (the server was changed) is not used.
	Resource     string           `json:"resource"`
	ClientID     string           `json:"clientId"`
	ClientSecret string           `json:"clientSecret,omitempty"`
	AuthStyle    oauth2.AuthStyle `json:"authStyle,omitempty"`
	AuthURL      string           `json:"authUrl"`
	TokenURL     string           `json:"tokenUrl"`
	// RedirectURL is the loopback address the client was registered with;
	// a dynamic registration is reused only while that port is free.
	RedirectURL string   `json:"redirectUrl"`
	Scopes      []string `json:"scopes,omitempty"`
	// Registered: the client was registered dynamically by mcptray (not a
	// client id the person set).
	Registered bool          `json:"registered,omitempty"`
	Token      *oauth2.Token `json:"token"`
}

func (s *signIn) config() *oauth2.Config {
	return &oauth2.Config{
		ClientID: s.ClientID, ClientSecret: s.ClientSecret, Scopes: s.Scopes, RedirectURL: s.RedirectURL,
		Endpoint: oauth2.Endpoint{AuthURL: s.AuthURL, TokenURL: s.TokenURL, AuthStyle: s.AuthStyle},
	}
}

// accessToken is the token a request carried, "" for none.
func (s *signIn) accessToken() string {
	if s == nil || s.Token == nil {
		return ""
	}
	return s.Token.AccessToken
}

// ForgetTokens drops the tokens of the sign-in tokens keeps for server and
// keeps its client registration: the next start signs in anew, as the same
// client (`mcptray upstream signin`).
func ForgetTokens(ctx context.Context, tokens TokenStore, server string) error {
	data, err := tokens.LoadSignIn(ctx, server)
	if err != nil || data == nil {
		return err
	}
	var s signIn
	if json.Unmarshal(data, &s) != nil {
		return nil // unreadable: a start signs in anew anyway
	}
	s.Token = nil
	if data, err = json.Marshal(&s); err != nil {
		return err
	}
	return tokens.SaveSignIn(ctx, server, data)
}

// oauthTransport signs in the requests of a transport with no OAuth hook
// of its own (HTTP+SSE) as go-sdk's Streamable HTTP transport does with an
// auth.OAuthHandler: the token on each request, and on a refusal
// Authorize, then the request once again.
type oauthTransport struct {
	base http.RoundTripper
	h    *oauthHandler
}

// RoundTrip sends req with the token, signing in when it is refused.
func (t *oauthTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	sent, resp, err := t.send(req, req.Body)
	if err != nil || resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden ||
		req.Body != nil && req.GetBody == nil { // a body that cannot be sent again
		return resp, err
	}
	if err := t.h.Authorize(req.Context(), sent, resp); err != nil {
		return nil, err
	}
	var body io.ReadCloser
	if req.GetBody != nil {
		if body, err = req.GetBody(); err != nil {
			return nil, err
		}
	}
	_, resp, err = t.send(req, body)
	return resp, err
}

// send sends a copy of req with body and the token, if any.
func (t *oauthTransport) send(req *http.Request, body io.ReadCloser) (*http.Request, *http.Response, error) {
	r := req.Clone(req.Context())
	r.Body = body
	ts, err := t.h.TokenSource(req.Context())
	var tok *oauth2.Token
	if err == nil && ts != nil {
		tok, err = ts.Token()
	}
	if err != nil {
		if body != nil {
			body.Close()
		}
		return nil, nil, err
	}
	if tok != nil {
		r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	}
	resp, err := t.base.RoundTrip(r)
	return r, resp, err
}

// signInError is a sign-in that failed, said in words: the HTTP 401 that
// led to it says less.
type signInError struct{ err error }

func (e *signInError) Error() string { return e.err.Error() }
func (e *signInError) Unwrap() error { return e.err }

// errNotOAuth: the server refused the request without naming an
// authorization server; its 401 is said as it is.
var errNotOAuth = errors.New("the server asks for no OAuth sign-in")

// oauthHandler signs mcptray in to one remote server and keeps it signed
// in, for go-sdk's Streamable HTTP transport (auth.OAuthHandler): the
// transport asks it for a token before each request, and calls Authorize
// when the server answers 401 or 403. The flow itself (discovery through
// the server's protected-resource metadata and the authorization server's
// metadata, dynamic client registration, the authorization code with PKCE
// and the resource parameter, the state and issuer checks) is go-sdk's
// auth.AuthorizationCodeHandler; this adds what a desktop app needs: the
// loopback redirect and the browser, the tokens kept and refreshed across
// restarts, the registration reused, and words.
type oauthHandler struct {
	name string
	url  string
	opts *catalog.UpstreamOAuth // nil: as the server asks
	cfg  *Config
	log  *slog.Logger
	// client reaches the authorization server: none of the server's own
	// headers go there.
	client *http.Client

	// signing lets one refresh or sign-in run at a time: the requests
	// refused together wait for it and then use its token.
	signing sync.Mutex

	mu     sync.Mutex
	loaded bool
	saved  *signIn // nil: not signed in
	// failed is this start's failed sign-in: go-sdk tries a second first
	// request (initialize after server/discover), which must not open the
	// browser again.
	failed error
}

// newStart lets the next refusal lead to a sign-in again, and reads the
// stored sign-in again: another process may have signed in or out.
func (h *oauthHandler) newStart() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failed = nil
	if h.cfg.Tokens != nil {
		h.loaded = false
	}
}

func newOAuthHandler(name string, r *catalog.UpstreamRemote, cfg *Config, log *slog.Logger) *oauthHandler {
	return &oauthHandler{name: name, url: r.URL, opts: r.OAuth, cfg: cfg, log: log,
		client: &http.Client{Timeout: authTimeout}}
}

// TokenSource gives the transport the kept token, if any.
func (h *oauthHandler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.loaded {
		// Read once a start. A store that fails (a locked keyring) must
		// not stop a server that asks for no sign-in: the request goes
		// without a token, and a refusal reads the store again.
		s, err := h.load(ctx)
		if err != nil {
			h.log.Warn("upstream sign-in: the kept one could not be read", "server", h.name, "error", err)
		}
		h.saved, h.loaded = s, true
	}
	if h.saved == nil {
		// A nil interface, not a nil *oauthHandler: no Authorization header.
		return nil, nil
	}
	return h, nil
}

// Token returns the access token, refreshed first when it expires within
// oauth2's margin. A refresh token the authorization server no longer
// takes leaves the request without a token: its 401 then leads to
// Authorize and a new sign-in.
func (h *oauthHandler) Token() (*oauth2.Token, error) {
	h.mu.Lock()
	s := h.saved
	h.mu.Unlock()
	if s == nil || s.Token == nil {
		return nil, nil
	}
	if s.Token.Valid() {
		return s.Token, nil
	}
	if s.Token.RefreshToken == "" {
		return nil, nil
	}
	s, err := h.refresh(context.Background(), s.accessToken())
	if err != nil {
		return nil, err
	}
	return s.Token, nil
}

// Authorize is called with a request the server refused: a token another
// request got in the meantime (or another mcptray process: the CLI's
// sign-in) is used, else the token is refreshed, else the person signs
// in again.
func (h *oauthHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	sent := strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")
	if resp.StatusCode == http.StatusUnauthorized {
		if s, err := h.refresh(ctx, sent); err == nil && s != nil {
			drain(resp)
			return nil
		}
	}
	return h.signIn(ctx, req, resp, sent)
}

// refresh returns a sign-in whose token is not stale (the access token a
// refused or expired request had), refreshing it if need be; nil, nil
// when there is no refresh token to use, or the authorization server
// refused it (a new sign-in is needed).
func (h *oauthHandler) refresh(ctx context.Context, stale string) (*signIn, error) {
	h.signing.Lock()
	defer h.signing.Unlock()
	cur, err := h.latest(ctx, stale)
	if err != nil || cur == nil {
		return nil, err
	}
	if cur.accessToken() != stale && cur.Token.Valid() {
		return cur, nil
	}
	if cur.Token == nil || cur.Token.RefreshToken == "" {
		return nil, nil
	}
	// oauth2 refreshes a token it sees expired: this one was refused, or
	// is about to expire.
	t := *cur.Token
	t.Expiry = time.Unix(1, 0)
	tok, err := cur.config().TokenSource(context.WithValue(ctx, oauth2.HTTPClient, h.client), &t).Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.ErrorCode != "" {
			// Refused (invalid_grant: revoked or expired): the next
			// request goes without a token, and its 401 to a sign-in.
			h.log.Info("upstream sign-in: the refresh was refused; a new sign-in is needed", "server", h.name, "error", re.ErrorCode)
			next := *cur
			t := *cur.Token
			t.RefreshToken = ""
			next.Token = &t
			h.keep(ctx, &next)
			return nil, nil
		}
		return nil, &signInError{fmt.Errorf("renewing the sign-in to %s: %w", h.name, err)}
	}
	next := *cur
	next.Token = tok
	h.keep(ctx, &next)
	h.log.Debug("upstream sign-in renewed", "server", h.name, "until", tok.Expiry)
	return &next, nil
}

// latest is the sign-in to use after stale was refused: the one in
// memory, or the stored one when that is newer (another process signed in
// or refreshed).
func (h *oauthHandler) latest(ctx context.Context, stale string) (*signIn, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.saved.accessToken() == stale && h.cfg.Tokens != nil {
		s, err := h.load(ctx)
		if err != nil {
			return nil, err
		}
		if s != nil {
			h.saved = s
		}
	}
	return h.saved, nil
}

// load reads the stored sign-in; h.mu is held.
func (h *oauthHandler) load(ctx context.Context) (*signIn, error) {
	if h.cfg.Tokens == nil {
		return h.saved, nil
	}
	data, err := h.cfg.Tokens.LoadSignIn(ctx, h.name)
	if err != nil {
		return nil, fmt.Errorf("reading the sign-in to %s: %w", h.name, err)
	}
	if data == nil {
		return nil, nil
	}
	var s signIn
	if err := json.Unmarshal(data, &s); err != nil {
		h.log.Warn("upstream sign-in: the stored one is not readable; signing in anew", "server", h.name)
		return nil, nil
	}
	if s.Resource != h.url {
		return nil, nil // for another address of the server
	}
	return &s, nil
}

// keep makes s the sign-in, in memory and in the store. A store that
// fails is logged: the session goes on with the token in memory.
func (h *oauthHandler) keep(ctx context.Context, s *signIn) {
	h.mu.Lock()
	h.saved, h.loaded = s, true
	h.mu.Unlock()
	if h.cfg.Tokens == nil {
		return
	}
	data, err := json.Marshal(s)
	if err == nil {
		err = h.cfg.Tokens.SaveSignIn(ctx, h.name, data)
	}
	if err != nil {
		h.log.Warn("upstream sign-in: could not keep it in the secret store; it lasts until mcptray stops", "server", h.name, "error", err)
	}
}

// signIn runs the authorization code flow in the person's browser, once
// per start.
func (h *oauthHandler) signIn(ctx context.Context, req *http.Request, resp *http.Response, sent string) error {
	h.signing.Lock()
	defer h.signing.Unlock()
	if cur, err := h.latest(ctx, sent); err == nil && cur != nil && cur.accessToken() != sent && cur.Token.Valid() {
		drain(resp) // signed in while this request waited
		return nil
	}
	h.mu.Lock()
	failed := h.failed
	h.mu.Unlock()
	if failed != nil {
		drain(resp)
		return failed
	}
	err := h.authorize(ctx, req, resp)
	var words *signInError
	if errors.As(err, &words) {
		h.mu.Lock()
		h.failed = words
		h.mu.Unlock()
	}
	return err
}

// authorize is signIn's flow, with signing held.
func (h *oauthHandler) authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	if err := h.asksForOAuth(ctx, resp); err != nil {
		drain(resp)
		return err
	}
	if h.cfg.OpenBrowser == nil {
		drain(resp)
		return &signInError{fmt.Errorf("%s needs you to sign in: run `mcptray upstream signin %s`", h.name, h.name)}
	}
	h.mu.Lock()
	prev := h.saved
	h.mu.Unlock()
	ln, reuse, err := listenLoopback(prev, h.opts)
	if err != nil {
		drain(resp)
		return &signInError{fmt.Errorf("the sign-in to %s needs a port on 127.0.0.1 for the browser's answer: %w", h.name, err)}
	}
	defer ln.Close()
	redirect := "http://" + ln.Addr().String() + "/callback"
	var got *signIn
	acfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: h.fetcher(ln),
		RequestRefreshToken:      true,
		Client:                   h.client,
		NewTokenSource: func(_ context.Context, c *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
			got = &signIn{Resource: h.url, ClientID: c.ClientID, ClientSecret: c.ClientSecret,
				AuthStyle: c.Endpoint.AuthStyle, AuthURL: c.Endpoint.AuthURL, TokenURL: c.Endpoint.TokenURL,
				RedirectURL: redirect, Scopes: c.Scopes, Token: t}
			return oauth2.StaticTokenSource(t), nil
		},
	}
	switch {
	case h.opts != nil && h.opts.ClientID != "":
		acfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: h.opts.ClientID}
	case reuse:
		acfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: prev.ClientID}
		if prev.ClientSecret != "" {
			acfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: prev.ClientSecret}
		}
	default:
		acfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{
			Metadata: &oauthex.ClientRegistrationMetadata{
				RedirectURIs:            []string{redirect},
				ClientName:              "mcptray",
				GrantTypes:              []string{"authorization_code", "refresh_token"},
				ResponseTypes:           []string{"code"},
				TokenEndpointAuthMethod: "none",
			},
		}
	}
	if h.opts != nil && len(h.opts.Scopes) > 0 {
		acfg.ScopeFilter = func([]string) []string { return h.opts.Scopes }
	}
	ah, err := auth.NewAuthorizationCodeHandler(acfg)
	if err != nil {
		drain(resp)
		return fmt.Errorf("the sign-in to %s: %w", h.name, err)
	}
	if err := ah.Authorize(ctx, req, resp); err != nil {
		var words *signInError
		if errors.As(err, &words) {
			return err
		}
		// go-sdk says it only in its words: no registration endpoint, and
		// no client id given.
		if strings.Contains(err.Error(), "no configured client registration methods") {
			return &signInError{fmt.Errorf("the sign-in to %s needs a client id: its authorization server does not register clients by itself; register mcptray there (redirect address http://127.0.0.1/callback) and give the id with `mcptray upstream signin %s --client-id ID`", h.name, h.name)}
		}
		return &signInError{fmt.Errorf("the sign-in to %s failed: %w", h.name, err)}
	}
	if got == nil {
		return nil // go-sdk ran no flow: the retry's answer says why
	}
	got.Registered = acfg.DynamicClientRegistrationConfig != nil || reuse
	h.keep(ctx, got)
	h.log.Info("upstream signed in", "server", h.name, "client registered", acfg.DynamicClientRegistrationConfig != nil)
	return nil
}

// asksForOAuth says whether a sign-in may mend a refusal: a 401 with a
// Bearer challenge naming the server's resource metadata (RFC 9728), or
// that metadata at its well-known address; a 403 asking for more scopes
// (insufficient_scope). Any other is the headers' matter.
func (h *oauthHandler) asksForOAuth(ctx context.Context, resp *http.Response) error {
	cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	for _, c := range cs {
		switch {
		case c.Scheme != "bearer":
		case resp.StatusCode == http.StatusForbidden && c.Params["error"] == "insufficient_scope":
			return nil // signed in, with too few scopes: go-sdk asks for more
		case resp.StatusCode == http.StatusUnauthorized && c.Params["resource_metadata"] != "":
			return nil
		}
	}
	if resp.StatusCode != http.StatusUnauthorized {
		return errNotOAuth // forbidden, whoever asks
	}
	u, err := url.Parse(h.url)
	if err != nil {
		return errNotOAuth
	}
	root := *u
	root.Path, root.RawQuery = "", ""
	for _, p := range []struct{ meta, resource string }{
		{"/.well-known/oauth-protected-resource/" + strings.TrimLeft(u.Path, "/"), h.url},
		{"/.well-known/oauth-protected-resource", root.String()},
	} {
		m := root
		m.Path = p.meta
		if prm, err := oauthex.GetProtectedResourceMetadata(ctx, m.String(), p.resource, h.client); err == nil && prm != nil {
			return nil
		}
	}
	return errNotOAuth
}

// listenLoopback opens the port the browser's answer comes to (RFC 8252's
// loopback redirect): prev's, when its dynamic registration can be used
// again (registered with that address), else any free one.
func listenLoopback(prev *signIn, opts *catalog.UpstreamOAuth) (ln net.Listener, reuse bool, err error) {
	if prev != nil && prev.Registered && (opts == nil || opts.ClientID == "") {
		if u, err := url.Parse(prev.RedirectURL); err == nil && u.Hostname() == "127.0.0.1" {
			if ln, err := net.Listen("tcp", u.Host); err == nil {
				return ln, true, nil
			}
		}
	}
	ln, err = net.Listen("tcp", "127.0.0.1:0")
	return ln, false, err
}

// callback is the browser's answer, or what is wrong with it.
type callback struct {
	res *auth.AuthorizationResult
	err error
}

// fetcher shows the person the authorization address and waits on ln for
// the browser's answer: the first one counts, and must carry the state
// mcptray sent.
func (h *oauthHandler) fetcher(ln net.Listener) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		au, err := url.Parse(args.URL)
		if err != nil {
			return nil, fmt.Errorf("the authorization address: %w", err)
		}
		state := au.Query().Get("state")
		answers := make(chan callback, 1)
		srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/callback" {
				http.NotFound(w, r)
				return
			}
			a := h.answer(r.URL.Query(), state)
			page := fmt.Sprintf("You are signed in to %s. You can close this tab.", h.name)
			if a.err != nil {
				w.WriteHeader(http.StatusBadRequest)
				page = a.err.Error()
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, "<!doctype html><title>mcptray</title><p>%s</p>\n", html.EscapeString(page))
			select {
			case answers <- a:
			default: // answered already
			}
		})}
		go srv.Serve(ln)
		defer func() {
			// The page reaches the browser before the port closes.
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			_ = srv.Shutdown(ctx)
		}()
		if err := h.cfg.OpenBrowser(args.URL); err != nil {
			return nil, &signInError{fmt.Errorf("open this address to sign in to %s: %s (%v)", h.name, args.URL, err)}
		}
		wait := h.cfg.SignInTimeout
		if wait <= 0 {
			wait = DefaultSignInTimeout
		}
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case a := <-answers:
			return a.res, a.err
		case <-ctx.Done():
			return nil, &signInError{fmt.Errorf("waiting for the sign-in to %s: %w", h.name, ctx.Err())}
		case <-timer.C:
			return nil, &signInError{fmt.Errorf("the sign-in to %s was not completed within %s", h.name, wait)}
		}
	}
}

// answer reads the browser's answer to the authorization request.
func (h *oauthHandler) answer(q url.Values, state string) callback {
	switch {
	case q.Get("state") != state:
		return callback{err: &signInError{fmt.Errorf("the sign-in to %s was refused: the answer did not carry the state mcptray sent (someone else may have tried to complete it)", h.name)}}
	case q.Get("error") != "":
		why := q.Get("error")
		if d := q.Get("error_description"); d != "" {
			why += ": " + d
		}
		return callback{err: &signInError{fmt.Errorf("the sign-in to %s was refused: %s", h.name, why)}}
	case q.Get("code") == "":
		return callback{err: &signInError{fmt.Errorf("the sign-in to %s was refused: the answer carried no authorization code", h.name)}}
	}
	return callback{res: &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}}
}

// drain ends a response Authorize does not hand on (its contract: it
// closes the body).
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
}
