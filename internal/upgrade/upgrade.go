// Package upgrade decides when a running mcptray makes way for another
// program: after an upgrade, the server a client talks to may still be
// the old version, running a program file the package manager has since
// replaced. Each start of the app, of `mcptray serve` and of the stdio
// shim asks Outdated of the server the endpoint file names, and a server
// that is outdated is asked to hand over to the program installed now.
//
// The versions are the rule: a server older than the program starting
// makes way, and one that is newer or the same does not, so two installs
// of different versions (a .deb and a `make install`, say) never take
// the server from each other back and forth. The one exception is a
// server whose program file was replaced or deleted (process.Replaced, on
// Linux): it is outdated when its version differs at all, which covers a
// downgrade. A version that is not a release number ("dev", a `go build`
// without the stamp) is never outdated: nothing can say what it is.
package upgrade

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/internal/process"
)

// Outdated says whether the server ep names, assumed running, should make
// way for a program of version mine: it is older, or its program file was
// replaced and it is another version.
func Outdated(ep paths.Endpoint, mine string) bool {
	c, ok := Compare(ep.Version, mine)
	return ok && (c < 0 || (c != 0 && process.Replaced(ep.PID)))
}

// Older says whether version running is older than mine; false when
// either is not a release number.
func Older(running, mine string) bool {
	c, ok := Compare(running, mine)
	return ok && c < 0
}

// Compare orders two versions as semantic versions (MAJOR.MINOR.PATCH,
// an optional -PRERELEASE that comes before its release, an ignored
// +BUILD, and an optional leading v): -1 when a is older, 0 when they are
// the same, 1 when a is newer. ok is false when either is not a version.
func Compare(a, b string) (c int, ok bool) {
	va, okA := parse(a)
	vb, okB := parse(b)
	if !okA || !okB {
		return 0, false
	}
	for i := range va.core {
		if va.core[i] != vb.core[i] {
			return cmp.Compare(va.core[i], vb.core[i]), true
		}
	}
	return comparePre(va.pre, vb.pre), true
}

// version is a parsed version: its three numbers and its prerelease
// identifiers (none for a release).
type version struct {
	core [3]uint64
	pre  []string
}

func parse(s string) (version, bool) {
	var v version
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	s, _, _ = strings.Cut(s, "+")
	s, pre, hasPre := strings.Cut(s, "-")
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil || p == "" {
			return v, false
		}
		v.core[i] = n
	}
	if hasPre {
		v.pre = strings.Split(pre, ".")
		for _, id := range v.pre {
			if id == "" {
				return v, false
			}
		}
	}
	return v, true
}

// comparePre orders prerelease identifiers as semantic versioning does: a
// release (none) comes after any prerelease; numbers compare as numbers
// and before words; a shorter list that is a prefix of the other comes
// first.
func comparePre(a, b []string) int {
	switch {
	case len(a) == 0 && len(b) == 0:
		return 0
	case len(a) == 0:
		return 1
	case len(b) == 0:
		return -1
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		na, errA := strconv.ParseUint(a[i], 10, 64)
		nb, errB := strconv.ParseUint(b[i], 10, 64)
		switch {
		case errA == nil && errB == nil:
			if na != nb {
				return cmp.Compare(na, nb)
			}
		case errA == nil:
			return -1
		case errB == nil:
			return 1
		case a[i] != b[i]:
			return strings.Compare(a[i], b[i])
		}
	}
	return cmp.Compare(len(a), len(b))
}
