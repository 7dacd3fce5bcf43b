package words

import (
	"fmt"
	"strings"
	"unicode"
)

// Hidden shows the characters of s that a person cannot see, or that
// change how the text around them reads, as "[hidden U+202E]": format
// characters (right-to-left overrides, zero-width spaces and joiners, the
// byte-order mark), control characters other than a line break or a tab,
// line and paragraph separators, variation selectors and invisible
// fillers. Text an AI app sends can otherwise read differently in a
// window from what runs. found reports whether there was any.
func Hidden(s string) (shown string, found bool) {
	if !strings.ContainsFunc(s, hidden) {
		return s, false
	}
	var b strings.Builder
	for _, r := range s {
		if hidden(r) {
			fmt.Fprintf(&b, "[hidden U+%04X]", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String(), true
}

// HiddenNote is what a window says under text in which Hidden found any.
const HiddenNote = "This text holds characters you could not see, which can make it read differently from what it does: they are shown as [hidden U+…]."

// invisible are letters and marks that draw nothing (fillers, the
// combining grapheme joiner, variation selectors).
var invisible = &unicode.RangeTable{R16: []unicode.Range16{
	{Lo: 0x034f, Hi: 0x034f, Stride: 1},
	{Lo: 0x115f, Hi: 0x1160, Stride: 1},
	{Lo: 0x17b4, Hi: 0x17b5, Stride: 1},
	{Lo: 0x180b, Hi: 0x180f, Stride: 1},
	{Lo: 0x3164, Hi: 0x3164, Stride: 1},
	{Lo: 0xfe00, Hi: 0xfe0f, Stride: 1},
	{Lo: 0xffa0, Hi: 0xffa0, Stride: 1},
}, R32: []unicode.Range32{{Lo: 0xe0100, Hi: 0xe01ef, Stride: 1}}}

func hidden(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r == unicode.ReplacementChar:
		return false
	}
	return unicode.In(r, unicode.Cf, unicode.Cc, unicode.Zl, unicode.Zp, invisible)
}
