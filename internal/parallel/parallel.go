// Package parallel runs the independent steps of one job on every core:
// checking thousands of tools, decoding thousands of path items.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Each calls f(i) for every i in [0, n), on as many goroutines as there
// are cores, but one for each perWorker steps at the least: a few cheap
// steps run where they are. It returns once every call has; f must be safe
// to call concurrently, and writes its result by i.
func Each(n, perWorker int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n/max(perWorker, 1)+1)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}
