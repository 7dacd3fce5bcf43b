package app

import (
	"sync"

	"fyne.io/fyne/v2"
)

// background runs work off the GUI thread and counts it, so that tests
// can wait for it: Fyne's test driver runs fyne.Do inline, on the
// worker's goroutine, so what done does is only over once the count is.
type background struct{ wg sync.WaitGroup }

// run runs work on a goroutine of its own, then done on the GUI thread.
func (b *background) run(work, done func()) {
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		work()
		fyne.Do(done)
	}()
}

// wait returns once all work run started, and its done, is over.
func (b *background) wait() { b.wg.Wait() }
