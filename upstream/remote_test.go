package upstream

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
)

// TestRemoteServers: Streamable HTTP in both revisions (a stateless
// server speaks 2026-07-28, a session server 2025-11-25) and the older
// HTTP+SSE, with the headers sent: tools over pages, calls, progress.
func TestRemoteServers(t *testing.T) {
	upserver(t)
	cases := []struct {
		name, transport, protocol string
		args                      []string
	}{
		{"streamable stateless", catalog.UpstreamStreamable, "2026-07-28", []string{"-http", "streamable", "-stateless"}},
		{"streamable sessions", catalog.UpstreamStreamable, "2025-11-25", []string{"-http", "streamable"}},
		{"sse", catalog.UpstreamSSE, "2025-11-25", []string{"-http", "sse"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := httpServer(t, append(c.args, "-token", "s3cret")...)
			u := catalog.Upstream{Name: "web", Remote: &catalog.UpstreamRemote{URL: url, Transport: c.transport,
				Headers: map[string]catalog.Template{"Authorization": `Bearer {{secret "tok"}}`}}}
			m := newManager(t, Config{Expand: secrets(map[string]string{"tok": "s3cret"})}, u)
			tools, err := m.Tools(context.Background(), "web")
			if err != nil {
				t.Fatal(err)
			}
			if len(tools) != 10 {
				t.Errorf("%d tools, want 10", len(tools))
			}
			if st := m.Status("web"); st.Protocol != c.protocol {
				t.Errorf("protocol %q, want %q", st.Protocol, c.protocol)
			}
			if got := call(t, m, "web", "echo", map[string]any{"text": "over http"}); got != "over http" {
				t.Errorf("echo: %q", got)
			}
			if seen := progressOf(t, m, "web", 3); seen[2] != "client-token-7 3/3 step 3" {
				t.Errorf("progress: %q", seen)
			}
			// Closing just after a call was given up: go-sdk's client and
			// server would wait 5 s for each other (remote.go, deleteTimeout).
			start := time.Now()
			m.Close()
			if d := time.Since(start); d > 4*time.Second {
				t.Errorf("Close took %v", d)
			}
		})
	}
}

// TestRemoteFailuresInWords: a refused sign-in, nobody listening, a wrong
// path.
func TestRemoteFailuresInWords(t *testing.T) {
	url := httpServer(t, "-http", "streamable", "-token", "right")
	free := fmt.Sprintf("http://127.0.0.1:%d/mcp", testutil.FreePort(t))
	cases := []struct {
		name string
		r    catalog.UpstreamRemote
		want string
	}{
		{"wrong token", catalog.UpstreamRemote{URL: url, Headers: map[string]catalog.Template{"Authorization": "Bearer wrong"}},
			"the server refused the sign-in (HTTP 401): check the headers or token"},
		{"no token, sse", catalog.UpstreamRemote{URL: url, Transport: catalog.UpstreamSSE},
			"the server refused the sign-in (HTTP 401)"},
		{"nobody listens", catalog.UpstreamRemote{URL: free}, "nothing is listening at " + free + " (connection refused)"},
		{"wrong path", catalog.UpstreamRemote{URL: strings.TrimSuffix(url, "/mcp") + "/nope", Headers: map[string]catalog.Template{"Authorization": "Bearer right"}},
			"(HTTP 404): check the web address"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Test(context.Background(), catalog.Upstream{Name: "web", Remote: &c.r}, Config{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
}

// TestRemoteServerComesBack: a remote server that goes away is said to be
// unreachable (the session is dropped, not kept failing), and once it is
// back the next use after the delay opens a new session.
func TestRemoteServerComesBack(t *testing.T) {
	for _, c := range []struct{ name, transport, mode string }{
		{"streamable", catalog.UpstreamStreamable, "streamable"},
		{"sse", catalog.UpstreamSSE, "sse"},
	} {
		t.Run(c.name, func(t *testing.T) {
			addr := fmt.Sprintf("127.0.0.1:%d", testutil.FreePort(t))
			url, stop := httpServerAt(t, "-http", c.mode, "-addr", addr)
			m := newManager(t, Config{}, catalog.Upstream{Name: "web", Remote: &catalog.UpstreamRemote{URL: url, Transport: c.transport}})
			call(t, m, "web", "echo", map[string]any{"text": "before"})
			stop()
			// The SSE stream's end shows at once; a Streamable HTTP
			// session notices at its next use.
			testutil.EventuallyShows(t, "the server's absence", func() (bool, string) {
				_, err := m.Tools(context.Background(), "web")
				st := m.Status("web")
				return st.State == BackingOff || st.State == Failed, fmt.Sprint(err)
			})
			if st := m.Status("web"); c.mode == "streamable" && !strings.Contains(st.LastError, "nothing is listening at "+url) {
				t.Errorf("LastError: %q", st.LastError)
			}
			httpServerAt(t, "-http", c.mode, "-addr", addr)
			waitState(t, m, "web", Failed) // the delay is over
			if got := call(t, m, "web", "echo", map[string]any{"text": "after"}); got != "after" {
				t.Errorf("echo after: %q", got)
			}
		})
	}
}

// TestRemoteSessionForgotten: a Streamable HTTP server that restarted
// between two calls no longer knows the session (HTTP 404): the call is
// made again on a new session, without an error or a delay.
func TestRemoteSessionForgotten(t *testing.T) {
	addr := fmt.Sprintf("127.0.0.1:%d", testutil.FreePort(t))
	url, stop := httpServerAt(t, "-http", "streamable", "-addr", addr)
	m := newManager(t, Config{}, catalog.Upstream{Name: "web", Remote: &catalog.UpstreamRemote{URL: url}})
	call(t, m, "web", "echo", map[string]any{"text": "before"})
	stop()
	httpServerAt(t, "-http", "streamable", "-addr", addr)
	if got := call(t, m, "web", "echo", map[string]any{"text": "after"}); got != "after" {
		t.Errorf("echo after the restart: %q", got)
	}
	if st := m.Status("web"); st.State != Running || st.LastError != "" {
		t.Errorf("status: %s %q", st.State, st.LastError)
	}
}
