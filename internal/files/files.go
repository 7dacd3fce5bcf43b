// Package files is what `mcptray files` does: two small jobs on a folder
// that the starter's search_notes and clean_downloads run — a search of
// text files for a word or phrase, and the deletion of old files — which
// no program every system ships does well. On Windows those tools ran
// findstr and forfiles: findstr reads a backslash in the text looked for
// as an escape even with /l (a search for C:\path misfires), forfiles
// fails with "ERROR: No files found" when nothing is old enough and counts
// days by the calendar, and Wine has neither (its findstr is a stub, it
// has no forfiles). On Linux and macOS they ran grep and find: grep
// finding nothing exits 1, which reached the AI app as an error without
// text, and find -mtime +N deletes only what is N+1 whole days old, not
// what the approval asks. mcptray runs these jobs itself, through
// {{.server.executable}}, so the tools answer alike on every system and
// under Wine.
package files

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// binaryPeek is how much of a file's start is read to tell a binary file
// (a NUL byte in it) from text, as Git does.
const binaryPeek = 8000

// SearchOptions narrow a Search.
type SearchOptions struct {
	// Exts are the file extensions searched (".md", "txt" and "*.md" are
	// all read as ".md"), in any case; none searches every file.
	Exts []string
	// MaxPerFile is how many matching lines of one file are written at
	// most; 0 writes them all.
	MaxPerFile int
}

// Found is what a Search found.
type Found struct {
	// Lines is the number of matching lines written.
	Lines int
	// Unreadable lists the files and folders that could not be read, each
	// with why: they were skipped, the search went on.
	Unreadable []error
}

// Search writes to out every line that holds query, in any case, of the
// text files in dir and its folders, each as PATH:LINE:TEXT, PATH relative
// to dir (as grep -rniI prints them). The query is plain text: no
// character in it is special. Binary files (a NUL byte near their start)
// are skipped, as are symbolic links; text in UTF-8 or, with its byte
// order mark, UTF-16 (what Windows PowerShell 5.1's > writes) is read.
// Files and folders are visited in lexical order, so the output is the
// same each time. An error is returned for a dir that cannot be searched
// or an empty query; a file or folder inside it that cannot be read is
// skipped and listed in Found.Unreadable.
func Search(out io.Writer, dir, query string, opt SearchOptions) (Found, error) {
	var found Found
	if query == "" {
		return found, errors.New("nothing to look for: the text to search for is empty")
	}
	if err := isFolder(dir); err != nil {
		return found, err
	}
	match := regexp.MustCompile("(?i)" + regexp.QuoteMeta(query))
	exts := normalExts(opt.Exts)
	// WalkDir does not enter a root that is a symbolic link (a Notes folder
	// kept elsewhere and linked into the home folder): walk its target.
	root := dir
	if target, err := filepath.EvalSymlinks(dir); err == nil {
		root = target
	}
	w := bufio.NewWriter(out)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return fmt.Errorf("searching %s: %w", dir, err)
			}
			found.Unreadable = append(found.Unreadable, err)
			return nil // WalkDir skips a folder it could not read
		}
		if !d.Type().IsRegular() || len(exts) > 0 && !slices.Contains(exts, strings.ToLower(filepath.Ext(path))) {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			rel = path
		}
		n, err := searchFile(w, path, rel, match, opt.MaxPerFile)
		found.Lines += n
		if err != nil {
			found.Unreadable = append(found.Unreadable, err)
		}
		return nil
	})
	if ferr := w.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("writing what was found: %w", ferr)
	}
	return found, err
}

// NothingFound is the sentence `mcptray files search` prints when no line
// matched: plain words rather than nothing, so that whoever reads the
// answer (an AI model, a person) knows the search ran and found nothing.
func NothingFound(dir, query string, exts []string) string {
	what := "file"
	if e := normalExts(exts); len(e) > 0 {
		what = strings.Join(e, " or ") + " file"
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	// The query as it is, not Go-quoted: a path's backslashes stay single.
	return fmt.Sprintf("No %s in %s mentions \"%s\".", what, dir, query)
}

// normalExts are exts lower-cased with their dot, without a leading "*".
func normalExts(exts []string) []string {
	var out []string
	for _, e := range exts {
		e = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(e), "*"))
		if e == "" || e == "." {
			continue
		}
		if !strings.HasPrefix(e, ".") {
			e = "." + e
		}
		out = append(out, e)
	}
	return out
}

// searchFile writes the lines of one file that match, at most limit (0: all),
// and returns how many it wrote.
func searchFile(w io.Writer, path, rel string, match *regexp.Regexp, limit int) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, binaryPeek)
	head, err := r.Peek(binaryPeek)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return 0, fmt.Errorf("reading %s: %w", path, err)
	}
	if !bytes.HasPrefix(head, []byte{0xFF, 0xFE}) && !bytes.HasPrefix(head, []byte{0xFE, 0xFF}) && bytes.IndexByte(head, 0) >= 0 {
		return 0, nil // binary: NULs that are not UTF-16's
	}
	// A byte order mark says the text's encoding (UTF-16 either way, or
	// UTF-8) and is no part of it; without one the bytes are searched as
	// they are, as grep does.
	br := bufio.NewReader(transform.NewReader(r, unicode.BOMOverride(transform.Nop)))
	n := 0
	for no := 1; limit == 0 || n < limit; no++ {
		line, err := br.ReadString('\n')
		if line == "" && err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return n, fmt.Errorf("reading %s: %w", path, err)
		}
		line = strings.TrimRight(line, "\r\n")
		if match.MatchString(line) {
			if _, err := fmt.Fprintf(w, "%s:%d:%s\n", rel, no, line); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// Clean deletes the regular files directly in dir — not its folders, nor
// what they hold, nor symbolic links — last modified more than days whole
// days (of 24 hours) before now, and writes each deleted file's path to out
// as it goes. A read-only file is deleted too, as `del /f` and `find
// -delete` do. A file that cannot be deleted is left, the others are
// deleted all the same, and the error names each one left. days must be 1
// or more, and dir an existing folder.
func Clean(out io.Writer, dir string, days int, now time.Time) (deleted int, err error) {
	if days < 1 {
		return 0, fmt.Errorf("the number of days must be 1 or more, not %d", days)
	}
	if err := isFolder(dir); err != nil {
		return 0, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("reading the folder %s: %w", dir, err)
	}
	cutoff := now.Add(-time.Duration(days) * 24 * time.Hour)
	var failed []error
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted meanwhile
		}
		if err != nil {
			failed = append(failed, err)
			continue
		}
		if !info.ModTime().Before(cutoff) {
			continue
		}
		if err := removeFile(path); err != nil {
			failed = append(failed, err)
			continue
		}
		deleted++
		if _, err := fmt.Fprintln(out, path); err != nil {
			return deleted, fmt.Errorf("writing what was deleted: %w", err)
		}
	}
	if len(failed) > 0 {
		return deleted, fmt.Errorf("could not delete %s (deleted %d): %w", count(len(failed), "old file"), deleted, errors.Join(failed...))
	}
	return deleted, nil
}

// NothingOld is the sentence `mcptray files clean` prints when no file was
// old enough to delete: a plain answer, where forfiles answered an error.
func NothingOld(dir string, days int) string {
	return fmt.Sprintf("No file in %s is older than %s: nothing was deleted.", dir, count(days, "day"))
}

// count says n things: "1 day", "30 days".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// removeFile is os.Remove, which on Windows deletes a read-only file too
// (it clears the attribute DeleteFile refuses it for); tests make a file
// that cannot be deleted with it, which permissions cannot do for root (CI).
var removeFile = os.Remove

// isFolder says, as an error, why dir is no folder to work in.
func isFolder(dir string) error {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("there is no folder %s", dir)
	case err != nil:
		return fmt.Errorf("reading the folder %s: %w", dir, err)
	case !info.IsDir():
		return fmt.Errorf("%s is a file, not a folder", dir)
	}
	return nil
}
