package upstream

import (
	"bytes"
	"strings"
	"sync"
)

const (
	// stderrLines is how many of a server's last standard error lines are
	// kept for its status and its failure words.
	stderrLines = 200
	// maxLine cuts a kept line, so that a program writing without newlines
	// cannot fill memory through one line.
	maxLine = 1 << 10
)

// ring keeps the last lines written to it, each cut at maxLine: a
// server's standard error (and what it wrongly wrote on standard output),
// never more than a fixed amount however much the program writes.
type ring struct {
	mu      sync.Mutex
	lines   []string // a circular buffer of at most stderrLines lines
	next    int      // where the next line goes once lines is full
	partial []byte   // the current line, not ended yet
	cut     bool     // the current line passed maxLine
}

// Write keeps p's complete lines and holds an unfinished one.
func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if room := maxLine - len(r.partial); len(chunk) > room {
			chunk, r.cut = chunk[:room], true
		}
		r.partial = append(r.partial, chunk...)
		if i < 0 {
			break
		}
		r.endLine()
		p = p[i+1:]
	}
	return n, nil
}

// Add keeps one whole line.
func (r *ring) Add(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(line) > maxLine {
		line = line[:maxLine] + " …"
	}
	r.push(line)
}

// endLine moves the current line into the buffer.
func (r *ring) endLine() {
	line := strings.TrimRight(string(r.partial), "\r")
	if r.cut {
		line += " …"
	}
	r.partial, r.cut = r.partial[:0], false
	r.push(line)
}

// push keeps line, dropping the oldest when full.
func (r *ring) push(line string) {
	if len(r.lines) < stderrLines {
		r.lines = append(r.lines, line)
		return
	}
	r.lines[r.next] = line
	r.next = (r.next + 1) % stderrLines
}

// Last returns the last n lines kept (all when n <= 0), oldest first,
// with an unfinished line last.
func (r *ring) Last(n int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	all := make([]string, 0, len(r.lines)+1)
	all = append(all, r.lines[r.next:]...)
	all = append(all, r.lines[:r.next]...)
	if len(r.partial) > 0 {
		all = append(all, string(r.partial))
	}
	if n > 0 && len(all) > n {
		all = all[len(all)-n:]
	}
	return all
}
