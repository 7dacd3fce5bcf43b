package words

import "testing"

func TestHiddenShowsWhatCannotBeSeen(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		found    bool
	}{
		{"rm -rf ~/old", "rm -rf ~/old", false},
		{"line one\n\tline two, é, 日本", "line one\n\tline two, é, 日本", false},
		{"evil\u202Egpj.exe", "evil[hidden U+202E]gpj.exe", true},
		{"a\u200Bb\u200Dc\uFEFF", "a[hidden U+200B]b[hidden U+200D]c[hidden U+FEFF]", true},
		{"x\x1b[31my", "x[hidden U+001B][31my", true},
		{"tag\U000E0041", "tag[hidden U+E0041]", true},
		{"fill\u3164er", "fill[hidden U+3164]er", true},
	} {
		got, found := Hidden(tc.in)
		if got != tc.want || found != tc.found {
			t.Errorf("Hidden(%q) = %q, %v; want %q, %v", tc.in, got, found, tc.want, tc.found)
		}
	}
}
