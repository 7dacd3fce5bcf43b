package parallel

import (
	"sync/atomic"
	"testing"
)

// TestEachCallsEveryStepOnce: every index is visited exactly once, with
// few steps (run in place) and with many (on every core), and none for 0.
func TestEachCallsEveryStepOnce(t *testing.T) {
	for _, n := range []int{0, 1, 5, 1000} {
		seen := make([]atomic.Int32, n)
		Each(n, 8, func(i int) { seen[i].Add(1) })
		for i := range seen {
			if c := seen[i].Load(); c != 1 {
				t.Errorf("n=%d: step %d ran %d times", n, i, c)
			}
		}
	}
}
