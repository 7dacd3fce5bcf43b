package app

import (
	"sync"
	"sync/atomic"

	"fyne.io/fyne/v2"
)

// background runs work off the GUI thread and counts it, so that tests
// can wait for it: Fyne's test driver runs fyne.Do inline, on the
// worker's goroutine, so what done does is only over once the count is.
type background struct {
	wg sync.WaitGroup
	// running counts the work started whose done has not run yet.
	running atomic.Int32
}

// run runs work on a goroutine of its own, then done on the GUI thread.
func (b *background) run(work, done func()) {
	b.wg.Add(1)
	b.running.Add(1)
	go func() {
		defer b.wg.Done()
		work()
		fyne.Do(func() {
			defer b.running.Add(-1)
			done()
		})
	}()
}

// busy says whether work started has not shown its outcome yet.
func (b *background) busy() bool { return b.running.Load() > 0 }

// wait returns once all work run started, and its done, is over.
func (b *background) wait() { b.wg.Wait() }
