// Package memo remembers what a costly check found, by a key standing for
// what it checked, across the calls of one job: checking thousands of
// imported tools that repeat the same templates and schemas.
package memo

import "sync"

// Memo maps keys to what was found for them. Safe for concurrent use; a
// nil Memo remembers nothing.
type Memo[K comparable, V any] struct {
	mu    sync.Mutex
	found map[K]V
}

// New returns an empty Memo.
func New[K comparable, V any]() *Memo[K, V] { return &Memo[K, V]{found: map[K]V{}} }

// Get returns what was found for key, or what find finds now, which it
// remembers. Two callers of one new key may both call find (it is not
// held under the lock): it must give the same for the same key.
func (m *Memo[K, V]) Get(key K, find func() V) V {
	if m == nil {
		return find()
	}
	m.mu.Lock()
	v, seen := m.found[key]
	m.mu.Unlock()
	if seen {
		return v
	}
	v = find()
	m.mu.Lock()
	m.found[key] = v
	m.mu.Unlock()
	return v
}
