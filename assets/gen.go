//go:build ignore

// gen draws mcptray's icons: `go run gen.go` in this directory rewrites the
// PNGs. A rounded square in the state's colour with a white plug-and-tray
// glyph: three bars (the tools) above a tray.
package main

import (
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
)

func main() {
	icons := map[string]color.NRGBA{
		"icon.png":           {0x3b, 0x5b, 0xdb, 0xff}, // app icon: indigo
		"tray-serving.png":   {0x2f, 0x9e, 0x44, 0xff}, // green
		"tray-paused.png":    {0x86, 0x8e, 0x96, 0xff}, // grey
		"tray-attention.png": {0xf0, 0x8c, 0x00, 0xff}, // amber
		"tray-error.png":     {0xe0, 0x31, 0x31, 0xff}, // red
	}
	for name, c := range icons {
		size := 64
		if name == "icon.png" {
			size = 256
		}
		f, err := os.Create(name)
		if err != nil {
			log.Fatal(err)
		}
		if err := png.Encode(f, draw(size, c)); err != nil {
			log.Fatal(err)
		}
		f.Close()
	}
}

// draw renders the icon at size×size with 4×4 supersampling.
func draw(size int, bg color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	const ss = 4
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			var a, w float64
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					u := (float64(x) + (float64(sx)+0.5)/ss) / float64(size)
					v := (float64(y) + (float64(sy)+0.5)/ss) / float64(size)
					if inRoundRect(u, v, 0.04, 0.04, 0.96, 0.96, 0.2) {
						a++
						if glyph(u, v) {
							w++
						}
					}
				}
			}
			a /= ss * ss
			w /= ss * ss
			if a == 0 {
				continue
			}
			mix := func(c uint8) uint8 { return uint8(math.Round(float64(c)*(1-w/a) + 255*(w/a))) }
			img.SetNRGBA(x, y, color.NRGBA{mix(bg.R), mix(bg.G), mix(bg.B), uint8(math.Round(255 * a))})
		}
	}
	return img
}

// glyph: three rounded bars of decreasing length, and a tray under them.
func glyph(u, v float64) bool {
	bars := []struct{ x1, y float64 }{{0.72, 0.26}, {0.64, 0.39}, {0.56, 0.52}}
	for _, b := range bars {
		if inRoundRect(u, v, 0.28, b.y, b.x1, b.y+0.08, 0.04) {
			return true
		}
	}
	// the tray: a U shape
	if inRoundRect(u, v, 0.2, 0.64, 0.8, 0.76, 0.05) {
		return true
	}
	if inRoundRect(u, v, 0.2, 0.56, 0.28, 0.76, 0.04) || inRoundRect(u, v, 0.72, 0.56, 0.8, 0.76, 0.04) {
		return true
	}
	return false
}

func inRoundRect(u, v, x0, y0, x1, y1, r float64) bool {
	if u < x0 || u > x1 || v < y0 || v > y1 {
		return false
	}
	cx := math.Max(x0+r, math.Min(u, x1-r))
	cy := math.Max(y0+r, math.Min(v, y1-r))
	return (u-cx)*(u-cx)+(v-cy)*(v-cy) <= r*r
}
