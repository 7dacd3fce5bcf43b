package app

import "testing"

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "no problems", 1: "1 problem", 2: "2 problems", 12: "12 problems"} {
		if got := count(n, "problem", "problems"); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}
