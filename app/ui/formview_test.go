package ui

import "testing"

// TestQuoted: backquoted commands in an italic hint read between
// quotation marks, where no closing backquote leans over a letter.
func TestQuoted(t *testing.T) {
	for in, want := range map[string]string{
		"`make clean` or moving the checkout": "“make clean” or moving the checkout",
		"one ` alone":                         "one ` alone",
		"none":                                "none",
	} {
		if got := Quoted(in); got != want {
			t.Errorf("Quoted(%q) = %q, want %q", in, got, want)
		}
	}
}
