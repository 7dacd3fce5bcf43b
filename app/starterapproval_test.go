package app

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/examples"
	"github.com/mcptray/mcptray/internal/testserver"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
)

// TestStarterCleanDownloadsApproval: the approval of the starter's
// clean_downloads, called by an AI app on a real server, asks what the
// tool does in words and shows the line that will run — the mcptray
// program (here this test program, os.Executable, as the serving process
// names itself) with files clean, the Downloads folder and the days — and
// fits its window; drawn as approval-clean-downloads.png. Denied, nothing
// runs and the old download stays.
func TestStarterCleanDownloadsApproval(t *testing.T) {
	// The server's home (.server.home) is a folder of the test's, never
	// the person's: read when the server starts.
	home := filepath.Join(t.TempDir(), "Jane Doe")
	t.Setenv("HOME", home)
	testutil.WriteFiles(t, home, map[string]string{"Downloads/old.zip": "old"})
	old := filepath.Join(home, "Downloads", "old.zip")
	testutil.Aged(t, old, 90*24*time.Hour)
	starter, err := mcpcore.ParseCatalog(examples.Starter)
	if err != nil {
		t.Fatal(err)
	}
	app := uitest.NewRecordingApp(t)
	test.ApplyTheme(t, theme.DefaultTheme()) // before any widget: the real look
	a := NewAsker(app)
	srv := uitest.ServedBy(testserver.Start(t, testserver.Options{Asker: a, Catalog: examples.On(starter, runtime.GOOS)}))
	cs := srv.Connect(t.Context(), t)
	t.Cleanup(func() { _ = cs.Close() })
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "clean_downloads", Arguments: map[string]any{"days": 30}})
		if err != nil {
			t.Errorf("calling clean_downloads: %v", err)
		}
		done <- res
	}()
	p := shownQuestion(t, a, "clean_downloads")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// In a POSIX shell's quoting: the app's tests run on Linux and macOS.
	runs := "Runs: " + exe + " files clean '" + filepath.Join(home, "Downloads") + "' --older-than-days 30"
	inUI(a, func() {
		uitest.Capture(t, p.win, "approval-clean-downloads.png")
		uitest.Sees(t, "the approval of clean_downloads", uitest.SeenIn(p.win.Canvas()),
			`label: app-test wants to run "Clean old downloads"`,
			"label: Delete every file in Downloads older than 30 days? This cannot be undone.",
			"label: Clean old downloads (clean_downloads)",
			"label: What will run, if you allow it", "label: "+runs,
			"button: Deny {high}", "button: Allow once {danger}")
		uitest.Fits(t, p.win)
	})
	test.Tap(p.approval.deny)
	var res *mcp.CallToolResult
	select {
	case res = <-done:
	case <-time.After(testutil.Patience):
		t.Fatal("no answer to the denied call")
	}
	if res == nil || !res.IsError || !strings.Contains(uitest.ResultText(res), "denied") {
		t.Errorf("the denied call answered %+v", res)
	}
	if _, err := os.Stat(old); err != nil {
		t.Errorf("the denied clean_downloads deleted the old download: %v", err)
	}
}
