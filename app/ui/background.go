package ui

import (
	"sync"

	"fyne.io/fyne/v2"
)

// Background runs work off the GUI thread and counts it, so that tests
// can wait for it: Fyne's test driver runs fyne.Do inline, on the
// worker's goroutine, so what done does is only over once the count is.
// Its zero value is ready to use.
type Background struct {
	mu sync.Mutex
	// running counts the work started whose done has not run yet; idle
	// is signalled when it falls to 0 (made on first use, under mu).
	running int
	idle    *sync.Cond
}

// Run runs work on a goroutine of its own, then done on the GUI thread.
func (b *Background) Run(work, done func()) {
	b.mu.Lock()
	b.running++
	b.mu.Unlock()
	go func() {
		work()
		fyne.Do(func() {
			defer b.finished()
			done()
		})
	}()
}

// finished counts one done as run.
func (b *Background) finished() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.running--; b.running == 0 {
		b.cond().Broadcast()
	}
}

// cond is the idle signal; b.mu is held.
func (b *Background) cond() *sync.Cond {
	if b.idle == nil {
		b.idle = sync.NewCond(&b.mu)
	}
	return b.idle
}

// Busy says whether work started has not shown its outcome yet.
func (b *Background) Busy() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.running > 0
}

// Wait returns once all work started, and its done, is over, work started
// while it waits included. Only for tests: their driver runs done inline,
// where the app's runs it later on the GUI thread that would be waiting.
// (A sync.WaitGroup panics when work starts as its Wait returns: the
// window's lists reload on the change feed's goroutine.)
func (b *Background) Wait() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.running > 0 {
		b.cond().Wait()
	}
}
