package ui

import (
	"image/color"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// readable is Fyne's theme with the colours text is drawn in made to read
// against what they are drawn on, at WCAG AA's 4.5:1 at least, in both the
// light and the dark variant. Fyne's own light theme draws success as
// #43F436 on white (1.48:1), warnings as #FF9800 (2.16:1) and dimmed text
// as #E3E3E3 (1.3:1): a state told only in a colour nobody can read is not
// told. Everything else (sizes, fonts, icons) is Fyne's.
type readable struct {
	fyne.Theme
	// variant, when set, is drawn whatever the desktop prefers (tests and
	// screenshots of either variant).
	variant *fyne.ThemeVariant
}

// Theme is the theme every mcptray window is drawn with: Fyne's, with the
// text and state colours of readableColors.
func Theme() fyne.Theme { return readable{Theme: theme.DefaultTheme()} }

// ThemeVariant is Theme always drawn in variant v, whatever the desktop
// prefers: the tests and screenshots of the light and the dark theme.
func ThemeVariant(v fyne.ThemeVariant) fyne.Theme {
	return readable{Theme: theme.DefaultTheme(), variant: &v}
}

// Color is Fyne's colour, but for the text and state colours that do not
// read against their background.
func (t readable) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	if t.variant != nil {
		v = *t.variant
	}
	if c, ok := readableColors[v][n]; ok {
		return c
	}
	return t.Theme.Color(n, v)
}

// readableColors are the colours that replace Fyne's, by variant. Text in
// a state colour (a label of success, warning or danger importance, a
// link, a high importance label) is drawn on the window's, an input's,
// a dialog's or a menu's background; a button of that importance draws
// its text in the matching "on" colour over it. Dimmed text (a disabled
// entry in a list, a disabled button's text, help that matters less) is
// ColorNameDisabled, and placeholders are read too. The dark variant's
// primary blue is lighter, to read as text on the dark background, so the
// text on it is dark. The light variant's text is darker than Fyne's grey,
// so that dimmed text, dark enough to read on a selected row, still looks
// dimmed beside it.
var readableColors = map[fyne.ThemeVariant]map[fyne.ThemeColorName]color.Color{
	theme.VariantLight: {
		theme.ColorNameSuccess:             rgb(0x1e, 0x7b, 0x26),
		theme.ColorNameWarning:             rgb(0x9c, 0x4f, 0x00),
		theme.ColorNameError:               rgb(0xc6, 0x28, 0x28),
		theme.ColorNamePrimary:             rgb(0x1a, 0x5c, 0xd6),
		theme.ColorNameHyperlink:           rgb(0x1a, 0x5c, 0xd6),
		theme.ColorNameForegroundOnPrimary: rgb(0xff, 0xff, 0xff),
		theme.ColorNameForegroundOnSuccess: rgb(0xff, 0xff, 0xff),
		theme.ColorNameForegroundOnWarning: rgb(0xff, 0xff, 0xff),
		theme.ColorNameForegroundOnError:   rgb(0xff, 0xff, 0xff),
		theme.ColorNameForeground:          rgb(0x22, 0x22, 0x22),
		theme.ColorNameDisabled:            rgb(0x5a, 0x5a, 0x5a),
		theme.ColorNamePlaceHolder:         rgb(0x5a, 0x5a, 0x5a),
	},
	theme.VariantDark: {
		theme.ColorNameSuccess:             rgb(0x43, 0xf4, 0x36),
		theme.ColorNameWarning:             rgb(0xff, 0x98, 0x00),
		theme.ColorNameError:               rgb(0xff, 0x6e, 0x61),
		theme.ColorNamePrimary:             rgb(0x5c, 0x9b, 0xff),
		theme.ColorNameHyperlink:           rgb(0x5c, 0x9b, 0xff),
		theme.ColorNameForegroundOnPrimary: rgb(0x17, 0x17, 0x18),
		theme.ColorNameForegroundOnSuccess: rgb(0x17, 0x17, 0x18),
		theme.ColorNameForegroundOnWarning: rgb(0x17, 0x17, 0x18),
		theme.ColorNameForegroundOnError:   rgb(0x17, 0x17, 0x18),
		theme.ColorNameDisabled:            rgb(0x9a, 0x9a, 0x9a),
	},
}

func rgb(r, g, b uint8) color.NRGBA { return color.NRGBA{R: r, G: g, B: b, A: 0xff} }

// Contrast is WCAG 2's contrast ratio of text in colour fg on bg, from
// 1 (none) to 21 (black on white). A translucent fg is first blended over
// bg, as it is drawn.
func Contrast(fg, bg color.Color) float64 {
	f := Blend(bg, fg)
	lf, lb := luminance(f), luminance(bg)
	if lf < lb {
		lf, lb = lb, lf
	}
	return (lf + 0.05) / (lb + 0.05)
}

// Blend is over drawn on under (opaque), as the screen shows it.
func Blend(under, over color.Color) color.Color {
	ur, ug, ub, _ := under.RGBA()
	or, og, ob, oa := over.RGBA()
	// RGBA is alpha-premultiplied: over's channels already carry oa.
	mix := func(u, o uint32) uint8 { return uint8((o + u*(0xffff-oa)/0xffff) >> 8) }
	return color.NRGBA{R: mix(ur, or), G: mix(ug, og), B: mix(ub, ob), A: 0xff}
}

// luminance is WCAG 2's relative luminance of an opaque colour.
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		s := float64(v) / 0xffff
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}
