package localefix

import "testing"

func TestIsCUTF8(t *testing.T) {
	for v, want := range map[string]bool{
		"C.UTF-8": true, "C.utf8": true, "POSIX.UTF-8": true,
		"C": false, "POSIX": false, "en_US.UTF-8": false, "": false, "C.": false, "de_DE": false,
	} {
		if got := isCUTF8(v); got != want {
			t.Errorf("isCUTF8(%q) = %v, want %v", v, got, want)
		}
	}
}
