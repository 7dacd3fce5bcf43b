package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFilesCommands: `mcptray files search` and `files clean` as the
// starter's search_notes and clean_downloads call them: what they print,
// that nothing found or nothing old is said in words with exit 0, that
// what follows "--" is the query even when it looks like a flag, and that
// a mistake exits 2 with the usage and a missing folder 1.
func TestFilesCommands(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "Notes")
	downloads := filepath.Join(dir, "Downloads")
	for name, text := range map[string]string{
		filepath.Join(notes, "shopping.md"):        "Buy milk\r\n--in=" + dir + "\r\n",
		filepath.Join(notes, "sub", "ideas.txt"):   "MILK shake\n",
		filepath.Join(notes, "other.log"):          "milk\n",
		filepath.Join(downloads, "old report.txt"): "old",
		filepath.Join(downloads, "new.txt"):        "new",
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().AddDate(0, 0, -90)
	if err := os.Chtimes(filepath.Join(downloads, "old report.txt"), old, old); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args       []string
		code       int
		out, errOf string
	}{
		{[]string{"files", "search", "--in", notes, "--ext", ".md,.txt", "--max-per-file", "5", "--", "milk"}, 0,
			"shopping.md:1:Buy milk\n" + filepath.Join("sub", "ideas.txt") + ":1:MILK shake\n", ""},
		{[]string{"files", "search", "--in", notes, "--", "--in=" + dir}, 0, "shopping.md:2:--in=" + dir + "\n", ""},
		{[]string{"files", "search", "--in", notes, "--ext", ".md", "--", "bread"}, 0,
			`No .md file in ` + notes + ` mentions "bread".` + "\n", ""},
		{[]string{"files", "search", "--in", filepath.Join(dir, "Nowhere"), "--", "milk"}, 1, "", "there is no folder"},
		{[]string{"files", "search", "--in", notes}, 2, "", "usage: mcptray files search"},
		{[]string{"files", "search", "--max-per-file", "-1", "milk"}, 2, "", "--max-per-file must be 0"},
		{[]string{"files", "clean", downloads, "--older-than-days", "30"}, 0, filepath.Join(downloads, "old report.txt") + "\n", ""},
		{[]string{"files", "clean", downloads, "--older-than-days", "30"}, 0,
			"No file in " + downloads + " is older than 30 days: nothing was deleted.\n", ""},
		{[]string{"files", "clean", downloads}, 2, "", "--older-than-days must be a whole number of days, 1 or more (not 0)"},
		{[]string{"files", "clean", downloads, "--older-than-days", "-2"}, 2, "", "1 or more (not -2)"},
		{[]string{"files", "clean", filepath.Join(dir, "Nowhere"), "--older-than-days", "1"}, 1, "", "there is no folder"},
		{[]string{"files", "tidy"}, 2, "", `unknown files command "tidy"`},
	} {
		var out, errOut bytes.Buffer
		code := Main(context.Background(), c.args, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Version: "test"})
		if code != c.code || out.String() != c.out || !strings.Contains(errOut.String(), c.errOf) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q;\nwant exit %d, stdout %q, stderr with %q", c.args, code, out.String(), errOut.String(), c.code, c.out, c.errOf)
		}
	}
	if _, err := os.Stat(filepath.Join(downloads, "new.txt")); err != nil {
		t.Errorf("files clean deleted the new download: %v", err)
	}
}
