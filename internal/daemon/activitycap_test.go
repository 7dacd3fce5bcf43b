package daemon

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testcatalog"
	"github.com/mcptray/mcptray/storage"
)

// TestActivityCapsWhatClientsSend: any program holding a token chooses the
// name and version its client declares. A megabyte of each, sent by both
// eras of the go-sdk client (2026-07-28 in every request's _meta, 2025-11-25
// at initialize), must reach the activity log cut short, saying so, so that
// 40 requests cannot grow the database by tens of megabytes.
func TestActivityCapsWhatClientsSend(t *testing.T) {
	cfg := testConfig(t.TempDir())
	cfg.Catalog = &catalog.Catalog{Tools: []catalog.Tool{testcatalog.RespondTool("hello", "hello")}}
	d := start(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	token, err := d.Store().CreateToken(ctx, "laptop", nil)
	if err != nil {
		t.Fatal(err)
	}
	huge := &mcp.Implementation{Name: strings.Repeat("n", 1<<20), Version: strings.Repeat("v", 1<<20)}
	const calls = 20
	for _, era := range []string{"2026-07-28", "2025-11-25"} {
		cs, err := mcp.NewClient(huge, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: d.URL(), MaxRetries: -1,
			HTTPClient: &http.Client{Transport: bearer{token}}}, &mcp.ClientSessionOptions{ProtocolVersion: era})
		if err != nil {
			t.Fatalf("%s: %v", era, err)
		}
		for range calls {
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello"}); err != nil {
				t.Fatalf("%s: %v", era, err)
			}
		}
		cs.Close()
	}
	if err := d.Activity().Flush(ctx); err != nil {
		t.Fatal(err)
	}

	size := fileSize(t, d.DB()) + fileSize(t, d.DB()+"-wal")
	t.Logf("database and its write-ahead log after %d requests with a 1 MB client name and version: %.1f MB", 2*calls, float64(size)/1e6)
	if size > 2<<20 {
		t.Errorf("the database and its write-ahead log take %d bytes after %d requests", size, 2*calls)
	}

	recs, err := d.Store().Activity(ctx, storage.ActivityQuery{Method: "tools/call", Limit: storage.MaxActivityLimit})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2*calls {
		t.Fatalf("%d tools/call records, want %d", len(recs), 2*calls)
	}
	for _, r := range recs {
		checkCut(t, fmt.Sprintf("record %d (%s): client name", r.ID, r.Era), r.Client, huge.Name)
		checkCut(t, fmt.Sprintf("record %d (%s): client version", r.ID, r.Era), r.ClientVersion, huge.Version)
		if t.Failed() {
			break // one record tells it
		}
	}
}

// TestActivityCapsRefusedRequests: a request turned away is recorded with
// what its sender chose, here an Origin of half a megabyte, and anyone on
// this computer may send one without a token.
func TestActivityCapsRefusedRequests(t *testing.T) {
	d := start(t, testConfig(t.TempDir()))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	committed := d.Activity().SubscribeActivity(ctx)
	origin := "http://" + strings.Repeat("o", 500_000) + ".example"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", origin)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("HTTP %d, want 403 for a foreign Origin", resp.StatusCode)
	}
	// The refusal is answered before it is recorded: wait for its record.
	select {
	case <-committed:
	case <-ctx.Done():
		t.Fatal("the refused request was never recorded")
	}
	recs, err := d.Store().Activity(ctx, storage.ActivityQuery{})
	if err != nil || len(recs) != 1 {
		t.Fatalf("%d records (%v), want the refused request's", len(recs), err)
	}
	checkCut(t, "the refused request's detail", recs[0].Detail, "403 Forbidden: Origin \"http://ooo")
}

// checkCut fails t unless stored is at most a kilobyte, begins as sent
// began, and says it was cut.
func checkCut(t *testing.T, what, stored, sent string) {
	t.Helper()
	if len(stored) > 1000 || !strings.HasPrefix(stored, sent[:20]) || !strings.Contains(stored, "… (cut at ") {
		t.Errorf("%s: %d bytes kept, ending %q; want at most 1,000, beginning as sent and saying it was cut",
			what, len(stored), stored[max(0, len(stored)-40):])
	}
}

// fileSize is the size of the file at path, 0 when there is none.
func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
