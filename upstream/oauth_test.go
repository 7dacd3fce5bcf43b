package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/upstream/oauthtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOAuthSignInAndRefresh: a server behind a local authorization server
// is reached after the person signs in (the client registered
// dynamically, PKCE, the resource parameter); after its access token is
// refused, through the refresh grant alone; after mcptray restarts with a
// stored token past its expiry, through a refresh made before any request
// is refused; and after its refresh token is revoked, through a new
// sign-in under the same registration. No token reaches the log.
func TestOAuthSignInAndRefresh(t *testing.T) {
	w := oauthtest.New(t)
	tokens := &memTokens{}
	var logged bytes.Buffer
	cfg := Config{Tokens: tokens, OpenBrowser: w.Browser(nil),
		Logger: slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	u := catalog.Upstream{Name: "cloud", Remote: &catalog.UpstreamRemote{URL: w.MCPURL}}

	m := newManager(t, cfg, u)
	if got := call(t, m, "cloud", "echo", map[string]any{"text": "signed in"}); got != "signed in" {
		t.Errorf("echo: %q", got)
	}
	wantCounts(t, w, "after the sign-in", oauthtest.Counts{Opened: 1, Registrations: 1, Codes: 1})
	if s := tokens.signIn(t, "cloud"); s.Token.RefreshToken == "" || s.ClientID == "" || s.Resource != w.MCPURL {
		t.Errorf("kept: %+v", s)
	}

	// Calls refused together wait for one refresh (the refresh token is
	// rotated: a second refresh with it would be refused).
	w.ExpireAccess()
	var calls sync.WaitGroup
	for i := range 4 {
		calls.Go(func() {
			text := fmt.Sprintf("refreshed %d", i)
			res, err := m.CallTool(context.Background(), "cloud", &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}}, nil)
			if err != nil || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != text {
				t.Errorf("echo %q: %v", text, err)
			}
		})
	}
	calls.Wait()
	wantCounts(t, w, "after the access token was refused", oauthtest.Counts{Opened: 1, Registrations: 1, Codes: 1, Refreshes: 1})
	m.Close()

	// mcptray starts again; the kept token expired meanwhile.
	s := tokens.signIn(t, "cloud")
	s.Token.Expiry = time.Now().Add(-time.Minute)
	tokens.put(t, "cloud", s)
	refusedBefore := w.Counts().Refused
	m = newManager(t, cfg, u)
	if got := call(t, m, "cloud", "echo", map[string]any{"text": "restarted"}); got != "restarted" {
		t.Errorf("echo: %q", got)
	}
	wantCounts(t, w, "after a restart past the expiry", oauthtest.Counts{Opened: 1, Registrations: 1, Codes: 1, Refreshes: 2, Refused: refusedBefore})

	w.RevokeAll()
	if got := call(t, m, "cloud", "echo", map[string]any{"text": "again"}); got != "again" {
		t.Errorf("echo: %q", got)
	}
	c := w.Counts()
	wantCounts(t, w, "after the refresh token was revoked", oauthtest.Counts{Opened: 2, Registrations: 1, Codes: 2, Refreshes: 2,
		RefreshRefused: 1, Refused: c.Refused})

	for _, tok := range w.Issued() {
		if strings.Contains(logged.String(), tok) {
			t.Errorf("a token is in the log:\n%s", logged.String())
		}
	}
}

// TestOAuthWrongStateRefused: an answer to the sign-in that carries
// another state than mcptray sent (a forged one) is refused, and no code
// is exchanged.
func TestOAuthWrongStateRefused(t *testing.T) {
	w := oauthtest.New(t)
	cfg := Config{OpenBrowser: w.Browser(func(q url.Values) { q.Set("state", "forged") })}
	_, err := Test(context.Background(), catalog.Upstream{Name: "cloud", Remote: &catalog.UpstreamRemote{URL: w.MCPURL}}, cfg)
	want := "the sign-in to cloud was refused: the answer did not carry the state mcptray sent"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want %q", err, want)
	}
	wantCounts(t, w, "after a forged answer", oauthtest.Counts{Opened: 1, Registrations: 1, Refused: w.Counts().Refused})
}

// TestOAuthWithoutBrowser: with no browser to open (the serving process),
// a server behind OAuth says how to sign in; a refused consent and a
// sign-in nobody completes are said in words.
func TestOAuthWithoutBrowser(t *testing.T) {
	w := oauthtest.New(t)
	u := catalog.Upstream{Name: "cloud", Remote: &catalog.UpstreamRemote{URL: w.MCPURL}}
	_, err := Test(context.Background(), u, Config{})
	if want := "cloud needs you to sign in: run `mcptray upstream signin cloud`"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
	_, err = Test(context.Background(), u, Config{OpenBrowser: w.Browser(func(q url.Values) {
		q.Del("code")
		q.Set("error", "access_denied")
		q.Set("error_description", "the person said no")
	})})
	if want := "the sign-in to cloud was refused: access_denied: the person said no"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
	_, err = Test(context.Background(), u, Config{SignInTimeout: 50 * time.Millisecond, OpenBrowser: func(string) error { return nil }})
	if want := "the sign-in to cloud was not completed within 50ms"; err == nil || !strings.HasSuffix(err.Error(), want) {
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

// wantCounts compares what happened; Refused is compared only when wanted
// (the first sign-in's 401s depend on how many requests go-sdk sends).
func wantCounts(t *testing.T, w *oauthtest.World, when string, want oauthtest.Counts) {
	t.Helper()
	got := w.Counts()
	if want.Refused == 0 {
		got.Refused = 0
	}
	if got != want {
		t.Errorf("%s: %+v, want %+v", when, got, want)
	}
}

// TestOAuthClientIDAndScopes: an authorization server without dynamic
// registration needs a client id, said in words; with the one the person
// registered (any loopback port) and the scopes they set, the sign-in
// goes through, registering nothing.
func TestOAuthClientIDAndScopes(t *testing.T) {
	w := oauthtest.New(t)
	w.WithoutRegistration()
	cfg := Config{OpenBrowser: w.Browser(nil)}
	u := catalog.Upstream{Name: "cloud", Remote: &catalog.UpstreamRemote{URL: w.MCPURL}}
	_, err := Test(context.Background(), u, cfg)
	if want := "the sign-in to cloud needs a client id"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want %q", err, want)
	}
	w.Preregister("by-hand")
	u.Remote.OAuth = &catalog.UpstreamOAuth{ClientID: "by-hand", Scopes: []string{"notes.read"}}
	if tools, err := Test(context.Background(), u, cfg); err != nil || len(tools) != 1 {
		t.Fatalf("%d tools, %v", len(tools), err)
	}
	wantCounts(t, w, "after the sign-in", oauthtest.Counts{Opened: 1, Codes: 1})
	// go-sdk adds offline_access (a refresh token is wanted), in no set
	// order.
	if got := slices.Sorted(slices.Values(w.Scopes())); !slices.Equal(got, []string{"notes.read", "offline_access"}) {
		t.Errorf("scopes asked for: %q", got)
	}
}

// TestOAuthSSE: a server on the older HTTP+SSE transport behind the same
// authorization server is reached after the sign-in, and after a refresh.
func TestOAuthSSE(t *testing.T) {
	w := oauthtest.New(t)
	u := catalog.Upstream{Name: "cloud", Remote: &catalog.UpstreamRemote{URL: w.SSEURL, Transport: catalog.UpstreamSSE}}
	m := newManager(t, Config{OpenBrowser: w.Browser(nil)}, u)
	if got := call(t, m, "cloud", "echo", map[string]any{"text": "over sse"}); got != "over sse" {
		t.Errorf("echo: %q", got)
	}
	wantCounts(t, w, "after the sign-in", oauthtest.Counts{Opened: 1, Registrations: 1, Codes: 1})
	w.ExpireAccess()
	if got := call(t, m, "cloud", "echo", map[string]any{"text": "refreshed"}); got != "refreshed" {
		t.Errorf("echo: %q", got)
	}
	wantCounts(t, w, "after the access token was refused", oauthtest.Counts{Opened: 1, Registrations: 1, Codes: 1, Refreshes: 1})
}
