package actions

import (
	"syscall"
	"testing"
)

// TestWindowsQuoteIsEscapeArg: windowsQuote, which Linux builds have too,
// quotes as syscall.EscapeArg, which os/exec uses to start a program.
func TestWindowsQuoteIsEscapeArg(t *testing.T) {
	for _, s := range []string{``, `plain`, `C:\dir\`, `a b\`, `a"b`, `a\"b`, `a b\\"c`, "tab\there", `"`, `\\server\share\x y`} {
		if got, want := windowsQuote(s), syscall.EscapeArg(s); got != want {
			t.Errorf("windowsQuote(%q) = %q, syscall.EscapeArg: %q", s, got, want)
		}
	}
}
