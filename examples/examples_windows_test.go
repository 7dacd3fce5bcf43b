//go:build windows

package examples_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/examples"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/mcpcore/actions"
)

// TestExamplesRunOnWindows calls every example that runs a command as
// Windows runs it (its "os": {"windows": …} line), in a user folder with
// a space in its name holding the notes, scripts and downloads they work
// on, and then with values that would be commands if cmd read them. It
// runs on Windows, and under Wine by hand (see docs/windows-commands.md):
// Wine lacks some programs (PowerShell), so an example whose program is
// missing is logged, not failed, unless MCPTRAY_EXAMPLES_STRICT is set, as
// it is on a real Windows run.
func TestExamplesRunOnWindows(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	base, err := os.MkdirTemp("", "examples")
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: Go's RemoveAll fails under Wine 8, and a leftover
	// temporary folder is no failure.
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	home := filepath.Join(base, "Jane Doe")
	old := time.Now().Add(-40 * 24 * time.Hour)
	for name, text := range map[string]string{
		`Notes\todo.md`:                 "buy milk\r\nCall Bob about the Hello project\r\n",
		`Notes\sub\ideas.txt`:           "hello again\r\n",
		`mcptray-scripts\hello.bat`:     "@echo off\r\necho hello from a script\r\n",
		`bin\backup.cmd`:                "@echo off\r\necho copying\r\necho done\r\n",
		`Downloads\old file & more.txt`: "old",
		`Downloads\new.txt`:             "new",
		`Documents\read me.txt`:         "the text of a file\r\n",
		`Documents\delete me.txt`:       "bye",
	} {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(filepath.Join(home, `Downloads\old file & more.txt`), old, old); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(base, "pwned.txt")
	hostile := `x" & echo pwned > "` + marker + `" & "`
	// A file's path holds no '"' on Windows, and delete_file's schema
	// refuses one: Wine's cmd (not Windows') reads a quote of a !NAME!
	// inside an if.
	unquoted := `x & echo pwned > ` + marker + ` & ^| (a)`
	// Windows' cmd leaves a variable's value as it is; Wine's expands
	// what it holds once more.
	const vars = ` %PATH% !PATH!`

	var tools []catalog.Tool
	for _, src := range [][]byte{examples.Starter, examples.Gallery} {
		c, err := mcpcore.ParseCatalog(src)
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, examples.On(c, "windows").Tools...)
	}
	calls := map[string][]map[string]any{
		"current_time":       {nil},
		"search_notes":       {{"query": "hello"}, {"query": hostile}},
		"run_script":         {{"script": "hello.bat"}},
		"clean_downloads":    {{"days": 30}},
		"read_file":          {{"path": filepath.Join(home, `Documents\read me.txt`)}, {"path": hostile}},
		"list_folder":        {{"folder": filepath.Join(home, "Documents")}, {"folder": hostile}},
		"search_notes_rg":    {{"query": "hello"}},
		"run_backup":         {nil},
		"delete_file":        {{"path": filepath.Join(home, `Documents\delete me.txt`)}, {"path": filepath.Join(home, "Documents")}, {"path": unquoted}},
		"disk_space":         {nil},
		"git_recent_commits": {{"repo": home, "count": 3}},
		"count_words":        {{"text": "one two three\nfour"}, {"text": hostile}},
		"ping_host":          {{"host": "127.0.0.1"}},
		"add_to_inbox":       {{"text": "first line\nsecond & line " + hostile + unquoted + vars}},
	}
	strict := os.Getenv("MCPTRAY_EXAMPLES_STRICT") != ""
	for _, tool := range tools {
		c := tool.Action.Command
		if c == nil {
			continue
		}
		args, ok := calls[tool.Name]
		if !ok {
			t.Errorf("%s: no call for it in this test", tool.Name)
			continue
		}
		for _, a := range args {
			data := &actions.Data{Args: a, Server: map[string]string{"home": home, "executable": exe},
				Inputs: map[string]any{"details": map[string]any{"content": map[string]any{"title": "A title & more", "urgency": "high"}}}}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			out, err := actions.CommandOutput(ctx, c, data)
			cancel()
			var failed string
			switch {
			case err != nil:
				failed = err.Error()
			case out.ExitCode != 0:
				failed = out.Status + ": " + string(out.Stderr)
			}
			if out != nil {
				t.Logf("%s %v → %s\n%s%s", tool.Name, a, out.Status, out.Stdout, out.Stderr)
			} else {
				t.Logf("%s %v → %v", tool.Name, a, err)
			}
			hostileCall := strings.Contains(toText(a), hostile) || strings.Contains(toText(a), unquoted) || a["path"] == filepath.Join(home, "Documents")
			missing := errors.Is(err, actions.ErrProgramNotFound) || strings.Contains(failed, "needs PowerShell")
			if failed != "" && !hostileCall && (strict || !missing) {
				// A hostile call may fail; what matters is the marker below.
				t.Errorf("%s %v failed: %s", tool.Name, a, failed)
			}
			if tool.Name == "search_notes" && a["query"] == "hello" && out != nil {
				// In any case, in the sub-folder too, paths relative to Notes.
				for _, want := range []string{"todo.md:2:Call Bob about the Hello project", `sub\ideas.txt:1:hello again`} {
					if !strings.Contains(string(out.Stdout), want) {
						t.Errorf("search_notes for hello did not answer %q", want)
					}
				}
			}
		}
	}
	if _, err := os.Stat(filepath.Join(home, `Documents\delete me.txt`)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("delete_file left the file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, `Documents\read me.txt`)); err != nil {
		t.Errorf("delete_file, called on the folder, deleted a file in it: %v", err)
	}
	inbox, err := os.ReadFile(filepath.Join(home, `Notes\inbox.md`))
	if want := "## A title & more (high)"; err != nil || !strings.Contains(string(inbox), want) || !strings.Contains(string(inbox), hostile+unquoted) {
		t.Errorf("the inbox reads %q (%v), want the title line %q and the note", inbox, err, want)
	}
	if strict && !strings.Contains(string(inbox), unquoted+vars) {
		t.Errorf("the inbox reads %q: cmd expanded the variables the note names", inbox)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a value became a command: %s exists (%v)", marker, err)
	}
	if _, err := os.Stat(filepath.Join(home, `Downloads\old file & more.txt`)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("clean_downloads left the old download: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, `Downloads\new.txt`)); err != nil {
		t.Errorf("clean_downloads deleted a new download: %v", err)
	}
}

func toText(a map[string]any) string {
	var b strings.Builder
	for _, v := range a {
		if s, ok := v.(string); ok {
			b.WriteString(s)
		}
	}
	return b.String()
}
