package mcpcore_test

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/record"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// waitingTool prints a line, streamed to the client as progress so that a
// test knows the command runs, then sleeps until its call is cancelled.
func waitingTool(name string) catalog.Tool {
	return catalog.Tool{Name: name, Description: "Sleeps until its call is cancelled.",
		Action: catalog.Action{Command: &catalog.Command{Argv: []catalog.Template{"sh", "-c", "echo started; exec sleep 30"}, Stream: "progress"}}}
}

// TestAbandonedCallIsRecordedCancelled: a call its client gives up on is
// logged as cancelled, however the server learns of it — the go-sdk client
// cancelling its context (as Try it does: notifications/cancelled, and the
// HTTP request dropped), or a bare HTTP request abandoned with no
// notification at all — not as the tool error "context canceled" that the
// command's handler ends with.
func TestAbandonedCallIsRecordedCancelled(t *testing.T) {
	sink := &memActivity{}
	e := newEnv(t, envOptions{activity: sink, extra: &catalog.Catalog{Tools: []catalog.Tool{
		waitingTool("wait_sdk_" + strings.ReplaceAll(modern, "-", "_")),
		waitingTool("wait_sdk_" + strings.ReplaceAll(legacy, "-", "_")),
		waitingTool("wait_http"),
	}}})
	// ended waits for the record saying how the call of tool ended (not the
	// one saying it still runs) and checks that it says cancelled.
	ended := func(t *testing.T, tool string) {
		t.Helper()
		a := sink.find(t, "the end of "+tool, func(a record.Activity) bool {
			return a.Target == tool && a.Outcome != record.OutcomeRunning
		})
		if a.Outcome != record.OutcomeCancelled {
			t.Errorf("the abandoned call is recorded as %q (%s), want %q", a.Outcome, a.Detail, record.OutcomeCancelled)
		}
	}

	for _, era := range eras {
		tool := "wait_sdk_" + strings.ReplaceAll(era, "-", "_")
		t.Run("go-sdk client "+era, func(t *testing.T) {
			started := make(chan struct{}, 1)
			cs := e.connect(t, era, newClient(&mcp.ClientOptions{
				ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
					select {
					case started <- struct{}{}:
					default:
					}
				},
			}), "")
			ctx, cancel := context.WithCancel(testCtx(t))
			defer cancel()
			params := &mcp.CallToolParams{Name: tool}
			params.SetProgressToken("p")
			done := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, params)
				done <- err
			}()
			select {
			case <-started:
			case err := <-done:
				t.Fatalf("the call ended before its command started: %v", err)
			case <-ctx.Done():
				t.Fatal("the command never started")
			}
			cancel()
			if err := <-done; err == nil {
				t.Fatal("the cancelled call succeeded")
			}
			ended(t, tool)
		})
	}

	t.Run("an HTTP request abandoned", func(t *testing.T) {
		ctx, cancel := context.WithCancel(testCtx(t))
		defer cancel()
		req := e.modern("tools/call", map[string]any{"name": "wait_http", "_meta": map[string]any{"progressToken": "p"}}).Request.WithContext(ctx)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		// The progress event says the command runs.
		sc := bufio.NewScanner(resp.Body)
		for !strings.Contains(sc.Text(), "notifications/progress") {
			if !sc.Scan() {
				t.Fatalf("the response ended before the command started: %v", sc.Err())
			}
		}
		cancel()
		ended(t, "wait_http")
	})
}
