package tryit

import (
	"context"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
)

// cutter forwards TCP connections to a server until cut, which breaks
// every connection in the middle — as mcptray dying does — and refuses
// new ones.
type cutter struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newCutter(t *testing.T, target string) *cutter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &cutter{ln: ln}
	t.Cleanup(c.cut)
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			c.mu.Lock()
			c.conns = append(c.conns, in, out)
			c.mu.Unlock()
			go func() { io.Copy(out, in); out.Close() }()
			go func() { io.Copy(in, out); in.Close() }()
		}
	}()
	return c
}

func (c *cutter) cut() {
	c.ln.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, conn := range c.conns {
		conn.Close()
	}
}

// TestServerStoppingDuringACallIsNotRetried: when the connection to the
// server breaks during a call, Try it does not send the call again (the
// tool ran once) and says that the tool may have run.
func TestServerStoppingDuringACallIsNotRetried(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the tool is a shell command")
	}
	s := newServed(t)
	lines := filepath.Join(t.TempDir(), "lines")
	tool := catalog.Tool{Name: "append_slow", Description: "Appends a line, then works.",
		Action: catalog.Action{Command: &catalog.Command{Argv: []catalog.Template{"sh", "-c", `echo ran >> "$1"; exec sleep 30`, "sh", catalog.Template(lines)}}}}
	if err := s.st.PutTool(context.Background(), tool); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(s.url)
	proxy := newCutter(t, u.Host)
	proxied := *u
	proxied.Host = proxy.ln.Addr().String()
	tr := newTestTrier(t, &served{st: s.st, url: proxied.String()})
	// A first call opens the session, as Try it's calls do.
	s.putRespond(t, "greet", "hi")
	if _, err := call(t, tr, "greet", nil); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := call(t, tr, "append_slow", nil)
		errc <- err
	}()
	testutil.Eventually(t, "the tool to run", func() bool { b, _ := os.ReadFile(lines); return len(b) > 0 })
	proxy.cut()
	var err error
	select {
	case err = <-errc:
	case <-time.After(20 * time.Second):
		t.Fatal("the call did not end when the connection broke")
	}
	if err == nil || !strings.Contains(err.Error(), "may have run") {
		t.Errorf("the broken call returned %v; want an error saying the tool may have run", err)
	}
	time.Sleep(300 * time.Millisecond)
	if b, _ := os.ReadFile(lines); strings.Count(string(b), "ran") != 1 {
		t.Errorf("the tool ran %d times, want once", strings.Count(string(b), "ran"))
	}
}
