package catalog

import (
	"fmt"
	"strconv"
)

// maxNameLen is the longest tool, prompt, parameter or step name allowed.
const maxNameLen = 64

// CheckName applies mcptray's name rule to tool, prompt, parameter, step
// and client token names: 1–64 characters of A-Za-z0-9_.-, which every MCP
// client accepts.
func CheckName(name string) error {
	if name == "" {
		return fmt.Errorf("required")
	}
	if len(name) > maxNameLen {
		return fmt.Errorf("%d characters; at most %d allowed", len(name), maxNameLen)
	}
	for i, r := range name {
		if !nameRune(r) {
			return fmt.Errorf("character %q at position %d is not allowed (use A-Z a-z 0-9 _ . -)", r, i+1)
		}
	}
	return nil
}

func nameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-'
}

// UniqueName is name, or name_2, name_3… when taken says it is used, cut
// so that it stays within max characters: a name proposed for something
// new (an imported tool, secret or server) that clashes with none.
func UniqueName(name string, max int, taken func(string) bool) string {
	if !taken(name) {
		return name
	}
	for i := 2; ; i++ {
		suffix := "_" + strconv.Itoa(i)
		base := name
		if len(base)+len(suffix) > max {
			base = base[:max-len(suffix)]
		}
		if c := base + suffix; !taken(c) {
			return c
		}
	}
}
