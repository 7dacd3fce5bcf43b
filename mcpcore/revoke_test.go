package mcpcore_test

// Revoking a client token, or changing what it may see, takes effect at
// once on what it holds open: subscriptions/listen streams, 2025-11-25
// sessions and their GET streams.

import (
	"context"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testcatalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestRevokeEndsStreams(t *testing.T) {
	testutil.Long(t, "waits for streams to end")
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			e := newEnv(t, envOptions{auth: true})
			ctx := testCtx(t)
			token, err := e.st.CreateToken(ctx, "laptop", nil)
			if err != nil {
				t.Fatal(err)
			}
			changed := make(chan struct{}, 16)
			client := newClient(&mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
				changed <- struct{}{}
			}})
			e.connect(t, era, client, token)
			// The official client listens (a listen stream, or the
			// session's GET stream): an edit reaches it.
			testutil.Eventually(t, "an edit to reach the listening client", func() bool {
				if err := e.st.PutTool(ctx, testcatalog.RespondTool("r_before", "hi")); err != nil {
					t.Fatal(err)
				}
				select {
				case <-changed:
					return true
				case <-time.After(200 * time.Millisecond):
					return false
				}
			})
			if err := e.st.RevokeToken(ctx, "laptop"); err != nil {
				t.Fatal(err)
			}
			// Drain what the edits above still had on the way.
			time.Sleep(200 * time.Millisecond)
			for len(changed) > 0 {
				<-changed
			}
			if err := e.st.PutTool(ctx, testcatalog.RespondTool("r_after", "hi")); err != nil {
				t.Fatal(err)
			}
			select {
			case <-changed:
				t.Fatal("a client whose token was revoked still hears of edits")
			case <-time.After(1500 * time.Millisecond):
			}
		})
	}
}

func TestAllowlistChangeEndsListenStream(t *testing.T) {
	e := newEnv(t, envOptions{auth: true})
	ctx := testCtx(t)
	token, err := e.st.CreateToken(ctx, "narrow", []string{"test_simple_text"})
	if err != nil {
		t.Fatal(err)
	}
	r := e.modern("subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}})
	s := e.open(t, r.as(token).Request)
	if ack := s.nextMessage(t); ack.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message: %+v", ack)
	}
	if err := e.st.SetTokenTools(ctx, "narrow", []string{"test_simple_text", "test_image_content"}); err != nil {
		t.Fatal(err)
	}
	// The stream ends (the client listens again, under its new allowlist).
	for {
		ev, ok := s.next(t)
		if !ok {
			return
		}
		if !ev.comment {
			if m := decodeMessage(t, ev.data); m.Method != "" {
				t.Fatalf("the stream carried %s after the token's allowlist changed", m.Method)
			}
			return // its final result
		}
	}
}
