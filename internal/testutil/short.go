package testutil

import "testing"

// Long skips t under `go test -short` (make check): a test that builds or
// starts mcptray's own programs, or waits out a real timeout or a flood,
// and so takes seconds where the rest take milliseconds. make test runs
// it; why says what it does, for the skip's line.
func Long(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: " + why)
	}
}
