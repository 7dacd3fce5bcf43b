// Copyright 2026 The Go MCP SDK Authors. All rights reserved.
// Use of this source code is governed by an MIT-style
// license that can be found in the LICENSE file.

package jsonrpc2

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"
)

// scriptedPeer is the far end of a Connection, played by a test: each
// message it sends is read by the Connection when the test hands it over,
// and each message the Connection writes comes out on written.
type scriptedPeer struct {
	// waiting takes a value each time the Connection's reader waits for
	// the next message: once the previous one has been dealt with.
	waiting   chan struct{}
	msgs      chan Message
	written   chan Message
	ready     bool // the reader waits for the next message: waiting was taken
	closeOnce sync.Once
	closed    chan struct{}
}

func newScriptedPeer() *scriptedPeer {
	return &scriptedPeer{
		waiting: make(chan struct{}),
		msgs:    make(chan Message),
		written: make(chan Message, 16),
		closed:  make(chan struct{}),
	}
}

func (p *scriptedPeer) Read(ctx context.Context) (Message, error) {
	select {
	case p.waiting <- struct{}{}:
	case <-p.closed:
		return nil, io.EOF
	}
	select {
	case m := <-p.msgs:
		return m, nil
	case <-p.closed:
		return nil, io.EOF
	}
}

func (p *scriptedPeer) Write(ctx context.Context, m Message) error {
	select {
	case p.written <- m:
		return nil
	case <-p.closed:
		return io.EOF
	}
}

func (p *scriptedPeer) Close() error {
	p.closeOnce.Do(func() { close(p.closed) })
	return nil
}

// send hands m to the Connection's reader, and waits until the reader has
// dealt with it: until it waits for the next message.
func (p *scriptedPeer) send(t *testing.T, m Message) {
	t.Helper()
	if !p.ready {
		p.await(t, p.waiting, "the connection never read")
	}
	p.msgs <- m
	p.await(t, p.waiting, "the connection never finished with a message")
	p.ready = true
}

// await waits for ch, failing the test if the connection hangs.
func (p *scriptedPeer) await(t *testing.T, ch <-chan struct{}, hang string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(time.Minute):
		t.Fatal(hang)
	}
}

// call waits for the Connection to write a call, and returns it.
func (p *scriptedPeer) call(t *testing.T) *Request {
	t.Helper()
	select {
	case m := <-p.written:
		r, ok := m.(*Request)
		if !ok || !r.IsCall() {
			t.Fatalf("the connection wrote %#v, want a call", m)
		}
		return r
	case <-time.After(time.Minute):
		t.Fatal("the connection wrote no call")
	}
	return nil
}

func mustNotification(t *testing.T, method string) *Request {
	t.Helper()
	n, err := NewNotification(method, nil)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func mustResponse(t *testing.T, id ID, result any) *Response {
	t.Helper()
	r, err := NewResponse(id, result, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func retired(ac *AsyncCall) bool {
	select {
	case <-ac.ready:
		return true
	default:
		return false
	}
}

// A response reaches its caller only once the handler has returned for
// every notification received before it: a server's log message sent
// before a call's result is handled before the call returns.
func TestResponseWaitsForEarlierNotifications(t *testing.T) {
	peer := newScriptedPeer()
	entered, release := make(chan struct{}), make(chan struct{})
	var handled []string
	var mu sync.Mutex
	conn := NewConnection(context.Background(), ConnectionConfig{
		Reader: peer, Writer: peer, Closer: peer,
		Bind: func(*Connection) Handler {
			return HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
				if req.Method == "slow" {
					entered <- struct{}{}
					<-release
				}
				mu.Lock()
				handled = append(handled, req.Method)
				mu.Unlock()
				return nil, nil
			})
		},
	})
	defer conn.Close()
	defer peer.Close()
	releaseOnce := sync.OnceFunc(func() { close(release) })
	defer releaseOnce() // a failed test must not leave Close waiting for the handler

	ac := conn.Call(context.Background(), "work", nil)
	id := peer.call(t).ID
	peer.send(t, mustNotification(t, "slow"))
	peer.await(t, entered, "the first notification was never handled")
	peer.send(t, mustNotification(t, "fast"))
	peer.send(t, mustResponse(t, id, "done"))
	// The reader has moved past the response, and the first handler is
	// still running.
	if retired(ac) {
		t.Fatal("the response reached its caller while a notification received before it was being handled")
	}
	releaseOnce()
	var got string
	if err := ac.Await(context.Background(), &got); err != nil || got != "done" {
		t.Fatalf("Await: %q, %v", got, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(handled) != 2 {
		t.Errorf("when the call returned, handled %q, want both notifications", handled)
	}
}

// A handler that makes a call on its own connection, and waits for its
// result, gets it: its response does not wait behind the handler itself.
// Nor does a response to another call wait forever.
func TestHandlerCallsOnItsOwnConnection(t *testing.T) {
	peer := newScriptedPeer()
	inner := make(chan error, 1)
	var conn *Connection
	conn = NewConnection(context.Background(), ConnectionConfig{
		Reader: peer, Writer: peer, Closer: peer,
		Bind: func(c *Connection) Handler {
			return HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
				if req.Method == "changed" {
					// Like a list_changed handler listing again, and
					// from a goroutine of its own, with the handler's
					// context.
					done := make(chan error)
					go func() {
						var got string
						done <- c.Call(ctx, "list", nil).Await(ctx, &got)
					}()
					inner <- <-done
				}
				return nil, nil
			})
		},
	})
	defer conn.Close()
	defer peer.Close()

	outer := conn.Call(context.Background(), "work", nil)
	outerID := peer.call(t).ID
	peer.send(t, mustNotification(t, "changed"))
	listID := peer.call(t).ID
	peer.send(t, mustNotification(t, "later"))
	peer.send(t, mustResponse(t, outerID, "done"))
	peer.send(t, mustResponse(t, listID, "tools"))
	if err := <-inner; err != nil {
		t.Fatalf("the handler's own call: %v", err)
	}
	var got string
	if err := outer.Await(context.Background(), &got); err != nil || got != "done" {
		t.Fatalf("the other call: %q, %v", got, err)
	}
}

// A response held behind a notification's handler still reaches its
// caller when the peer goes away right after sending it.
func TestHeldResponseSurvivesEOF(t *testing.T) {
	peer := newScriptedPeer()
	entered, release := make(chan struct{}), make(chan struct{})
	conn := NewConnection(context.Background(), ConnectionConfig{
		Reader: peer, Writer: peer, Closer: peer,
		Bind: func(*Connection) Handler {
			return HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
				entered <- struct{}{}
				<-release
				return nil, nil
			})
		},
	})
	defer conn.Close()
	releaseOnce := sync.OnceFunc(func() { close(release) })
	defer releaseOnce() // a failed test must not leave Close waiting for the handler

	ac := conn.Call(context.Background(), "work", nil)
	id := peer.call(t).ID
	peer.send(t, mustNotification(t, "log"))
	peer.await(t, entered, "the notification was never handled")
	peer.send(t, mustResponse(t, id, "done"))
	peer.Close()
	releaseOnce()
	var got string
	if err := ac.Await(context.Background(), &got); err != nil || got != "done" {
		t.Fatalf("Await: %q, %v", got, err)
	}
}
