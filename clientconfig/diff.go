package clientconfig

import (
	"fmt"
	"strings"
)

// Diff shows what changes between two texts: the changed lines marked
// "- " and "+ " with two lines of context, so a large file (~/.claude.json)
// is not dumped whole.
func Diff(old, new []byte) string {
	a := strings.SplitAfter(string(old), "\n")
	b := strings.SplitAfter(string(new), "\n")
	if len(old) == 0 {
		a = nil
	}
	if len(a) > 0 && a[len(a)-1] == "" {
		a = a[:len(a)-1]
	}
	if len(b) > 0 && b[len(b)-1] == "" {
		b = b[:len(b)-1]
	}
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var sb strings.Builder
	line := func(mark, s string) {
		sb.WriteString(mark + strings.TrimSuffix(s, "\n") + "\n")
	}
	from := max(0, pre-2)
	if from > 0 {
		fmt.Fprintf(&sb, "  … (%d lines unchanged)\n", from)
	}
	for _, s := range a[from:pre] {
		line("  ", s)
	}
	for _, s := range a[pre : len(a)-suf] {
		line("- ", s)
	}
	for _, s := range b[pre : len(b)-suf] {
		line("+ ", s)
	}
	to := min(len(b), len(b)-suf+2)
	for _, s := range b[len(b)-suf : to] {
		line("  ", s)
	}
	if rest := len(b) - to; rest > 0 {
		fmt.Fprintf(&sb, "  … (%d lines unchanged)\n", rest)
	}
	return strings.TrimSuffix(sb.String(), "\n")
}
