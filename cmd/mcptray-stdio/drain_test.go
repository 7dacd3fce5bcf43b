package main

// The shim's bridge, in process, against the real server (internal/testserver)
// when its input ends: what it read is answered before it returns.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testcatalog"
	"github.com/mcptray/mcptray/internal/testserver"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/storage"
)

// drainCatalog serves greet, which answers at once, and slow, which sends
// a progress notification (so a test knows it runs) and then waits a minute.
func drainCatalog() *catalog.Catalog {
	slow := testcatalog.RespondTool("slow", "done")
	slow.Action.Respond.Steps = []catalog.Step{
		{Progress: &catalog.ProgressStep{Progress: 1, Total: 2, Message: "started"}},
		{DelayMs: 60_000, Progress: &catalog.ProgressStep{Progress: 2, Total: 2}},
	}
	return &catalog.Catalog{Format: catalog.CatalogFormat, Version: catalog.CatalogVersion,
		Tools: []catalog.Tool{testcatalog.RespondTool("greet", "hello"), slow}}
}

// newTestBridge is a bridge to s writing its stdout to stdout; its
// diagnostics are shown when the test fails.
func newTestBridge(t *testing.T, s *testserver.Server, stdout io.Writer) *bridge {
	stderr := &testutil.SyncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the shim's diagnostics:\n%s", stderr)
		}
	})
	return newBridge(config{endpointFile: s.EndpointFile}, nil, stdout, stderr)
}

// runBridge runs b on stdin until it returns, failing t if that takes
// longer than the bridge could wait.
func runBridge(t *testing.T, b *bridge, stdin io.Reader) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.run(context.Background(), stdin)
	}()
	select {
	case <-done:
	case <-time.After(30*time.Second + testutil.Patience):
		t.Fatalf("the bridge did not return within %v of its input ending", 30*time.Second+testutil.Patience)
	}
}

// responses are the answers among msgs, by id.
func responses(t *testing.T, msgs []map[string]any) map[string][]map[string]any {
	t.Helper()
	byID := map[string][]map[string]any{}
	for _, m := range msgs {
		if m["method"] == nil {
			id := fmt.Sprint(m["id"])
			byID[id] = append(byID[id], m)
		}
	}
	return byID
}

// lines parses what the bridge wrote: one JSON-RPC message a line.
func lines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var msgs []map[string]any
	for l := range strings.Lines(out) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["jsonrpc"] != "2.0" {
			t.Fatalf("stdout line is not a JSON-RPC message: %q", l)
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// TestAnswersWhatWasReadWhenInputEnds: a client that writes its requests
// and closes its end at once (as scripts and tests pipe) gets an answer to
// every request, in both protocol eras, and none to its notifications; the
// call ran once.
func TestAnswersWhatWasReadWhenInputEnds(t *testing.T) {
	const legacyInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"piped","version":"1"}}}`
	for _, c := range []struct {
		era   string
		input []string
	}{
		{"2025-11-25", []string{
			legacyInit,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{}}}`,
		}},
		{"2026-07-28", []string{
			strings.TrimSpace(modernReq(1, "server/discover", "")),
			`{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":{` + modernMeta + `}}`,
			strings.TrimSpace(modernReq(2, "tools/list", "")),
			strings.TrimSpace(modernReq(3, "tools/call", `"name":"greet","arguments":{}`)),
		}},
	} {
		t.Run(c.era, func(t *testing.T) {
			s := testserver.Start(t, testserver.Options{Catalog: drainCatalog()})
			var out testutil.SyncBuffer
			runBridge(t, newTestBridge(t, s, &out), strings.NewReader(strings.Join(c.input, "\n")+"\n"))
			byID := responses(t, lines(t, out.String()))
			for _, id := range []string{"1", "2", "3"} {
				if got := byID[id]; len(got) != 1 || got[0]["result"] == nil {
					t.Errorf("request %s: answered with %v, want one result", id, got)
				}
			}
			if len(byID) != 3 {
				t.Errorf("answers to %d ids, want 3: %v", len(byID), byID)
			}
			if err := s.Activity.Flush(t.Context()); err != nil {
				t.Fatal(err)
			}
			calls, err := s.Store.Activity(t.Context(), storage.ActivityQuery{Method: "tools/call", Target: "greet"})
			if err != nil {
				t.Fatal(err)
			}
			if len(calls) != 1 {
				t.Errorf("mcptray saw the call %d times, want once", len(calls))
			}
		})
	}
}

// TestStopsWaitingForARequestStillRunning: a request still running when the
// shim stops waiting after its input ended is answered with an error that
// says so, once; mcptray had the call once, and stopped it.
func TestStopsWaitingForARequestStillRunning(t *testing.T) {
	s := testserver.Start(t, testserver.Options{Catalog: drainCatalog()})
	stdin, client := io.Pipe()
	t.Cleanup(func() { client.Close() })
	fromShim, stdout := io.Pipe()
	b := newTestBridge(t, s, stdout)
	b.drain = 10 * time.Millisecond // the call is known to run before the input ends
	msgs := make(chan map[string]any, 100)
	go func() {
		defer close(msgs)
		sc := bufio.NewScanner(fromShim)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("stdout line is not JSON: %q", sc.Text())
				continue
			}
			msgs <- m
		}
	}()
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		b.run(context.Background(), stdin)
		stdout.Close()
	}()
	// next waits for the next message the client reads.
	next := func(what string) map[string]any {
		t.Helper()
		select {
		case m, ok := <-msgs:
			if !ok {
				t.Fatalf("stdout ended before %s", what)
			}
			return m
		case <-time.After(testutil.Patience):
			t.Fatalf("no %s within %v", what, testutil.Patience)
			return nil
		}
	}

	if _, err := io.WriteString(client, modernReq(1, "tools/call", `"name":"slow","arguments":{},"_meta":{"progressToken":"p"}`)); err != nil {
		t.Fatal(err)
	}
	if m := next("progress of the call"); m["method"] != "notifications/progress" {
		t.Fatalf("got %v, want the call's progress", m)
	}
	client.Close()
	m := next("answer to the call")
	e, _ := m["error"].(map[string]any)
	msg, _ := e["message"].(string)
	data, _ := e["data"].(map[string]any)
	if m["id"] != 1.0 || errCode(m) != codeInternal || !strings.Contains(msg, "input ended") || !strings.Contains(msg, "stopped waiting") || data["reason"] != "input-ended" {
		t.Fatalf("got %v, want error %d saying the input ended and mcptray stopped waiting", m, codeInternal)
	}
	select {
	case <-returned:
	case <-time.After(testutil.Patience):
		t.Fatal("the bridge did not return once it stopped waiting")
	}
	for m := range msgs {
		t.Errorf("after the answer, the client read %v", m)
	}
	// mcptray had the call once: the shim cancelled it, and sent it no more.
	var calls []storage.ActivityRecord
	testutil.Eventually(t, "mcptray to record how the call ended", func() bool {
		var err error
		calls, err = s.Store.Activity(t.Context(), storage.ActivityQuery{Method: "tools/call", Target: "slow"})
		return err == nil && len(calls) > 0
	})
	if len(calls) != 1 || calls[0].Outcome != record.OutcomeCancelled {
		t.Errorf("mcptray recorded %+v, want one cancelled call", calls)
	}
}
