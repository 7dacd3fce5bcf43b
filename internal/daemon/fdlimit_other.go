//go:build !unix

package daemon

// fdLimit is 0 (unknown): Windows has no small per-process limit on
// sockets, and the connection cap alone applies.
func fdLimit() int { return 0 }
