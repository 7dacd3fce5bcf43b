//go:build ignore

// gen draws mcptray's icons: `go run gen.go` in this directory rewrites the
// PNGs.
//
// The app icon is a rounded indigo square with a white glyph: three bars
// (the tools) above a tray. The tray icons are that glyph alone, bolder so
// it survives a 22 px panel, in one colour per panel — white for dark
// panels, near-black for light ones — with the state as a coloured badge in
// the bottom-right corner, cut out of the glyph so it reads on any panel.
// Colour is not the only cue: paused is a ring, not a disc, and needs
// attention and error carry a mark inside the badge. The glyph has a thin
// halo in the other panel's colour: the variant is chosen from the
// desktop's light/dark preference, and some panels (GNOME's top bar) stay
// dark in light mode — the halo keeps the glyph legible there too.
package main

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
)

// traySize is the tray icons' size: panels scale it down (22–32 px) or up
// on HiDPI screens.
const traySize = 64

// ss is the supersampling factor per axis.
const ss = 4

// shape says whether the point (u, v) of the unit square is inside.
type shape func(u, v float64) bool

// layer is a shape painted in a colour; later layers cover earlier ones.
type layer struct {
	inside shape
	c      color.NRGBA
}

func main() {
	indigo := color.NRGBA{0x3b, 0x5b, 0xdb, 0xff}
	white := color.NRGBA{0xff, 0xff, 0xff, 0xff}
	write("icon.png", 256, []layer{
		{func(u, v float64) bool { return inRoundRect(u, v, 0.04, 0.04, 0.96, 0.96, 0.2) }, indigo},
		{appGlyph, white},
	})

	panels := map[string]color.NRGBA{
		"dark":  white,                    // glyph for dark panels
		"light": {0x21, 0x25, 0x29, 0xff}, // glyph for light panels
	}
	states := map[string]struct {
		c    color.NRGBA
		mark shape // inside the badge, in the badge's colour cut out; nil for none
		ring bool  // a ring instead of a disc
	}{
		"serving":   {c: color.NRGBA{0x2f, 0x9e, 0x44, 0xff}},
		"paused":    {c: color.NRGBA{0x86, 0x8e, 0x96, 0xff}, ring: true},
		"attention": {c: color.NRGBA{0xf0, 0x8c, 0x00, 0xff}, mark: exclamation},
		"error":     {c: color.NRGBA{0xe0, 0x31, 0x31, 0xff}, mark: cross},
	}
	halos := map[string]color.NRGBA{"dark": panels["light"], "light": panels["dark"]}
	for panel, glyphColour := range panels {
		for state, s := range states {
			badge := disc
			if s.ring {
				badge = ring
			}
			if s.mark != nil {
				mark := s.mark
				badge = func(u, v float64) bool { return disc(u, v) && !mark(u, v) }
			}
			write(fmt.Sprintf("tray-%s-%s.png", panel, state), traySize, []layer{
				{func(u, v float64) bool { return near(trayGlyph, u, v, haloWidth) && !badgeGap(u, v) }, halos[panel]},
				{func(u, v float64) bool { return trayGlyph(u, v) && !badgeGap(u, v) }, glyphColour},
				{badge, s.c},
			})
		}
	}
}

// haloWidth is the width of the tray glyph's halo (1.5 px at 22 px).
const haloWidth = 0.07

// near says whether (u, v) is within d of the shape: it probes a circle of
// points around it, enough for strokes wider than d.
func near(in shape, u, v, d float64) bool {
	if in(u, v) {
		return true
	}
	for i := 0; i < 16; i++ {
		a := float64(i) * math.Pi / 8
		if in(u+d*math.Cos(a), v+d*math.Sin(a)) || in(u+d/2*math.Cos(a), v+d/2*math.Sin(a)) {
			return true
		}
	}
	return false
}

// write renders layers at size×size into name.
func write(name string, size int, layers []layer) {
	f, err := os.Create(name)
	if err != nil {
		log.Fatal(err)
	}
	if err := png.Encode(f, render(size, layers)); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

// render paints layers with ss×ss supersampling: each pixel's colour is
// the average of its covered samples, its alpha the share covered.
func render(size int, layers []layer) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			var r, g, b, n float64
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					u := (float64(x) + (float64(sx)+0.5)/ss) / float64(size)
					v := (float64(y) + (float64(sy)+0.5)/ss) / float64(size)
					for i := len(layers) - 1; i >= 0; i-- {
						if layers[i].inside(u, v) {
							c := layers[i].c
							r, g, b, n = r+float64(c.R), g+float64(c.G), b+float64(c.B), n+1
							break
						}
					}
				}
			}
			if n == 0 {
				continue
			}
			round := func(c float64) uint8 { return uint8(math.Round(c / n)) }
			img.SetNRGBA(x, y, color.NRGBA{round(r), round(g), round(b), uint8(math.Round(255 * n / (ss * ss)))})
		}
	}
	return img
}

// appGlyph: three rounded bars of decreasing length, and a tray under them.
func appGlyph(u, v float64) bool {
	return glyph(u, v, 0.2, 0.26, 0.8, 0.08, 0.05)
}

// trayGlyph is the same glyph filling the icon, with strokes thick enough
// for a 22 px panel.
func trayGlyph(u, v float64) bool {
	return glyph(u, v, 0.06, 0.07, 0.94, 0.13, 0.105)
}

// glyph draws the bars-above-a-tray glyph from (x0, y0), x1 wide, with
// strokes of width w and gaps between the bars: it ends 5w+2gap below y0.
func glyph(u, v, x0, y0, x1, w, gap float64) bool {
	at := func(f float64) float64 { return x0 + (x1-x0)*f }
	// Three bars, starting in from the tray's side, each shorter.
	for i, end := range []float64{13.0 / 15, 11.0 / 15, 9.0 / 15} {
		top := y0 + float64(i)*(w+gap)
		if inRoundRect(u, v, at(2.0/15), top, at(end), top+w, w/2) {
			return true
		}
	}
	// The tray: a U whose sides rise to the middle of the last bar, with
	// a heavier bottom.
	sides := y0 + 2*(w+gap) + w/2
	bottom := sides + 2.5*w
	return inRoundRect(u, v, x0, sides+w, x1, bottom, w*0.625) ||
		inRoundRect(u, v, x0, sides, x0+w, bottom, w/2) ||
		inRoundRect(u, v, x1-w, sides, x1, bottom, w/2)
}

// The state badge: a disc in the bottom-right corner, and the transparent
// gap around it that separates it from the glyph.
const (
	badgeX, badgeY = 0.76, 0.76
	badgeR         = 0.24
	badgeGapWidth  = 0.07
)

func disc(u, v float64) bool { return dist(u, v, badgeX, badgeY) <= badgeR }

func ring(u, v float64) bool { d := dist(u, v, badgeX, badgeY); return d <= badgeR && d >= badgeR*0.5 }

func badgeGap(u, v float64) bool { return dist(u, v, badgeX, badgeY) <= badgeR+badgeGapWidth }

// exclamation is a "!" centred in the badge.
func exclamation(u, v float64) bool {
	const w = 0.07
	return inRoundRect(u, v, badgeX-w/2, badgeY-0.15, badgeX+w/2, badgeY+0.04, w/2) ||
		dist(u, v, badgeX, badgeY+0.11) <= w/2+0.005
}

// cross is an "×" centred in the badge.
func cross(u, v float64) bool {
	const half, w = 0.11, 0.07
	x, y := u-badgeX, v-badgeY
	if math.Abs(x) > half || math.Abs(y) > half {
		return false
	}
	return math.Abs(x-y)/math.Sqrt2 <= w/2 || math.Abs(x+y)/math.Sqrt2 <= w/2
}

func dist(u, v, x, y float64) float64 { return math.Hypot(u-x, v-y) }

func inRoundRect(u, v, x0, y0, x1, y1, r float64) bool {
	if u < x0 || u > x1 || v < y0 || v > y1 {
		return false
	}
	cx := math.Max(x0+r, math.Min(u, x1-r))
	cy := math.Max(y0+r, math.Min(v, y1-r))
	return (u-cx)*(u-cx)+(v-cy)*(v-cy) <= r*r
}
