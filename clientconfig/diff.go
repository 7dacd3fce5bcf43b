package clientconfig

import (
	"bytes"
	"fmt"
	"strings"
)

// keepLineEnds makes out end its lines as orig does: the lines mcptray
// added take CRLF in a CRLF file (Windows editors write them), and a file
// without a final newline (Claude Code writes ~/.claude.json so) stays
// without one. A new file gets LF and a final newline.
func keepLineEnds(orig, out []byte) []byte {
	if out == nil {
		return nil
	}
	if bytes.Count(orig, []byte("\r\n")) > bytes.Count(orig, []byte("\n"))/2 {
		var b bytes.Buffer
		for i, c := range out {
			if c == '\n' && (i == 0 || out[i-1] != '\r') {
				b.WriteByte('\r')
			}
			b.WriteByte(c)
		}
		out = b.Bytes()
	}
	nl := []byte("\n")
	switch {
	case len(bytes.TrimSpace(orig)) == 0 || bytes.HasSuffix(orig, nl):
		if !bytes.HasSuffix(out, nl) {
			out = append(out, lineEnd(out)...)
		}
	default:
		out = bytes.TrimSuffix(bytes.TrimSuffix(out, nl), []byte("\r"))
	}
	return out
}

// lineEnd is the line end b uses.
func lineEnd(b []byte) string {
	if bytes.Contains(b, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// count words a number of things for people: "no tools", "1 line",
// "3 lines".
func count(n int, one, many string) string {
	switch n {
	case 0:
		return "no " + many
	case 1:
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// diffContext is how many unchanged lines show around a change.
const diffContext = 2

// maxDiffCells bounds the line-by-line comparison of the changed middle of
// two files; past it the middle shows as one change.
const maxDiffCells = 4 << 20

// Diff shows what changes between two texts: the changed lines marked
// "- " and "+ " with two lines of context, and the unchanged stretches
// between counted, so a large file (~/.claude.json) is not dumped whole.
// Line ends (LF, CRLF, none at the end) do not count as changes.
func Diff(old, new []byte) string {
	a, b := splitLines(old), splitLines(new)
	// Common head and tail first: the middle is what an install changes,
	// a few lines, so comparing it line by line stays cheap.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	type op struct {
		mark byte // ' ', '-' or '+'
		text string
	}
	var ops []op
	for _, s := range a[:pre] {
		ops = append(ops, op{' ', s})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma)*len(mb) > maxDiffCells {
		for _, s := range ma {
			ops = append(ops, op{'-', s})
		}
		for _, s := range mb {
			ops = append(ops, op{'+', s})
		}
	} else {
		// Longest common subsequence of the middles, read forwards.
		l := make([][]int, len(ma)+1)
		for i := range l {
			l[i] = make([]int, len(mb)+1)
		}
		for i := len(ma) - 1; i >= 0; i-- {
			for j := len(mb) - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					l[i][j] = l[i+1][j+1] + 1
				} else {
					l[i][j] = max(l[i+1][j], l[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(ma) || j < len(mb) {
			switch {
			case i < len(ma) && j < len(mb) && ma[i] == mb[j]:
				ops = append(ops, op{' ', ma[i]})
				i, j = i+1, j+1
			case i < len(ma) && (j == len(mb) || l[i+1][j] >= l[i][j+1]):
				ops = append(ops, op{'-', ma[i]})
				i++
			default:
				ops = append(ops, op{'+', mb[j]})
				j++
			}
		}
	}
	for _, s := range a[len(a)-suf:] {
		ops = append(ops, op{' ', s})
	}
	// Show the changes and diffContext lines around each; count the rest.
	show := make([]bool, len(ops))
	for i, o := range ops {
		if o.mark != ' ' {
			for k := max(0, i-diffContext); k <= min(len(ops)-1, i+diffContext); k++ {
				show[k] = true
			}
		}
	}
	var sb strings.Builder
	skipped := 0
	flush := func() {
		if skipped > 0 {
			fmt.Fprintf(&sb, "  … (%s unchanged)\n", count(skipped, "line", "lines"))
			skipped = 0
		}
	}
	for i, o := range ops {
		if !show[i] {
			skipped++
			continue
		}
		flush()
		sb.WriteString(string(o.mark) + " " + o.text + "\n")
	}
	flush()
	return strings.TrimSuffix(sb.String(), "\n")
}

// splitLines cuts text into lines without their ends.
func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	s := strings.TrimSuffix(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	return strings.Split(s, "\n")
}
