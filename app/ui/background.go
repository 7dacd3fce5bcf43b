package ui

import (
	"sync"
	"sync/atomic"

	"fyne.io/fyne/v2"
)

// Background runs work off the GUI thread and counts it, so that tests
// can wait for it: Fyne's test driver runs fyne.Do inline, on the
// worker's goroutine, so what done does is only over once the count is.
type Background struct {
	wg sync.WaitGroup
	// running counts the work started whose done has not run yet.
	running atomic.Int32
}

// Run runs work on a goroutine of its own, then done on the GUI thread.
func (b *Background) Run(work, done func()) {
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

// Busy says whether work started has not shown its outcome yet.
func (b *Background) Busy() bool { return b.running.Load() > 0 }

// Wait returns once all work run started, and its done, is over.
func (b *Background) Wait() { b.wg.Wait() }
