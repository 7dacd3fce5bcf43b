package memo

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestGetFindsEachKeyOnce: a key is looked for once however often it is
// asked for, from one goroutine or many; a nil Memo looks every time.
func TestGetFindsEachKeyOnce(t *testing.T) {
	m := New[string, int]()
	var calls atomic.Int32
	find := func(v int) func() int { return func() int { calls.Add(1); return v } }
	if m.Get("a", find(1)) != 1 || m.Get("a", find(2)) != 1 || m.Get("b", find(3)) != 3 || calls.Load() != 2 {
		t.Errorf("%d finds for two keys", calls.Load())
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if m.Get("a", find(4)) != 1 {
				t.Error("a key found again gave another value")
			}
		})
	}
	wg.Wait()
	var none *Memo[string, int]
	if none.Get("a", find(5)) != 5 || none.Get("a", find(6)) != 6 {
		t.Error("a nil Memo remembered")
	}
}
