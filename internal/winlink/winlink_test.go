package winlink

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// patience bounds a wait for something that should happen at once.
const patience = 10 * time.Second

// pair links two Conns over in-memory pipes and runs both until the test
// ends; closeRight closes the right side's ends, as its process exiting
// would.
func pair(t *testing.T, left, right *Mux) (l, r *Conn, closeRight func()) {
	t.Helper()
	lr, rw := io.Pipe() // right writes, left reads
	rr, lw := io.Pipe() // left writes, right reads
	l, r = New(lr, lw, left), New(rr, rw, right)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = l.Run(ctx) }()
	go func() { _ = r.Run(ctx) }()
	closeRight = func() { _ = rw.Close(); _ = rr.Close() }
	t.Cleanup(func() { cancel(); closeRight(); _ = lw.Close(); _ = lr.Close() })
	return l, r, closeRight
}

// The methods of these tests, declared once for both sides as a real link
// declares its own.
var (
	twice  = Method[int, int]{Name: "twice"}
	ask    = Method[struct{}, map[string]int]{Name: "ask"}
	note   = Notice[string]{Name: "note"}
	hang   = Method[struct{}, struct{}]{Name: "hang"}
	fail   = Method[struct{}, struct{}]{Name: "fail"}
	boom   = Method[struct{}, struct{}]{Name: "boom"}
	coded  = Method[struct{}, struct{}]{Name: "coded"}
	record = Method[struct {
		Name string `json:"name"`
		Age  int    `json:"age"`
	}, string]{Name: "record"}
)

func TestTypedCallsGoBothWaysAndNoticesArrive(t *testing.T) {
	notes := make(chan string, 1)
	var r *Conn
	left := NewMux()
	Handle(left, twice, func(_ context.Context, n int) (int, error) { return 2 * n, nil })
	HandleNotice(left, note, func(_ context.Context, s string) { notes <- s })
	right := NewMux()
	Handle(right, ask, func(ctx context.Context, _ struct{}) (map[string]int, error) {
		// An answer that needs a call back the other way first.
		n, err := twice.Call(ctx, r, 21)
		return map[string]int{"got": n}, err
	})
	l, rr, _ := pair(t, left, right)
	r = rr
	if got, err := ask.Call(context.Background(), l, struct{}{}); err != nil || got["got"] != 42 {
		t.Fatalf("left's call: %v, %v; want 42", got, err)
	}
	if err := note.Send(r, "hello"); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-notes:
		if s != "hello" {
			t.Fatalf("the notice carried %q", s)
		}
	case <-time.After(patience):
		t.Fatal("the notice never arrived")
	}
}

func TestUnknownMethodsAndBadParamsGetTheirCodes(t *testing.T) {
	right := NewMux()
	Handle(right, record, func(_ context.Context, p struct {
		Name string `json:"name"`
		Age  int    `json:"age"`
	}) (string, error) {
		return p.Name, nil
	})
	l, _, _ := pair(t, NewMux(), right)
	_, err := twice.Call(context.Background(), l, 1)
	var we *Error
	if !errors.As(err, &we) || we.Code != CodeMethodNotFound || we.Message != "no method twice" {
		t.Fatalf("a method the other side does not handle: %v; want method not found", err)
	}
	// The same name with the wrong params' type: as an older peer would send.
	wrong := Method[string, string]{Name: "record"}
	_, err = wrong.Call(context.Background(), l, "not an object")
	if !errors.As(err, &we) || we.Code != CodeInvalidParams || !strings.HasPrefix(we.Message, "record: ") {
		t.Fatalf("params of the wrong type: %v; want invalid params naming the method", err)
	}
}

func TestHandlerErrorsKeepTheirCodeOrBecomeInternalErrors(t *testing.T) {
	right := NewMux()
	Handle(right, fail, func(context.Context, struct{}) (struct{}, error) {
		return struct{}{}, errors.New("the disk is full")
	})
	Handle(right, boom, func(context.Context, struct{}) (struct{}, error) { panic("kaboom") })
	Handle(right, coded, func(context.Context, struct{}) (struct{}, error) {
		return struct{}{}, &Error{Code: -32010, Message: "bad settings", Data: []byte(`["port"]`)}
	})
	l, _, _ := pair(t, NewMux(), right)
	for m, want := range map[Method[struct{}, struct{}]]string{fail: "the disk is full", boom: "boom failed: kaboom"} {
		_, err := m.Call(context.Background(), l, struct{}{})
		var we *Error
		if !errors.As(err, &we) || we.Code != -32603 || we.Message != want {
			t.Errorf("%s: %v; want an internal error saying %q", m.Name, err, want)
		}
	}
	_, err := coded.Call(context.Background(), l, struct{}{})
	var we *Error
	if !errors.As(err, &we) || we.Code != -32010 || string(we.Data) != `["port"]` {
		t.Errorf("a handler's own error object: %v", err)
	}
}

func TestTheOtherSideGoingAwayFailsWaitingCalls(t *testing.T) {
	started := make(chan struct{})
	right := NewMux()
	Handle(right, hang, func(ctx context.Context, _ struct{}) (struct{}, error) {
		close(started)
		<-ctx.Done() // never answers while the link lives
		return struct{}{}, ctx.Err()
	})
	l, _, closeRight := pair(t, NewMux(), right)
	errc := make(chan error, 1)
	go func() { _, err := hang.Call(context.Background(), l, struct{}{}); errc <- err }()
	<-started
	closeRight()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("the waiting call: %v; want ErrClosed", err)
		}
	case <-time.After(patience):
		t.Fatal("the waiting call still waits after the other side went away")
	}
	<-l.Done()
	if _, err := hang.Call(context.Background(), l, struct{}{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("a call after the end: %v; want ErrClosed", err)
	}
}

func TestACallThatGivesUpEndsTheHandlersContext(t *testing.T) {
	ended := make(chan error, 1)
	right := NewMux()
	Handle(right, hang, func(ctx context.Context, _ struct{}) (struct{}, error) {
		<-ctx.Done()
		ended <- ctx.Err()
		return struct{}{}, nil
	})
	Handle(right, twice, func(_ context.Context, n int) (int, error) { return 2 * n, nil })
	l, _, _ := pair(t, NewMux(), right)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := hang.Call(ctx, l, struct{}{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v; want the context's deadline", err)
	}
	// The other side stops answering: as a question withdrawn closes its
	// window.
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the handler's context ended with %v", err)
		}
	case <-time.After(patience):
		t.Fatal("the handler never learnt that its caller gave up")
	}
	// The link goes on.
	if n, err := twice.Call(context.Background(), l, 4); err != nil || n != 8 {
		t.Fatalf("after a cancel: %d, %v", n, err)
	}
}

func TestGarbageOnTheLinkEndsRunWithAnError(t *testing.T) {
	r, w := io.Pipe()
	c := New(r, io.Discard, NewMux())
	errc := make(chan error, 1)
	go func() { errc <- c.Run(context.Background()) }()
	_, _ = w.Write([]byte("this is no JSON-RPC\n"))
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("Run took garbage for a message")
		}
	case <-time.After(patience):
		t.Fatal("Run hangs on garbage")
	}
	_ = w.Close()
}

func TestAHandlerRegisteredTwicePanics(t *testing.T) {
	mux := NewMux()
	Handle(mux, twice, func(_ context.Context, n int) (int, error) { return n, nil })
	defer func() {
		if recover() == nil {
			t.Fatal("a second handler of the same method was taken")
		}
	}()
	HandleNotice(mux, Notice[int]{Name: "twice"}, func(context.Context, int) {})
}

// orderedWriter records, in order, what was written through it and the
// marks put between.
type orderedWriter struct {
	w      io.Writer
	mu     sync.Mutex
	log    []string
	marked chan struct{}
}

func (o *orderedWriter) Write(b []byte) (int, error) {
	o.mu.Lock()
	o.log = append(o.log, string(b))
	o.mu.Unlock()
	return o.w.Write(b)
}

func (o *orderedWriter) mark(s string) {
	o.mu.Lock()
	o.log = append(o.log, s)
	o.mu.Unlock()
	close(o.marked)
}

func TestWhatRunsAfterTheReplyRunsOnceItIsWritten(t *testing.T) {
	lr, rw := io.Pipe()
	rr, lw := io.Pipe()
	out := &orderedWriter{w: rw, marked: make(chan struct{})}
	right := NewMux()
	registered := make(chan bool, 1)
	Handle(right, twice, func(ctx context.Context, n int) (int, error) {
		registered <- AfterReply(ctx, func() { out.mark("after") })
		return 2 * n, nil
	})
	l, r := New(lr, lw, NewMux()), New(rr, out, right)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = l.Run(ctx) }()
	go func() { _ = r.Run(ctx) }()
	t.Cleanup(func() { cancel(); _ = rw.Close(); _ = rr.Close(); _ = lw.Close(); _ = lr.Close() })

	if got, err := twice.Call(context.Background(), l, 4); err != nil || got != 8 {
		t.Fatalf("twice(4) = %v, %v", got, err)
	}
	if !<-registered {
		t.Fatal("AfterReply said a handler's context is not one")
	}
	select {
	case <-out.marked:
	case <-time.After(patience):
		t.Fatal("what was to run after the reply never ran")
	}
	out.mu.Lock()
	defer out.mu.Unlock()
	if len(out.log) != 2 || !strings.Contains(out.log[0], `"result":8`) || out.log[1] != "after" {
		t.Fatalf("written and marked, in order: %q; want the answer, then after", out.log)
	}
	if AfterReply(context.Background(), func() { t.Error("kept outside a handler") }) {
		t.Error("AfterReply took a context that is no handler's")
	}
}
