// Package testutil holds the small helpers the tests of several packages
// share: waiting for a condition, a buffer a child process and a test may
// use at once, a child's pid file, JSON for comparisons, a stand-in web
// API that records what a tool sends (api.go), folders of files of a given
// age (files.go). It needs nothing but the standard library, so any
// package's tests can import it.
package testutil

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Patience is how long Eventually waits: generous, because CI machines
// are slow and shared; a condition that holds returns at once.
const Patience = 15 * time.Second

// Eventually polls cond until it holds, failing t after Patience with
// "waited … for what".
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	EventuallyShows(t, what, func() (bool, string) { return cond(), "" })
}

// EventuallyShows polls check until it reports success, failing t after
// Patience with what and the last thing check saw.
func EventuallyShows(t testing.TB, what string, check func() (ok bool, saw string)) {
	t.Helper()
	deadline := time.Now().Add(Patience)
	for {
		ok, saw := check()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			if saw != "" {
				t.Fatalf("waited %v for %s; last saw %s", Patience, what, saw)
			}
			t.Fatalf("waited %v for %s", Patience, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// SyncBuffer is a bytes.Buffer safe for one writer (a child process's
// output, a command following a log) and readers at the same time.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// WaitPID waits for a child process to write its pid into the file at path
// and returns it.
func WaitPID(t testing.TB, path string) int {
	t.Helper()
	var pid int
	Eventually(t, "the pid file "+path, func() bool {
		b, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0
	})
	return pid
}

// FreePort is a loopback port nobody listens on at the time of asking.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// MustJSON encodes v for comparisons that ignore Go-level differences,
// such as int versus float64 in decoded values.
func MustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encoding %T as JSON: %v", v, err)
	}
	return string(b)
}
