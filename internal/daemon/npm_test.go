package daemon

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/process"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/storage"
)

// TestNPMServersFronted: mcptray fronts the reference servers published on
// npm (pinned in tests/everything) as a person configures them: the
// everything server over stdio and over its Streamable HTTP mode, the
// filesystem server over stdio with a folder it may read. An AI client on
// mcptray's endpoint, in each era, lists their tools under each server's
// prefix and calls them: echo, a long operation whose progress reaches it
// and which it then cancels, a folder listed and a file read. When mcptray
// stops, none of the servers' processes runs.
func TestNPMServersFronted(t *testing.T) {
	npm := testutil.NPMServers(t, testutil.Everything, testutil.Filesystem)
	folder := t.TempDir()
	if err := os.WriteFile(filepath.Join(folder, "notes.txt"), []byte("read through mcptray\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(folder, "drafts"), 0o700); err != nil {
		t.Fatal(err)
	}
	d, token := startStarter(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for _, u := range []catalog.Upstream{
		{Name: "everything", Command: &catalog.UpstreamCommand{Argv: append(slices.Clone(npm[testutil.Everything]), "stdio")}},
		{Name: "everyhttp", Remote: &catalog.UpstreamRemote{URL: testutil.StartEverythingHTTP(t, npm[testutil.Everything]),
			Transport: catalog.UpstreamStreamable}},
		{Name: "files", Command: &catalog.UpstreamCommand{Argv: append(slices.Clone(npm[testutil.Filesystem]), folder)}},
	} {
		// Started with mcptray, so that their tools are read at once.
		u.Start = catalog.UpstreamAtStart
		frontApprovedOnce(ctx, t, d, token, u, 3)
	}

	for _, era := range []string{"", "2025-11-25"} {
		t.Run(cmp.Or(era, "2026-07-28"), func(t *testing.T) {
			progress := make(chan *mcp.ProgressNotificationParams, 100)
			cs := aiClient(ctx, t, d, token, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
				// Never block the session's reading: a step nobody
				// waits for any more may be dropped.
				select {
				case progress <- r.Params:
				default:
				}
			}}, era)
			testutil.EventuallyShows(t, "every server's tools listed", func() (bool, string) {
				names, err := allTools(ctx, cs)
				if err != nil {
					return false, err.Error()
				}
				for _, want := range []string{"everything_echo", "everything_trigger-long-running-operation",
					"everyhttp_echo", "everyhttp_trigger-long-running-operation", "files_list_directory", "files_read_text_file"} {
					if !slices.Contains(names, want) {
						return false, fmt.Sprintf("no %s among %q", want, names)
					}
				}
				return true, ""
			})
			for _, prefix := range []string{"everything_", "everyhttp_"} {
				callEverything(ctx, t, d, cs, prefix, progress)
			}
			listing := npmText(ctx, t, cs, "files_list_directory", map[string]any{"path": folder})
			if !strings.Contains(listing, "[FILE] notes.txt") || !strings.Contains(listing, "[DIR] drafts") {
				t.Errorf("files_list_directory: %q", listing)
			}
			if got := npmText(ctx, t, cs, "files_read_text_file", map[string]any{"path": filepath.Join(folder, "notes.txt")}); got != "read through mcptray\n" {
				t.Errorf("files_read_text_file: %q", got)
			}
		})
	}

	leaders := processGroups(ctx, t, d)
	if len(leaders) != 2 {
		t.Errorf("%d process groups recorded, want the 2 servers over stdio: %v", len(leaders), leaders)
	}
	d.Stop()
	testutil.EventuallyShows(t, "the servers' processes to end", func() (bool, string) {
		for _, pid := range leaders {
			if process.Alive(pid) {
				return false, fmt.Sprintf("pid %d runs", pid)
			}
		}
		return true, ""
	})
}

// callEverything calls the everything server's echo under prefix, then its
// long operation (a step a second for a minute) with a progress token:
// two steps reach cs, then the client cancels the call, which the activity
// log records as cancelled.
func callEverything(ctx context.Context, t *testing.T, d *Daemon, cs *mcp.ClientSession, prefix string, progress <-chan *mcp.ProgressNotificationParams) {
	t.Helper()
	if got := npmText(ctx, t, cs, prefix+"echo", map[string]any{"message": "hi"}); got != "Echo: hi" {
		t.Errorf("%secho: %q", prefix, got)
	}
	long := prefix + "trigger-long-running-operation"
	token := "progress of " + long
	p := &mcp.CallToolParams{Name: long, Arguments: map[string]any{"duration": 60, "steps": 60}}
	p.SetProgressToken(token)
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, p)
		done <- err
	}()
	for step := 1.0; step <= 2; {
		select {
		case n := <-progress:
			if n.ProgressToken != token {
				continue // a step of an earlier call, cancelled
			}
			if n.Progress != step || n.Total != 60 {
				t.Errorf("%s: progress %v of %v, want %v of 60", long, n.Progress, n.Total, step)
			}
			step++
		case err := <-done:
			t.Fatalf("%s ended before its second step: %v", long, err)
		case <-time.After(testutil.Patience):
			t.Fatalf("%s: no progress reached the client", long)
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("%s cancelled: %v", long, err)
	}
	testutil.EventuallyShows(t, long+" recorded as cancelled", func() (bool, string) {
		if err := d.Activity().Flush(ctx); err != nil {
			return false, err.Error()
		}
		acts, err := d.Store().Activity(ctx, storage.ActivityQuery{Method: "tools/call", Target: long, Outcome: record.OutcomeCancelled})
		if err != nil {
			return false, err.Error()
		}
		return len(acts) > 0, "no cancelled call"
	})
}

// allTools lists every page of cs's tools, by name.
func allTools(ctx context.Context, cs *mcp.ClientSession) ([]string, error) {
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		names = append(names, tool.Name)
	}
	return names, nil
}

// npmText calls tool through cs and returns its one text.
func npmText(ctx context.Context, t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError || len(res.Content) == 0 {
		t.Fatalf("%s: %s", tool, testutil.MustJSON(t, res))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: %T, not text", tool, res.Content[0])
	}
	return text.Text
}

// processGroups reads the process groups d recorded for the programs it
// runs (storage's process_groups), from its database file beside it.
func processGroups(ctx context.Context, t *testing.T, d *Daemon) []int {
	t.Helper()
	db, err := sql.Open("sqlite3", d.DB())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT id FROM process_groups ORDER BY id`)
	if err != nil {
		t.Fatalf("reading the recorded process groups: %v", err)
	}
	defer rows.Close()
	var ids []int
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}
