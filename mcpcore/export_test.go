package mcpcore

// HasDefaultScope reports whether the default scope's server (every tool)
// exists, for tests of its build at start.
func (e *Engine) HasDefaultScope() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.scopes["*"] != nil
}
