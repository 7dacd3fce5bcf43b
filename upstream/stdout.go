package upstream

import (
	"io"
	"sync"
)

// maxNoticed is how much of a non-MCP line is kept for the failure words.
const maxNoticed = 200

// mcpLines passes on the lines of a server's standard output that can be
// MCP messages (a JSON object or array: stdio MCP is one message a line)
// and drops the others — a banner, a log line printed to the wrong stream
// — into the server's ring, as the reference TypeScript client skips them.
// A server that prints "Listening…" first still works; one that speaks no
// MCP at all is recognised by what it wrote (Noticed) instead of failing
// on a JSON error. Blank lines and leading white space are dropped too.
//
// It filters in place: what a Read passes on is what it read, less the
// dropped bytes, so no line is ever held whole.
type mcpLines struct {
	r     io.ReadCloser
	drop  *ring
	state int // atStart, inMessage or inOther

	mu      sync.Mutex
	other   []byte // the current dropped line, up to maxNoticed
	noticed string // the first dropped line
	sawMCP  bool   // a line that may be MCP was passed on
}

const (
	atStart = iota
	inMessage
	inOther
)

// Read reads from the program and passes on the bytes of MCP lines.
func (f *mcpLines) Read(p []byte) (int, error) {
	for {
		n, err := f.r.Read(p)
		w := f.filter(p[:n])
		if w > 0 || err != nil {
			return w, err
		}
	}
}

// filter compacts b to its bytes that belong to MCP lines and returns how
// many there are.
func (f *mcpLines) filter(b []byte) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	w := 0
	for _, c := range b {
		switch f.state {
		case atStart:
			switch c {
			case ' ', '\t', '\r', '\n':
				continue
			case '{', '[':
				f.state, f.sawMCP = inMessage, true
			default:
				f.state = inOther
				f.other = append(f.other[:0], c)
				continue
			}
		case inOther:
			if c == '\n' {
				f.endOther()
			} else if len(f.other) < maxNoticed {
				f.other = append(f.other, c)
			}
			continue
		}
		if c == '\n' {
			f.state = atStart
		}
		b[w] = c
		w++
	}
	return w
}

// endOther keeps the dropped line that just ended.
func (f *mcpLines) endOther() {
	line := string(f.other)
	if f.noticed == "" {
		f.noticed = line
	}
	f.drop.Add("(standard output) " + line)
	f.state = atStart
}

// Noticed is the first line the program wrote that is not MCP ("" when
// none), and whether it wrote anything that may be.
func (f *mcpLines) Noticed() (line string, sawMCP bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.noticed == "" && f.state == inOther {
		return string(f.other), f.sawMCP
	}
	return f.noticed, f.sawMCP
}

// Close closes the program's output.
func (f *mcpLines) Close() error { return f.r.Close() }
