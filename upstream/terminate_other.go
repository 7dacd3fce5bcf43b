//go:build !unix

package upstream

// terminate does nothing: Windows has no SIGTERM for a console program,
// so closing its input is the only request to end before the kill.
func terminate(int) {}
