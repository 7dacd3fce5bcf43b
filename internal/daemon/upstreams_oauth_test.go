package daemon

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/gateway"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/upstream"
	"github.com/mcptray/mcptray/upstream/oauthtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestUpstreamBehindOAuth: a server behind a local authorization server,
// started with mcptray, waits for the person's sign-in (made as `mcptray
// upstream signin` makes it, into the same secret store); the serving
// process then reaches it with the kept token, and its tool answers
// through mcptray's endpoint, again after the access token was refused
// and renewed by the refresh grant.
func TestUpstreamBehindOAuth(t *testing.T) {
	d, token := startStarter(t)
	w := oauthtest.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st := d.Store()
	u := catalog.Upstream{Name: "cloud", Start: catalog.UpstreamAtStart, Remote: &catalog.UpstreamRemote{URL: w.MCPURL}}
	if _, err := st.SaveUpstream(ctx, "", u); err != nil {
		t.Fatal(err)
	}
	if _, err := upstream.Test(ctx, u, upstream.Config{Tokens: d.Secrets(), OpenBrowser: w.Browser(nil)}); err != nil {
		t.Fatalf("the sign-in: %v", err)
	}
	testutil.Eventually(t, "the server's tool to wait for approval", func() bool {
		cs, err := st.UpstreamChanges(ctx, "cloud")
		return err == nil && len(cs) == 1
	})
	if _, err := gateway.Approve(ctx, st, "cloud", nil); err != nil {
		t.Fatal(err)
	}
	cs := aiClient(ctx, t, d, token, nil, "")
	echo := func(text string) {
		t.Helper()
		testutil.Eventually(t, "cloud_echo to be served", func() bool {
			res, err := cs.ListTools(ctx, nil)
			return err == nil && slices.Contains(toolNames(res.Tools), "cloud_echo")
		})
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "cloud_echo", Arguments: map[string]any{"text": text}})
		if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != text {
			t.Fatalf("cloud_echo: %v %+v", err, res)
		}
	}
	echo("signed in")
	w.ExpireAccess()
	echo("refreshed")
	if n := w.Counts(); n.Opened != 1 || n.Codes != 1 || n.Refreshes != 1 {
		t.Errorf("%+v: want one sign-in, then one refresh", n)
	}
}
