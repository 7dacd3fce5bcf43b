package mcpcore

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// excerpt walks only what it keeps, and keeps what converting the whole
// text to runes kept.
func TestExcerpt(t *testing.T) {
	runes := func(s string) string {
		s = strings.TrimSpace(s)
		if utf8.RuneCountInString(s) <= maxDetail {
			return s
		}
		return string([]rune(s)[:maxDetail-1]) + "…"
	}
	for _, s := range []string{"", "  short  ", strings.Repeat("a", maxDetail-1), strings.Repeat("a", maxDetail),
		strings.Repeat("a", maxDetail+1), strings.Repeat("é", maxDetail), strings.Repeat("é", maxDetail+1),
		strings.Repeat("\xff", 3*maxDetail), strings.Repeat("a\xffé😀", maxDetail), " " + strings.Repeat("x", 5*maxDetail) + " "} {
		if got, want := excerpt(s), runes(s); got != want {
			t.Errorf("excerpt(%q) = %q, want %q", s, got, want)
		}
	}
}
