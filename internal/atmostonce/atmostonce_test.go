package atmostonce

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
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
