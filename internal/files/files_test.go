package files

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/mcptray/mcptray/internal/testutil"
)

// utf16LE is s as Windows PowerShell 5.1's > writes it: UTF-16, little
// endian, with its byte order mark.
func utf16LE(s string) string {
	b := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return string(b)
}

// TestSearchFindsTheLinesAsGrepDoes: every matching line of the text files
// in the folder and its sub-folders, in any case, as PATH:LINE:TEXT with
// the path relative to the folder, in lexical order; line ends (CRLF) and
// a byte order mark are not part of the text; binary files, other
// extensions and symbolic links are skipped; at most MaxPerFile lines of
// a file.
func TestSearchFindsTheLinesAsGrepDoes(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{
		"todo.md":             "\uFEFFBuy MILK\r\nbread\r\nmilk again\r\nno\r\nmilk 3\r\n",
		"sub/ideas.TXT":       "a milkshake\nnothing",
		"sub/deeper/old.txt":  "last line without an end: Milk",
		"photo.md":            "milk\x00\x01binary",
		"script.sh":           "milk in another kind of file\n",
		"windows/ps.txt":      utf16LE("Written by PowerShell\r\nbuy milk\r\n"),
		"windows/big-end.txt": "\xFE\xFF\x00m\x00i\x00l\x00k",
	})
	if err := os.Symlink(filepath.Join(dir, "todo.md"), filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	found, err := Search(&out, dir, "milk", SearchOptions{Exts: []string{".md", "txt", "*.Txt"}, MaxPerFile: 2})
	if err != nil {
		t.Fatal(err)
	}
	sep := string(filepath.Separator)
	want := strings.Join([]string{
		"sub" + sep + "deeper" + sep + "old.txt:1:last line without an end: Milk",
		"sub" + sep + "ideas.TXT:1:a milkshake",
		"todo.md:1:Buy MILK",
		"todo.md:3:milk again",
		"windows" + sep + "big-end.txt:1:milk",
		"windows" + sep + "ps.txt:2:buy milk",
	}, "\n") + "\n"
	if out.String() != want {
		t.Errorf("Search wrote\n%s\nwant\n%s", out.String(), want)
	}
	if found.Lines != 6 || len(found.Unreadable) != 0 {
		t.Errorf("Search found %+v, want 6 lines and nothing unreadable", found)
	}
	// Without extensions, every text file; without a limit, every line.
	out.Reset()
	if found, err := Search(&out, dir, "MILK", SearchOptions{}); err != nil || found.Lines != 8 ||
		!strings.Contains(out.String(), "script.sh:1:milk in another kind of file\n") || !strings.Contains(out.String(), "todo.md:5:milk 3\n") {
		t.Errorf("Search of every file: %+v, %v:\n%s", found, err, out.String())
	}
}

// TestSearchQueryIsPlainText: no character of the query is special —
// not a backslash (findstr's escape, even with /l), a dot, a star, a
// bracket nor a quote — and the text is matched in any case, beyond ASCII
// too.
func TestSearchQueryIsPlainText(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{"n.txt": "see C:\\Users\\Jane Doe\\file.txt\r\nC:Usersx\r\na.b and [x]* \"q\"\r\naxb\r\nÉCOLE Straße\r\n"})
	for query, want := range map[string]string{
		`C:\Users\Jane Doe`: "n.txt:1:see C:\\Users\\Jane Doe\\file.txt\n",
		`a.b`:               "n.txt:3:a.b and [x]* \"q\"\n",
		`[x]* "q"`:          "n.txt:3:a.b and [x]* \"q\"\n",
		`école`:             "n.txt:5:ÉCOLE Straße\n",
	} {
		var out bytes.Buffer
		if _, err := Search(&out, dir, query, SearchOptions{}); err != nil || out.String() != want {
			t.Errorf("Search for %q wrote %q, %v; want %q", query, out.String(), err, want)
		}
	}
}

// TestSearchSaysWhatIsWrong: an empty query, a folder that is not there
// and a file given as the folder are errors that say so; nothing found is
// no error, and NothingFound says it in words.
func TestSearchSaysWhatIsWrong(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{"n.md": "hello\n"})
	for _, tc := range []struct{ dir, query, want string }{
		{dir, "", "nothing to look for"},
		{filepath.Join(dir, "Notes"), "x", "there is no folder " + filepath.Join(dir, "Notes")},
		{filepath.Join(dir, "n.md"), "x", "is a file, not a folder"},
	} {
		if _, err := Search(&bytes.Buffer{}, tc.dir, tc.query, SearchOptions{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Search(%q, %q): %v, want an error saying %q", tc.dir, tc.query, err, tc.want)
		}
	}
	var out bytes.Buffer
	if found, err := Search(&out, dir, "absent", SearchOptions{Exts: []string{".md"}}); err != nil || found.Lines != 0 || out.Len() != 0 {
		t.Errorf("a search finding nothing: %+v, %v, wrote %q", found, err, out.String())
	}
	if got, want := NothingFound(dir, `C:\a "b"`, []string{"md", ".TXT"}), `No .md or .txt file in `+dir+` mentions "C:\a "b"".`; got != want {
		t.Errorf("NothingFound = %q, want %q", got, want)
	}
}

// TestSearchFollowsALinkedFolder: a Notes folder that is a symbolic link
// to one kept elsewhere is searched, and the paths are relative to it.
func TestSearchFollowsALinkedFolder(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{"elsewhere/sub/n.md": "hello\n"})
	link := filepath.Join(dir, "Notes")
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), link); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := Search(&out, link, "hello", SearchOptions{}); err != nil || out.String() != filepath.Join("sub", "n.md")+":1:hello\n" {
		t.Errorf("Search of a linked folder wrote %q, %v", out.String(), err)
	}
}

// TestCleanDeletesOnlyOldFilesDirectlyInTheFolder: the regular files
// last modified more than the number of days ago go, each path written;
// a newer file, one a minute short of the age, a folder (old, and an old
// file in it) and a symbolic link stay.
func TestCleanDeletesOnlyOldFilesDirectlyInTheFolder(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	testutil.WriteFiles(t, dir, map[string]string{
		"old report.txt": "old", "read-only & (old).pdf": "old", "almost.txt": "x", "new.txt": "new",
		"folder/old inside.txt": "old",
	})
	ages := map[string]time.Duration{
		"old report.txt":        90 * 24 * time.Hour,
		"read-only & (old).pdf": 31 * 24 * time.Hour,
		"almost.txt":            30*24*time.Hour - time.Minute,
		"new.txt":               time.Hour,
		"folder/old inside.txt": 90 * 24 * time.Hour,
		"folder":                90 * 24 * time.Hour,
	}
	for name, age := range ages {
		at := now.Add(-age)
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(name)), at, at); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(dir, "read-only & (old).pdf"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "old report.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	n, err := Clean(&out, dir, 30, now)
	if err != nil || n != 2 {
		t.Fatalf("Clean: %d deleted, %v", n, err)
	}
	if want := filepath.Join(dir, "old report.txt") + "\n" + filepath.Join(dir, "read-only & (old).pdf") + "\n"; out.String() != want {
		t.Errorf("Clean wrote %q, want %q", out.String(), want)
	}
	for name, gone := range map[string]bool{"old report.txt": true, "read-only & (old).pdf": true, "almost.txt": false,
		"new.txt": false, "folder/old inside.txt": false, "link.txt": false} {
		_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name)))
		if gone != errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: gone %v, want %v (%v)", name, !gone, gone, err)
		}
	}
	// Again: nothing is old enough, which is no error.
	out.Reset()
	if n, err := Clean(&out, dir, 30, now); err != nil || n != 0 || out.Len() != 0 {
		t.Errorf("Clean with nothing old: %d, %v, wrote %q", n, err, out.String())
	}
	if got, want := NothingOld(dir, 1), "No file in "+dir+" is older than 1 day: nothing was deleted."; got != want {
		t.Errorf("NothingOld = %q, want %q", got, want)
	}
}

// TestCleanRefusesWhatMakesNoSense: fewer than 1 day, a folder that is not
// there and a file given as the folder are refused, deleting nothing.
func TestCleanRefusesWhatMakesNoSense(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{"f.txt": "x"})
	old := time.Now().AddDate(-1, 0, 0)
	if err := os.Chtimes(filepath.Join(dir, "f.txt"), old, old); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir  string
		days int
		want string
	}{
		{dir, 0, "1 or more, not 0"},
		{dir, -3, "1 or more, not -3"},
		{filepath.Join(dir, "Downloads"), 30, "there is no folder " + filepath.Join(dir, "Downloads")},
		{filepath.Join(dir, "f.txt"), 30, "is a file, not a folder"},
	} {
		if _, err := Clean(&bytes.Buffer{}, tc.dir, tc.days, time.Now()); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Clean(%q, %d): %v, want an error saying %q", tc.dir, tc.days, err, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "f.txt")); err != nil {
		t.Errorf("a refused Clean deleted the file: %v", err)
	}
}

// TestCleanGoesOnPastAFileItCannotDelete: a file that cannot be deleted
// (in use, on Windows) is named in the error; the other old files are
// deleted all the same.
func TestCleanGoesOnPastAFileItCannotDelete(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{"a.txt": "x", "in use.txt": "x", "c.txt": "x"})
	old := time.Now().AddDate(0, 0, -60)
	for _, name := range []string{"a.txt", "in use.txt", "c.txt"} {
		if err := os.Chtimes(filepath.Join(dir, name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	inUse := errors.New("The process cannot access the file because it is being used by another process.")
	removeFile = func(path string) error {
		if filepath.Base(path) == "in use.txt" {
			return &fs.PathError{Op: "remove", Path: path, Err: inUse}
		}
		return os.Remove(path)
	}
	t.Cleanup(func() { removeFile = os.Remove })
	var out bytes.Buffer
	n, err := Clean(&out, dir, 30, time.Now())
	if n != 2 || !errors.Is(err, inUse) || !strings.Contains(err.Error(), "could not delete 1 old file (deleted 2): remove "+filepath.Join(dir, "in use.txt")) {
		t.Errorf("Clean with a file in use: %d, %v", n, err)
	}
	if want := filepath.Join(dir, "a.txt") + "\n" + filepath.Join(dir, "c.txt") + "\n"; out.String() != want {
		t.Errorf("Clean wrote %q, want %q", out.String(), want)
	}
	if _, err := os.Stat(filepath.Join(dir, "in use.txt")); err != nil {
		t.Errorf("the file in use: %v", err)
	}
}
