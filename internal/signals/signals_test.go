package signals

import (
	"context"
	"testing"
	"time"
)

// received reports whether ch has a value (true) or is closed (ok false).
func received(ch <-chan struct{}) (got, ok bool) {
	select {
	case _, ok := <-ch:
		return true, ok
	case <-time.After(50 * time.Millisecond):
		return false, true
	}
}

func TestSignalsCoalesceAndEndWithTheirContextOrTheSet(t *testing.T) {
	var s Set
	ctx, cancel := context.WithCancel(context.Background())
	a := s.Subscribe(ctx)
	b := s.Subscribe(context.Background())
	s.Notify()
	s.Notify() // coalesces with the first
	for name, ch := range map[string]<-chan struct{}{"a": a, "b": b} {
		if got, ok := received(ch); !got || !ok {
			t.Fatalf("%s: no signal after Notify", name)
		}
		if got, _ := received(ch); got {
			t.Fatalf("%s: two signals for two Notifies with no read between", name)
		}
	}
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if got, ok := received(a); got && !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a's channel stayed open after its context ended")
		}
	}
	s.Notify() // a is gone: nothing blocks, nothing panics
	if got, ok := received(b); !got || !ok {
		t.Fatal("b: no signal after a went")
	}
	s.Close()
	if got, ok := received(b); !got || ok {
		t.Fatal("b's channel stayed open after Close")
	}
	if got, ok := received(s.Subscribe(context.Background())); !got || ok {
		t.Fatal("a subscription after Close is not closed at once")
	}
}
