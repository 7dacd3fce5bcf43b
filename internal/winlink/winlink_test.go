package winlink

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"
)

// pair links two Conns over in-memory pipes and runs both until the test
// ends.
func pair(t *testing.T, left, right Handler) (*Conn, *Conn, func()) {
	t.Helper()
	lr, rw := io.Pipe() // right writes, left reads
	rr, lw := io.Pipe() // left writes, right reads
	l, r := New(lr, lw, left), New(rr, rw, right)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = l.Run(ctx) }()
	go func() { _ = r.Run(ctx) }()
	closeRight := func() { _ = rw.Close(); _ = rr.Close() }
	t.Cleanup(func() { cancel(); closeRight(); _ = lw.Close(); _ = lr.Close() })
	return l, r, closeRight
}

func TestCallsGoBothWaysAndNotificationsArrive(t *testing.T) {
	notes := make(chan string, 1)
	var r *Conn
	left := func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		switch method {
		case "twice":
			var n int
			if err := json.Unmarshal(params, &n); err != nil {
				return nil, err
			}
			return n * 2, nil
		case "note":
			var s string
			_ = json.Unmarshal(params, &s)
			notes <- s
			return nil, nil
		}
		return nil, &Error{Code: -32601, Message: "no " + method}
	}
	right := func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		// An answer that needs a call back the other way first.
		var n int
		if err := r.Call(ctx, "twice", 21, &n); err != nil {
			return nil, err
		}
		return map[string]int{"got": n}, nil
	}
	l, rr, _ := pair(t, left, right)
	r = rr
	var got map[string]int
	if err := l.Call(context.Background(), "ask", nil, &got); err != nil || got["got"] != 42 {
		t.Fatalf("left's call: %v, %v; want 42", got, err)
	}
	if err := r.Notify("note", "hello"); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-notes:
		if s != "hello" {
			t.Fatalf("notification carried %q", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the notification never arrived")
	}
	err := r.Call(context.Background(), "missing", nil, nil)
	var we *Error
	if !errors.As(err, &we) || we.Code != -32601 || we.Message != "no missing" {
		t.Fatalf("an unknown method: %v; want the handler's own error object", err)
	}
}

func TestAHandlerErrorOrPanicIsAnInternalErrorWithItsText(t *testing.T) {
	h := func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		if method == "boom" {
			panic("kaboom")
		}
		return nil, errors.New("the disk is full")
	}
	l, _, _ := pair(t, nil, h)
	for method, want := range map[string]string{"fail": "the disk is full", "boom": "boom failed: kaboom"} {
		err := l.Call(context.Background(), method, nil, nil)
		var we *Error
		if !errors.As(err, &we) || we.Code != -32603 || we.Message != want {
			t.Errorf("%s: %v; want an internal error saying %q", method, err, want)
		}
	}
}

func TestTheOtherSideGoingAwayFailsWaitingCalls(t *testing.T) {
	started := make(chan struct{})
	h := func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		close(started)
		<-ctx.Done() // never answers while the link lives
		return nil, ctx.Err()
	}
	l, _, closeRight := pair(t, nil, h)
	errc := make(chan error, 1)
	go func() { errc <- l.Call(context.Background(), "hang", nil, nil) }()
	<-started
	closeRight()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("the waiting call: %v; want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting call still waits after the other side went away")
	}
	<-l.Done()
	if err := l.Call(context.Background(), "late", nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("a call after the end: %v; want ErrClosed", err)
	}
}

func TestACallGivesUpWithItsContext(t *testing.T) {
	h := func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		<-ctx.Done()
		return nil, nil
	}
	l, _, _ := pair(t, nil, h)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := l.Call(ctx, "slow", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v; want the context's deadline", err)
	}
}

func TestGarbageOnTheLinkEndsRunWithAnError(t *testing.T) {
	r, w := io.Pipe()
	c := New(r, io.Discard, nil)
	errc := make(chan error, 1)
	go func() { errc <- c.Run(context.Background()) }()
	_, _ = w.Write([]byte("this is no JSON-RPC\n"))
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("Run took garbage for a message")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run hangs on garbage")
	}
	_ = w.Close()
}
