package catalog

import (
	"strings"
	"testing"
)

// TestUniqueName: a name taken gets the first free _N, cut to stay
// within the limit.
func TestUniqueName(t *testing.T) {
	taken := map[string]bool{"a": true, "a_2": true, strings.Repeat("x", 10): true}
	is := func(n string) bool { return taken[n] }
	for _, tc := range []struct {
		name string
		max  int
		want string
	}{
		{"b", 64, "b"},
		{"a", 64, "a_3"},
		{strings.Repeat("x", 10), 10, strings.Repeat("x", 8) + "_2"},
	} {
		if got := UniqueName(tc.name, tc.max, is); got != tc.want {
			t.Errorf("UniqueName(%q, %d) = %q, want %q", tc.name, tc.max, got, tc.want)
		}
	}
}
