package assets

import (
	"bytes"
	"image"
	"image/png"
	"testing"
)

// TestTrayIcons: every state has a distinct icon for each panel, a square
// PNG whose glyph is light for dark panels and dark for light ones, with a
// halo of the other colour so it stays legible on the other kind of panel.
func TestTrayIcons(t *testing.T) {
	seen := map[string]bool{}
	for _, dark := range []bool{false, true} {
		for state := TrayServing; state <= TrayError; state++ {
			res := Tray(state, dark)
			if seen[res.Name] {
				t.Errorf("state %d (dark %v) reuses %s", state, dark, res.Name)
			}
			seen[res.Name] = true
			img, err := png.Decode(bytes.NewReader(res.PNG))
			if err != nil {
				t.Fatalf("%s: %v", res.Name, err)
			}
			if b := img.Bounds(); b.Dx() != b.Dy() || b.Dx() < 32 {
				t.Errorf("%s is %v, want a square of at least 32 px", res.Name, b)
			}
			// The top-left quarter holds only glyph (the bars) and its
			// halo, no badge.
			glyph, halo, ok := glyphAndHalo(img)
			if !ok || dark && (glyph < 200 || halo > 80) || !dark && (glyph > 80 || halo < 200) {
				t.Errorf("%s: glyph luma %d, halo luma %d; want a light glyph with a dark halo for dark panels, and the reverse", res.Name, glyph, halo)
			}
		}
	}
	if Tray(TrayState(99), true).Name != Tray(TrayError, true).Name {
		t.Error("an unknown state does not show as an error")
	}
}

// glyphAndHalo are the lumas of the glyph and of its halo in img's top-left
// quarter: the glyph's is at the opaque pixel farthest from transparency
// (a stroke's core, which the halo surrounds), the halo's at the opaque
// pixel nearest to it; false when the quarter has no opaque pixel.
func glyphAndHalo(img image.Image) (glyph, halo int, ok bool) {
	b := img.Bounds()
	w, h := b.Dx()/2, b.Dy()/2
	opaque := func(x, y int) bool {
		_, _, _, a := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
		return a >= 0xf000
	}
	luma := func(x, y int) int {
		r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
		return int((299*r + 587*g + 114*bl) / 1000 >> 8)
	}
	// dist is the squared distance from (x, y) to the nearest transparent
	// pixel of the quarter.
	dist := func(x, y int) int {
		best := w*w + h*h
		for ty := 0; ty < h; ty++ {
			for tx := 0; tx < w; tx++ {
				if d := (tx-x)*(tx-x) + (ty-y)*(ty-y); d < best && !opaque(tx, ty) {
					best = d
				}
			}
		}
		return best
	}
	far, near := -1, 1<<30
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if !opaque(x, y) {
				continue
			}
			d := dist(x, y)
			if d > far {
				far, glyph = d, luma(x, y)
			}
			if d < near {
				near, halo = d, luma(x, y)
			}
		}
	}
	return glyph, halo, far >= 0
}
