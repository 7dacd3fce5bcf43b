package mcpcore_test

// The HTTP guard in front of the MCP endpoint: Host and Origin checks,
// bearer tokens and their tool allowlists, body limits and malformed
// messages, and which era a request is routed to.

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestGuardOrigin(t *testing.T) {
	e := newEnv(t, envOptions{})
	// Each era's first request: server/discover (2026) and initialize (2025).
	firsts := map[string]func() *request{
		modern: func() *request { return e.modern("server/discover", nil) },
		legacy: e.initializeRequest,
	}
	withOrigin := func(era, origin string) *reply {
		r := firsts[era]()
		r.Header.Set("Origin", origin)
		return e.send(t, r.Request)
	}
	const configured = "http://localhost:5173"
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			withOrigin(era, "http://evil.example.com").rejected(t, http.StatusForbidden)
			withOrigin(era, configured).rejected(t, http.StatusForbidden)
			rep := withOrigin(era, e.origin())
			rep.result(t, nil)
			if got := rep.header.Get("Access-Control-Allow-Origin"); got != e.origin() {
				t.Errorf("Access-Control-Allow-Origin %q, want the request's own origin %q", got, e.origin())
			}
		})
	}

	t.Run("configured", func(t *testing.T) {
		ctx := testCtx(t)
		set, err := e.st.Settings(ctx)
		if err != nil {
			t.Fatal(err)
		}
		set.AllowedOrigins = []string{configured}
		if err := e.st.PutSettings(ctx, set); err != nil {
			t.Fatal(err)
		}
		e.waitSettings(t, func(s catalog.Settings) bool { return slices.Contains(s.AllowedOrigins, configured) })
		for _, era := range eras {
			withOrigin(era, configured).result(t, nil)
			withOrigin(era, "http://evil.example.com").rejected(t, http.StatusForbidden)
		}
	})
}

func TestGuardHost(t *testing.T) {
	e := newEnv(t, envOptions{})
	r := e.modern("server/discover", nil)
	r.Host = "evil.example.com"
	rep := e.send(t, r.Request)
	if rep.status < 400 || rep.status > 499 {
		t.Fatalf("Host evil.example.com: %v, want a 4xx", rep)
	}
	rep.rejected(t, rep.status)
	r = e.modern("server/discover", nil)
	r.Host = strings.TrimPrefix(e.srv.URL, "http://")
	e.send(t, r.Request).result(t, nil)
}

func TestGuardAuth(t *testing.T) {
	e := newEnv(t, envOptions{auth: true})
	ctx := testCtx(t)
	valid, err := e.st.CreateToken(ctx, "valid", nil)
	if err != nil {
		t.Fatal(err)
	}
	revoked, err := e.st.CreateToken(ctx, "revoked", nil)
	if err != nil {
		t.Fatal(err)
	}
	discover := func(token string) *reply { return e.send(t, e.modern("server/discover", nil).as(token).Request) }
	unauthorized := func(t *testing.T, rep *reply) {
		t.Helper()
		rep.rejected(t, http.StatusUnauthorized)
		if got := rep.header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
			t.Errorf("WWW-Authenticate %q, want a Bearer challenge", got)
		}
	}

	unauthorized(t, discover(""))
	unauthorized(t, discover("mcpt_not-a-real-token"))
	discover(valid).result(t, nil)
	discover(revoked).result(t, nil)
	if err := e.st.RevokeToken(ctx, "revoked"); err != nil {
		t.Fatal(err)
	}
	unauthorized(t, discover(revoked))
	discover(valid).result(t, nil)

	// A legacy handshake needs a token too.
	unauthorized(t, e.send(t, e.initializeRequest().Request))
}

func TestGuardMalformed(t *testing.T) {
	const limit = 1 << 20
	e := newEnv(t, envOptions{settings: func(s *catalog.Settings) { s.MaxBodyBytes = limit }})
	discover := func() *reply { return e.send(t, e.modern("server/discover", nil).Request) }
	// padded is a server/discover of about size bytes.
	padded := func(size int) *http.Request {
		r := e.modern("server/discover", map[string]any{"pad": strings.Repeat("x", size)})
		return r.Request
	}

	t.Run("10 MiB body", func(t *testing.T) {
		e.send(t, padded(10<<20)).rejected(t, http.StatusRequestEntityTooLarge)
		discover().result(t, nil)
	})
	t.Run("configured limit", func(t *testing.T) {
		e.send(t, padded(limit/2)).result(t, nil)
		e.send(t, padded(2*limit)).rejected(t, http.StatusRequestEntityTooLarge) // go-sdk alone would take 4 MiB
		discover().result(t, nil)
	})
	t.Run("not JSON", func(t *testing.T) {
		e.send(t, e.post([]byte(`{"jsonrpc":"2.0","id":1,"method":`))).wantError(t, http.StatusBadRequest, codeParseError)
	})
	t.Run("batch", func(t *testing.T) {
		e.send(t, e.post([]byte(`[{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}]`))).wantError(t, http.StatusBadRequest, codeInvalidRequest)
	})
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		t.Run(method+" without a session", func(t *testing.T) {
			r, err := http.NewRequest(method, e.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			r.Header.Set("Accept", "application/json, text/event-stream")
			rep := e.send(t, r)
			rep.rejected(t, http.StatusMethodNotAllowed)
			if got := rep.header.Get("Allow"); got != "POST" {
				t.Errorf("Allow %q, want POST", got)
			}
		})
	}
	t.Run("unknown path", func(t *testing.T) {
		r := e.modern("server/discover", nil)
		r.URL.Path = "/elsewhere"
		e.send(t, r.Request).rejected(t, http.StatusNotFound)
	})
	discover().result(t, nil)
}

func TestTokenToolAllowlist(t *testing.T) {
	e := newEnv(t, envOptions{auth: true, settings: func(s *catalog.Settings) { s.CacheTTLMs, s.CacheScope = 7000, "public" }})
	ctx := testCtx(t)
	limited, err := e.st.CreateToken(ctx, "limited", []string{"test_simple_text"})
	if err != nil {
		t.Fatal(err)
	}
	full, err := e.st.CreateToken(ctx, "full", nil)
	if err != nil {
		t.Fatal(err)
	}
	call := func(token, name string) *reply { return toolCall{name: name, token: token}.send(t, e) }

	l := e.listTools(t, limited)
	if names := l.names(); !slices.Equal(names, []string{"test_simple_text"}) {
		t.Errorf("the limited token lists %v, want [test_simple_text]", names)
	}
	if l.CacheScope != "private" {
		t.Errorf("the limited token's tools/list cacheScope %q, want private", l.CacheScope)
	}
	completed(t, call(limited, "test_simple_text"))
	re := call(limited, "test_error_handling").wantError(t, http.StatusBadRequest, codeInvalidParams)
	if !strings.Contains(re.Message, "unknown tool") {
		t.Errorf("calling a tool outside the allowlist: %q, want unknown tool", re.Message)
	}

	l = e.listTools(t, full)
	if want := len(conformanceCatalog(t).Tools); len(l.Tools) != want {
		t.Errorf("the unrestricted token lists %d tools, want %d", len(l.Tools), want)
	}
	if l.CacheScope != "public" || l.TTLMs != 7000 {
		t.Errorf("the unrestricted token's tools/list cache hints %q/%d, want public/7000", l.CacheScope, l.TTLMs)
	}
	var r roundResult
	call(full, "test_error_handling").result(t, &r)
	if !r.IsError || len(r.Content) != 1 {
		t.Errorf("the unrestricted token's test_error_handling did not run: %+v", r)
	}
}

func TestEraRouting(t *testing.T) {
	e := newEnv(t, envOptions{})

	t.Run("legacy initialize", func(t *testing.T) {
		rep := e.send(t, e.initializeRequest().Request)
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		rep.result(t, &res)
		if rep.header.Get("Mcp-Session-Id") == "" {
			t.Errorf("no Mcp-Session-Id on the legacy initialize")
		}
		if res.ProtocolVersion != legacy {
			t.Errorf("negotiated %q, want %q", res.ProtocolVersion, legacy)
		}
	})
	t.Run("discover", func(t *testing.T) {
		rep := e.send(t, e.modern("server/discover", nil).Request)
		var res struct {
			SupportedVersions []string `json:"supportedVersions"`
		}
		rep.result(t, &res)
		if !slices.Contains(res.SupportedVersions, modern) {
			t.Errorf("supportedVersions %v lacks %s", res.SupportedVersions, modern)
		}
		if rep.header.Get("Mcp-Session-Id") != "" {
			t.Errorf("a 2026 request got an Mcp-Session-Id")
		}
	})
	t.Run("2026 header without _meta", func(t *testing.T) {
		r := e.rpc("tools/list", nil)
		r.Header.Set("MCP-Protocol-Version", modern)
		r.Header.Set("Mcp-Method", "tools/list")
		e.send(t, r.Request).wantError(t, http.StatusBadRequest, codeInvalidParams)
	})
	t.Run("2026 _meta without the header", func(t *testing.T) {
		// Routed to the 2026 handler by its _meta, which then wants the header.
		r := e.modern("tools/list", nil)
		r.Header.Del("MCP-Protocol-Version")
		e.send(t, r.Request).wantError(t, http.StatusBadRequest, codeHeaderMismatch)
	})
	t.Run("unsupported version", func(t *testing.T) {
		r := e.modern("tools/list", map[string]any{"_meta": map[string]any{metaVersion: "v999"}})
		r.Header.Set("MCP-Protocol-Version", "v999")
		re := e.send(t, r.Request).wantError(t, http.StatusBadRequest, codeUnsupportedVersion)
		var data struct {
			Supported []string `json:"supported"`
		}
		if err := json.Unmarshal(re.Data, &data); err != nil || !slices.Contains(data.Supported, modern) {
			t.Errorf("error data %s: want supported versions including %s", re.Data, modern)
		}
	})
}

// TestNarrowedAllowlistReachesSessions: once a token's allowlist loses a
// tool, no request made with that token may call it — including requests
// inside a 2025-11-25 session opened before the change.
func TestNarrowedAllowlistReachesSessions(t *testing.T) {
	e := newEnv(t, envOptions{auth: true})
	ctx := testCtx(t)
	token, err := e.st.CreateToken(ctx, "narrowed", []string{"test_simple_text", "test_error_handling"})
	if err != nil {
		t.Fatal(err)
	}
	cs := e.connect(t, legacy, nil, token)
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_error_handling"}); err != nil || !res.IsError {
		t.Fatalf("before the change: %v %+v", err, res)
	}
	if err := e.st.SetTokenTools(ctx, "narrowed", []string{"test_simple_text"}); err != nil {
		t.Fatal(err)
	}
	// A fresh 2026 request sees the new allowlist at once.
	toolCall{name: "test_error_handling", token: token}.send(t, e).wantError(t, http.StatusBadRequest, codeInvalidParams)

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_error_handling"})
	if err == nil {
		t.Errorf("the session opened before the allowlist change still calls a tool the token lost (isError %v, %q)", res.IsError, text(t, res))
	}
}
