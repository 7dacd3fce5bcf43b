package atmostonce

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// post sends a POST through client to url and reports its Delivery.
func post(t *testing.T, client *http.Client, url string) (*Delivery, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`))
	if err != nil {
		t.Fatal(err)
	}
	req, d := Track(req)
	resp, err := client.Do(req)
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body) // read whole, the connection could be kept
		resp.Body.Close()
	}
	return d, err
}

// TestUnsent: a request is unsent only when no byte of it reached a
// connection — refused before it went out — and never once the server
// read it, nor when the connection was not counted.
func TestUnsent(t *testing.T) {
	wrapped := &http.Client{Transport: Wrap(&http.Transport{})}

	// Refused: nothing listens on the port.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	ln.Close()
	if d, err := post(t, wrapped, refused); err == nil || !d.Unsent() {
		t.Errorf("connection refused: error %v, unsent %v; want an error and unsent", err, d.Unsent())
	}

	// Read, then the server died without answering.
	ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = http.ReadRequest(bufio.NewReader(c))
			c.Close()
		}
	}()
	dying := "http://" + ln.Addr().String()
	if d, err := post(t, wrapped, dying); err == nil || d.Unsent() {
		t.Errorf("read by a server that died: error %v, unsent %v; want an error and not unsent", err, d.Unsent())
	}

	// A connection Wrap did not make proves nothing.
	plain := &http.Client{Transport: &http.Transport{}}
	if d, err := post(t, plain, dying); err == nil || d.Unsent() {
		t.Errorf("unwrapped transport: error %v, unsent %v; want not unsent", err, d.Unsent())
	}
}

// TestNoStaleConnection: a server that closes a kept connection when the
// next request arrives on it (as one does while it stops, or when it moves
// to another port) never makes a request fail as possibly run: each
// request goes on a connection of its own, which the server reads.
func TestNoStaleConnection(t *testing.T) {
	addr := staleServer(t)
	client := &http.Client{Transport: Wrap(&http.Transport{})}
	url := "http://" + addr
	for i := range 5 {
		if d, err := post(t, client, url); err != nil {
			t.Fatalf("request %d: %v (unsent %v); each should have had a connection of its own", i+1, err, d.Unsent())
		}
		// Time for a kept connection to go back to the pool, where the
		// next request would take it.
		time.Sleep(20 * time.Millisecond)
	}
}

// staleServer answers one request per connection as if it could be kept,
// then closes the connection unread when more arrives; it returns its
// address.
func staleServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				req, err := http.ReadRequest(r)
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body)
				// Answer as if the connection could be kept, then close it
				// once anything more arrives, unread.
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
				_, _ = r.Peek(1)
			}()
		}
	}()
	return ln.Addr().String()
}
