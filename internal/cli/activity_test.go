package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testserver"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/record"
	"github.com/mcptray/mcptray/storage"
)

func TestActivityCmd(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "mcptray.db")
	st, err := storage.Open(db, mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	w := st.NewActivityWriter(storage.ActivityWriterOptions{})
	defer w.Close()
	w.Record(record.Activity{Client: "claude-code", Token: "laptop", Method: "tools/call", Target: "greet",
		Duration: 1234 * time.Microsecond, Outcome: record.OutcomeOK})
	w.Record(record.Activity{Client: "cursor", Method: "resources/read", Target: "file:///a-very-long/path/to/some/notes.md",
		Outcome: record.OutcomeError, ErrorCode: -32602})
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}

	var out bytes.Buffer
	if err := Run(ctx, []string{"activity", "--db", db}, Env{Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "TIME") ||
		!strings.Contains(lines[1], "claude-code") || !strings.Contains(lines[1], "1.23ms") ||
		!strings.Contains(lines[2], "error -32602") || !strings.Contains(lines[2], "file:///a-very-long/path/to…") {
		t.Errorf("activity:\n%s", out.String())
	}
	out.Reset()
	if err := Run(ctx, []string{"activity", "--db", db, "--client", "cursor"}, Env{Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n"); n != 2 || strings.Contains(out.String(), "claude-code") {
		t.Errorf("--client cursor:\n%s", out.String())
	}

	// --follow prints what another process writes afterwards.
	followCtx, stop := context.WithCancel(ctx)
	var followed testutil.SyncBuffer
	done := make(chan error, 1)
	go func() {
		done <- Run(followCtx, []string{"activity", "--db", db, "--follow", "--tool", "deploy", "--limit", "0"}, Env{Stdout: &followed})
	}()
	time.Sleep(300 * time.Millisecond) // let it start following
	other, err := storage.Open(db, mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ow := other.NewActivityWriter(storage.ActivityWriterOptions{})
	ow.Record(record.Activity{Client: "zed", Method: "tools/call", Target: "greet", Outcome: record.OutcomeOK})
	ow.Record(record.Activity{Client: "zed", Method: "tools/call", Target: "deploy", Outcome: record.OutcomeToolError})
	if err := ow.Close(); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "--follow to print the deploy call", func() bool { return strings.Contains(followed.String(), "deploy") })
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := followed.String()
	if !strings.Contains(got, "deploy") || strings.Contains(got, "greet") || strings.Count(got, "\n") != 2 {
		t.Errorf("followed:\n%s", got)
	}
}

// TestActivityShowsCancelledTasks: a task cancelled on the desktop is
// "cancelled" — neither ok nor error — in the log and its filter.
func TestActivityShowsCancelledTasks(t *testing.T) {
	s := testserver.Start(t, testserver.Options{Catalog: &catalog.Catalog{Format: catalog.CatalogFormat, Version: catalog.CatalogVersion,
		Tools: []catalog.Tool{{Name: "slow", Description: "Waits.", TaskMode: catalog.TaskOptional,
			Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "done"}},
				Steps: []catalog.Step{{DelayMs: 60_000, Log: &catalog.LogStep{Level: "info", Data: "waited"}}}}}}}}})
	id := s.StartTask(t, "slow", nil)
	if err := s.Engine.CancelTask(id); err != nil {
		t.Fatal(err)
	}
	if err := s.Activity.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Run(context.Background(), []string{"activity", "--db", s.Daemon.DB(), "--outcome", "cancelled"}, Env{Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], "cancelled") || !strings.Contains(lines[1], "slow") {
		t.Fatalf("--outcome cancelled:\n%s", out.String())
	}
	out.Reset()
	if err := Run(context.Background(), []string{"activity", "--db", s.Daemon.DB(), "--outcome", "error"}, Env{Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("the cancelled task is also an error:\n%s", out.String())
	}
	err := Run(context.Background(), []string{"activity", "--db", s.Daemon.DB(), "--outcome", "canceled"}, Env{Stdout: &out})
	if err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Fatalf("a misspelt outcome: %v", err)
	}
}
