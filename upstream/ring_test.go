package upstream

import (
	"fmt"
	"strings"
	"testing"
)

// TestRingKeepsTheLastLines: 200 lines at most, each cut at 1 KiB, lines
// split across writes joined, an unfinished line shown last.
func TestRingKeepsTheLastLines(t *testing.T) {
	r := &ring{}
	for i := range 1000 {
		fmt.Fprintf(r, "line %d\n", i)
	}
	r.Write([]byte("split "))
	r.Write([]byte("across\r\n" + strings.Repeat("x", 5000) + "\nunfinished"))
	got := r.Last(0)
	if len(got) != 201 || got[0] != "line 802" || got[198] != "split across" || got[200] != "unfinished" {
		t.Errorf("%d lines: %q … %q", len(got), got[0], got[len(got)-3:])
	}
	if long := got[199]; len(long) != maxLine+len(" …") || !strings.HasSuffix(long, "x …") {
		t.Errorf("a long line kept as %d bytes", len(long))
	}
	if last := r.Last(2); len(last) != 2 || last[1] != "unfinished" {
		t.Errorf("Last(2) = %q", last)
	}
}

// TestMCPLinesPassesOnlyMessages: lines that start a JSON value pass
// whole, however they are split into reads; others are dropped into the
// ring, and the first is noticed.
func TestMCPLinesPassesOnlyMessages(t *testing.T) {
	in := "Server running on stdio\n  {\"jsonrpc\":\"2.0\",\"id\":1}\n\nnpm WARN old\n[{\"a\":1}]\n"
	for chunk := 1; chunk <= len(in); chunk++ {
		r := &ring{}
		f := &mcpLines{r: nopCloser{strings.NewReader(in)}, drop: r}
		var out strings.Builder
		buf := make([]byte, chunk)
		for {
			n, err := f.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				break
			}
		}
		if want := "{\"jsonrpc\":\"2.0\",\"id\":1}\n[{\"a\":1}]\n"; out.String() != want {
			t.Fatalf("reads of %d: passed %q, want %q", chunk, out.String(), want)
		}
		noticed, sawMCP := f.Noticed()
		if noticed != "Server running on stdio" || !sawMCP {
			t.Errorf("noticed %q, %v", noticed, sawMCP)
		}
		if got := r.Last(0); len(got) != 2 || got[1] != "(standard output) npm WARN old" {
			t.Errorf("dropped: %q", got)
		}
	}
}

type nopCloser struct{ *strings.Reader }

func (nopCloser) Close() error { return nil }
