package examples_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/examples"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/mcpcore/actions"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// starterTool is the starter catalog's tool name, as this system gets it
// (examples.On).
func starterTool(t *testing.T, name string) catalog.Tool {
	t.Helper()
	c, err := mcpcore.ParseCatalog(examples.Starter)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range examples.On(c, runtime.GOOS).Tools {
		if tool.Name == name {
			return tool
		}
	}
	t.Fatalf("no %s in the starter catalog", name)
	return catalog.Tool{}
}

// call runs tool as a call with args runs it on this system, in a home
// folder of home, with this test program as the mcptray program (TestMain),
// and returns what the AI app gets: the result's text and whether it is an
// error.
func call(t *testing.T, tool catalog.Tool, home string, args map[string]any) (string, bool) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data := &actions.Data{Args: args, Server: map[string]string{"home": home, "executable": exe}}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	res, err := actions.Run(ctx, tool.Action, data, nil)
	if err != nil {
		t.Fatalf("%s %v: %v", tool.Name, args, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	return text.String(), res.IsError
}

// janesHome is a home folder with a space in its name, holding tree
// (paths under it, with slashes: their text).
func janesHome(t *testing.T, tree map[string]string) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "Jane Doe")
	testutil.WriteFiles(t, home, tree)
	return home
}

// TestSearchNotesAsThisSystemRunsIt: the starter's search_notes, as it runs
// here (on Linux and macOS its own line, on Windows its Windows one), in a
// home folder with a space in its name: the matching lines of the .md and
// .txt notes, sub-folders too, in any case, at most 5 of a file; a query
// that reads as an option is text to look for; and a search that finds
// nothing is an answer in words, not an error — grep, which the Linux line
// ran before, exits 1 then, and the AI app got "grep failed" and no text.
func TestSearchNotesAsThisSystemRunsIt(t *testing.T) {
	home := janesHome(t, map[string]string{
		"Notes/todo.md":       "buy milk\nCall Bob about the Hello project\n--in=/etc\n",
		"Notes/sub/ideas.txt": "hello again\n",
		"Notes/many.md":       strings.Repeat("hello\n", 7),
		"Notes/photo.log":     "hello from a file that is no note\n",
	})
	tool, notes := starterTool(t, "search_notes"), filepath.Join(home, "Notes")
	got, isErr := call(t, tool, home, map[string]any{"query": "Hello"})
	want := "many.md:1:hello\nmany.md:2:hello\nmany.md:3:hello\nmany.md:4:hello\nmany.md:5:hello\n" +
		filepath.Join("sub", "ideas.txt") + ":1:hello again\n" +
		"todo.md:2:Call Bob about the Hello project\n"
	if isErr || got != want {
		t.Errorf("search_notes for Hello answered (error: %v)\n%s\nwant\n%s", isErr, got, want)
	}
	if got, isErr := call(t, tool, home, map[string]any{"query": "--in=/etc"}); isErr || got != "todo.md:3:--in=/etc\n" {
		t.Errorf("search_notes for --in=/etc answered (error: %v) %q, want the note's line", isErr, got)
	}
	got, isErr = call(t, tool, home, map[string]any{"query": "bread and butter"})
	if want := `No .md or .txt file in ` + notes + ` mentions "bread and butter".` + "\n"; isErr || got != want {
		t.Errorf("search_notes finding nothing answered (error: %v) %q, want %q", isErr, got, want)
	}
	// No Notes folder: an error that says so.
	got, isErr = call(t, tool, t.TempDir(), map[string]any{"query": "milk"})
	if !isErr || !strings.Contains(got, "there is no folder") {
		t.Errorf("search_notes without a Notes folder answered (error: %v) %q", isErr, got)
	}
}

// TestCleanDownloadsAsThisSystemRunsIt: the starter's clean_downloads, as
// it runs here, deletes what its approval says — the files of Downloads
// older than the days given — and only those: a file 30 days and an hour
// old goes with days=30 (find -mtime +30, the Linux line before, kept it:
// it counts whole days, so it deleted only what was 31 days old or more),
// one 29 days old stays, and so do a folder and what it holds however old.
// It names each file it deleted, and when none is that old it says so in
// words, where find answered nothing.
func TestCleanDownloadsAsThisSystemRunsIt(t *testing.T) {
	home := janesHome(t, map[string]string{
		"Downloads/old report.pdf":     "old",
		"Downloads/last month.txt":     "recent",
		"Downloads/new.txt":            "new",
		"Downloads/old folder/kept.md": "kept",
	})
	tool, downloads := starterTool(t, "clean_downloads"), filepath.Join(home, "Downloads")
	for name, age := range map[string]time.Duration{
		"old report.pdf":     30*24*time.Hour + time.Hour,
		"last month.txt":     29 * 24 * time.Hour,
		"old folder/kept.md": 90 * 24 * time.Hour,
		"old folder":         90 * 24 * time.Hour,
	} {
		testutil.Aged(t, filepath.Join(downloads, filepath.FromSlash(name)), age)
	}
	var approval string
	for _, st := range tool.Steps {
		if st.Kind == catalog.StepApproval {
			approval, _ = actions.Render(st.Message, &actions.Data{Args: map[string]any{"days": 30}})
		}
	}
	if want := "Delete every file in Downloads older than 30 days? This cannot be undone."; approval != want {
		t.Errorf("the approval asks %q, want %q", approval, want)
	}
	got, isErr := call(t, tool, home, map[string]any{"days": 30})
	if want := filepath.Join(downloads, "old report.pdf") + "\n"; isErr || got != want {
		t.Errorf("clean_downloads with days=30 answered (error: %v) %q, want %q", isErr, got, want)
	}
	if _, err := os.Stat(filepath.Join(downloads, "old report.pdf")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the file 30 days and an hour old is still there: %v", err)
	}
	for _, kept := range []string{"last month.txt", "new.txt", "old folder/kept.md"} {
		if _, err := os.Stat(filepath.Join(downloads, filepath.FromSlash(kept))); err != nil {
			t.Errorf("clean_downloads with days=30 deleted %s: %v", kept, err)
		}
	}
	got, isErr = call(t, tool, home, map[string]any{"days": 30})
	if want := "No file in " + downloads + " is older than 30 days: nothing was deleted.\n"; isErr || got != want {
		t.Errorf("clean_downloads with nothing old answered (error: %v) %q, want %q", isErr, got, want)
	}
}
