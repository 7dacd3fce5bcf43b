package record

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"abcde", "abcde"},
		{"abcdef", "abcde… (cut at 5 characters)"},
		// Characters, not bytes: a name in another script keeps as many.
		{"日本語のなまえ", "日本語のな… (cut at 5 characters)"},
		{"日本語のな", "日本語のな"},
	} {
		if got := cut(c.in, 5); got != c.want {
			t.Errorf("cut(%q, 5) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCappedBoundsEveryText(t *testing.T) {
	huge := strings.Repeat("é", 1<<20)
	many := slices.Repeat([]string{huge}, 1000)
	a := Activity{Era: huge, Client: huge, ClientVersion: huge, Token: huge, Method: huge, Target: huge, Detail: huge,
		Approvals: many, Capabilities: many}.Capped()
	total := 0
	for _, s := range append([]string{a.Era, a.Client, a.ClientVersion, a.Token, a.Method, a.Target, a.Detail},
		append(a.Approvals, a.Capabilities...)...) {
		if !strings.Contains(s, "(cut at ") && !strings.Contains(s, "more, not kept") {
			t.Errorf("%.40q… does not say it was cut", s)
		}
		total += utf8.RuneCountInString(s)
	}
	if len(a.Approvals) != maxItems+1 || a.Approvals[maxItems] != "… and 990 more, not kept" {
		t.Errorf("approvals: %d kept, the last %q; want %d and a line saying 990 more were not kept", len(a.Approvals), a.Approvals[len(a.Approvals)-1], maxItems+1)
	}
	if total > 6500 {
		t.Errorf("a record of 2,007 texts of a million characters each keeps %d characters, want at most 6,500", total)
	}
}

func TestCappedKeepsWhatFits(t *testing.T) {
	shared := []string{"approval: allowed once"}
	a := Activity{Client: "Visual Studio Code", ClientVersion: "1.2.3", Approvals: shared, Capabilities: []string{}}
	got := a.Capped()
	if got.Client != a.Client || got.ClientVersion != a.ClientVersion || &got.Approvals[0] != &shared[0] {
		t.Errorf("Capped changed a record within its caps: %+v", got)
	}
	// nil (nothing read) and empty (nothing declared) mean different things.
	if got.Capabilities == nil || (Activity{}).Capped().Capabilities != nil {
		t.Error("Capped confused declared-none capabilities with none read")
	}
	long := slices.Repeat([]string{"x"}, maxItems+2)
	long[0] = strings.Repeat("y", maxItemChars+1)
	before := slices.Clone(long)
	Activity{Approvals: long}.Capped()
	if !slices.Equal(long, before) {
		t.Error("Capped changed the caller's list")
	}
}
