package record

import (
	"fmt"
	"unicode/utf8"
)

// The most an activity record keeps of each text, in characters. Nearly
// every field holds what a client sent (its name and version, the method,
// the tool or resource it names, the Origin of a refused request), and any
// program holding a token — or, for refused requests, none — may send a
// megabyte of each: uncut, 40 calls grew the database by 135 MB. Each cap
// is far above what real clients send, so only abuse is cut.
const (
	maxEraChars     = 50  // protocol versions are 10 ("2025-11-25")
	maxClientChars  = 100 // client names are a few words ("Visual Studio Code")
	maxVersionChars = 50  // "1.2.3-beta.4+build.5678" and the like
	maxNameChars    = 100 // token names (at most 64 when created), methods
	maxTargetChars  = 500 // tool and prompt names, resource URIs
	maxDetailChars  = 500 // the engine's excerpts are 200; a refused request's line adds its count
	maxItems        = 10  // approvals (one per step asked on the desktop) and capabilities (five words)
	maxItemChars    = 200 // a step's name, its verdict and a person's reason
)

// Capped returns a with every text cut to its cap, each saying where it was
// cut, so that the activity log stays small whatever a client sends.
// Texts within their caps are returned as they are, without copying.
func (a Activity) Capped() Activity {
	a.Era = cut(a.Era, maxEraChars)
	a.Client = cut(a.Client, maxClientChars)
	a.ClientVersion = cut(a.ClientVersion, maxVersionChars)
	a.Token = cut(a.Token, maxNameChars)
	a.Method = cut(a.Method, maxNameChars)
	a.Target = cut(a.Target, maxTargetChars)
	a.Detail = cut(a.Detail, maxDetailChars)
	a.Approvals = cutList(a.Approvals)
	a.Capabilities = cutList(a.Capabilities)
	return a
}

// cut returns s when it has at most max characters; otherwise its first max
// characters followed by "… (cut at max characters)", so that whoever reads
// it sees it is not whole.
func cut(s string, max int) string {
	if len(s) <= max {
		return s // bytes bound characters
	}
	// Only the first max characters are walked: a megabyte is not counted.
	end := 0
	for range max {
		if end == len(s) {
			return s
		}
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	if end == len(s) {
		return s
	}
	return fmt.Sprintf("%s… (cut at %d characters)", s[:end], max)
}

// cutList cuts each item of l, and keeps at most maxItems of them,
// ending with a line saying how many more there were. It copies l only when
// something is cut: l may be shared.
func cutList(l []string) []string {
	var out []string
	for i, s := range l {
		c := cut(s, maxItemChars)
		if out == nil && (c != s || i == maxItems) {
			out = append(make([]string, 0, min(len(l), maxItems+1)), l[:i]...)
		}
		if i == maxItems {
			return append(out, fmt.Sprintf("… and %d more, not kept", len(l)-maxItems))
		}
		if out != nil {
			out = append(out, c)
		}
	}
	if out == nil {
		return l
	}
	return out
}
