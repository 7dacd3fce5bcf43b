// Package signals tells whoever follows something that it changed: each
// follower gets a channel that receives a signal per change, coalesced, so
// that a slow reader reads the state anew once rather than once per change
// and never holds up the one that changed it.
package signals

import (
	"context"
	"sync"
)

// Set is the followers of one thing. Its zero value is ready.
type Set struct {
	mu sync.Mutex
	// subs are the followers' channels, each with what stops watching its
	// context.
	subs   map[chan struct{}]func() bool
	closed bool
}

// Subscribe returns a channel that receives a value after each Notify; it
// is closed when ctx ends or the Set is closed.
func (s *Set) Subscribe(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		close(ch)
		return ch
	}
	if s.subs == nil {
		s.subs = map[chan struct{}]func() bool{}
	}
	s.subs[ch] = context.AfterFunc(ctx, func() { s.drop(ch) })
	return ch
}

// drop ends one follower's channel.
func (s *Set) drop(ch chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.subs[ch]; ok {
		delete(s.subs, ch)
		close(ch)
	}
}

// Notify signals every follower; one that has a signal pending already
// gets no second.
func (s *Set) Notify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Close ends every follower's channel, and those of later subscribers at
// once: the thing followed is gone.
func (s *Set) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for ch, stop := range s.subs {
		stop()
		delete(s.subs, ch)
		close(ch)
	}
}
