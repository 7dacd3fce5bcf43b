package mcpcore_test

// subscriptions/listen streams and legacy sessions told about live catalog
// edits — this process's and another process's on the same database file —
// kept alive while idle, and ended gracefully on shutdown.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testcatalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// helperDBEnv carries the database path to TestHelperProcess.
const helperDBEnv = "MCPTRAY_TEST_HELPER_DB"

// childTool is what the other process adds.
const childTool = "added_by_another_process"

// TestHelperProcess is not a test: TestListenSeesCatalogEdits runs it in a
// child process to edit the database from another process.
func TestHelperProcess(t *testing.T) {
	db := os.Getenv(helperDBEnv)
	if db == "" {
		t.Skip("only runs as the child process of TestListenSeesCatalogEdits")
	}
	st, err := storage.Open(db, mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.PutTool(testCtx(t), testcatalog.RespondTool(childTool, "hi")); err != nil {
		t.Fatal(err)
	}
}

// listen opens a 2026 subscriptions/listen stream for tools/list_changed,
// reads its acknowledgement and returns the stream and the request id.
func (e *env) listen(t *testing.T) (*stream, int64) {
	t.Helper()
	r := e.modern("subscriptions/listen", map[string]any{"notifications": map[string]any{"toolsListChanged": true}})
	s := e.open(t, r.Request)
	ack := s.nextMessage(t)
	if ack.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message on the listen stream: %+v, want the acknowledgement", ack)
	}
	if got := field(decode(t, ack.Params), "notifications", "toolsListChanged"); got != true {
		t.Fatalf("acknowledged notifications.toolsListChanged = %v, want true: %s", got, ack.Params)
	}
	return s, r.id
}

// wantListChanged requires the next message to be tools/list_changed for
// the subscription id.
func wantListChanged(t *testing.T, s *stream, id int64) {
	t.Helper()
	m := s.nextMessage(t)
	if m.Method != "notifications/tools/list_changed" {
		t.Fatalf("got %+v, want notifications/tools/list_changed", m)
	}
	if got := field(decode(t, m.Params), "_meta", metaSubscription); got != float64(id) {
		t.Errorf("_meta[%s] = %v, want the listen request id %d", metaSubscription, got, id)
	}
}

func TestListenSeesCatalogEdits(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx := testCtx(t)
	s, id := e.listen(t)

	t.Run("this process", func(t *testing.T) {
		if err := e.st.PutTool(ctx, testcatalog.RespondTool("added_in_process", "hi")); err != nil {
			t.Fatal(err)
		}
		wantListChanged(t, s, id)
		if names := e.listTools(t, "").names(); !slices.Contains(names, "added_in_process") {
			t.Errorf("tools/list after the edit lacks added_in_process: %v", names)
		}
	})

	t.Run("another process", func(t *testing.T) {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1", "-test.timeout=30s")
		cmd.Env = append(os.Environ(), helperDBEnv+"="+e.db)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the other process failed: %v\n%s", err, out)
		}
		wantListChanged(t, s, id)
		if names := e.listTools(t, "").names(); !slices.Contains(names, childTool) {
			t.Errorf("tools/list after the other process's edit lacks %s: %v", childTool, names)
		}
	})
}

// TestClientToldOfEdits: go-sdk clients of both eras get tools/list_changed
// after an edit (a listen stream in 2026, the session's GET stream in 2025).
func TestClientToldOfEdits(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			changed := make(chan struct{}, 8)
			cs := e.connect(t, era, newClient(&mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
			}), "")
			ctx := testCtx(t)
			name := "edited_in_" + era
			if err := e.st.PutTool(ctx, testcatalog.RespondTool(name, "hi")); err != nil {
				t.Fatal(err)
			}
			select {
			case <-changed:
			case <-ctx.Done():
				t.Fatalf("no tools/list_changed within %v", testutil.Patience)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name})
			if err != nil || res.IsError {
				t.Fatalf("calling the added tool: %v %+v", err, res)
			}
		})
	}
}

func TestListenKeepAlive(t *testing.T) {
	e := newEnv(t, envOptions{keepAlive: 50 * time.Millisecond})
	s, _ := e.listen(t)
	for range 2 {
		ev, ok := s.next(t)
		if !ok {
			t.Fatalf("the idle listen stream ended")
		}
		if !ev.comment {
			t.Fatalf("want a keep-alive comment on the idle stream, got %s", ev.data)
		}
	}
}

func TestShutdownEndsListen(t *testing.T) {
	e := newEnv(t, envOptions{})
	s, id := e.listen(t)
	e.eng.Shutdown()
	wantFinalResult(t, s, id)
}

// TestServerChangeEndsListen: a new server name replaces the go-sdk
// servers; a stream on the old one ends with its result, so the client
// listens again, on the new one.
func TestServerChangeEndsListen(t *testing.T) {
	e := newEnv(t, envOptions{})
	s, id := e.listen(t)
	set, err := e.st.Settings(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	set.ServerName = "renamed"
	if err := e.st.PutSettings(testCtx(t), set); err != nil {
		t.Fatal(err)
	}
	wantFinalResult(t, s, id)
}

// wantFinalResult reads the listen stream's final result, and then nothing
// but keep-alive comments until it closes.
func wantFinalResult(t *testing.T, s *stream, id int64) {
	t.Helper()
	m := s.nextMessage(t)
	if !m.isResponse() || m.Error != nil {
		t.Fatalf("after Shutdown: %+v, want the listen request's result", m)
	}
	var gotID int64
	if err := json.Unmarshal(m.ID, &gotID); err != nil || gotID != id {
		t.Errorf("final result id %s, want %d", m.ID, id)
	}
	if got := field(decode(t, m.Result), "resultType"); got != "complete" {
		t.Errorf("final result resultType %v, want complete: %s", got, m.Result)
	}
	for {
		ev, ok := s.next(t)
		if !ok {
			break
		}
		if !ev.comment {
			t.Fatalf("a message after the final result: %s", ev.data)
		}
	}
}
