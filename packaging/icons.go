//go:build ignore

// icons writes the hicolor icon theme sizes of mcptray's app icon:
//
//	go run packaging/icons.go SRC.png DESTDIR SIZE...
//
// DESTDIR/<size>x<size>/apps/mcptray.png for each SIZE, scaled from SRC
// (assets/icon.png, 256×256) with area averaging (box filter) when
// shrinking and nearest pixel when enlarging; standard library only. A
// DESTDIR ending in .ico is a Windows icon file instead, holding each size
// as a PNG image (what Windows Vista and later read), for the .exe's
// resources and the installer.
package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("icons: ")
	if len(os.Args) < 4 {
		log.Fatal("usage: go run packaging/icons.go SRC.png DESTDIR SIZE...")
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	src, err := png.Decode(f)
	f.Close()
	if err != nil {
		log.Fatalf("%s: %v", os.Args[1], err)
	}
	// Work in non-premultiplied RGBA from the origin.
	b := src.Bounds()
	in := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(in, in.Bounds(), src, b.Min, draw.Src)
	if strings.HasSuffix(os.Args[2], ".ico") {
		if err := writeICO(os.Args[2], in, os.Args[3:]); err != nil {
			log.Fatal(err)
		}
		return
	}
	for _, a := range os.Args[3:] {
		size := parseSize(a)
		dir := filepath.Join(os.Args[2], fmt.Sprintf("%dx%d", size, size), "apps")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			log.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dir, "mcptray.png"))
		if err != nil {
			log.Fatal(err)
		}
		err = png.Encode(out, scale(in, size))
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			log.Fatal(err)
		}
	}
}

// parseSize reads an icon size.
func parseSize(a string) int {
	size, err := strconv.Atoi(a)
	if err != nil || size < 1 || size > 256 {
		log.Fatalf("bad size %q (1 to 256)", a)
	}
	return size
}

// writeICO writes an ICO file of PNG images, one per size: the 6-byte
// header, a 16-byte directory entry per image, then the images.
func writeICO(path string, in *image.NRGBA, sizes []string) error {
	var imgs [][]byte
	for _, a := range sizes {
		var b bytes.Buffer
		if err := png.Encode(&b, scale(in, parseSize(a))); err != nil {
			return err
		}
		imgs = append(imgs, b.Bytes())
	}
	var out bytes.Buffer
	le := func(v any) { _ = binary.Write(&out, binary.LittleEndian, v) }
	le([3]uint16{0, 1, uint16(len(imgs))}) // reserved, type icon, count
	offset := 6 + 16*len(imgs)
	for i, a := range sizes {
		dim := uint8(parseSize(a) % 256) // 0 stands for 256
		le([4]uint8{dim, dim, 0, 0})     // width, height, no palette, reserved
		le([2]uint16{1, 32})             // planes, bits per pixel
		le([2]uint32{uint32(len(imgs[i])), uint32(offset)})
		offset += len(imgs[i])
	}
	for _, img := range imgs {
		out.Write(img)
	}
	return os.WriteFile(path, out.Bytes(), 0o644)
}

// scale resizes in to size×size. Each output pixel averages the source
// pixels it covers (weighted by coverage, alpha-weighted colour, so
// transparent edges don't darken); for enlarging it takes the nearest.
func scale(in *image.NRGBA, size int) *image.NRGBA {
	w, h := in.Bounds().Dx(), in.Bounds().Dy()
	out := image.NewNRGBA(image.Rect(0, 0, size, size))
	if w == size && h == size {
		copy(out.Pix, in.Pix)
		return out
	}
	sx, sy := float64(w)/float64(size), float64(h)/float64(size)
	for y := 0; y < size; y++ {
		y0, y1 := float64(y)*sy, float64(y+1)*sy
		for x := 0; x < size; x++ {
			x0, x1 := float64(x)*sx, float64(x+1)*sx
			var r, g, bl, al, wsum float64
			for py := int(y0); py < h && float64(py) < y1; py++ {
				wy := overlap(y0, y1, py)
				for px := int(x0); px < w && float64(px) < x1; px++ {
					wt := wy * overlap(x0, x1, px)
					if sx <= 1 && sy <= 1 {
						wt = 1 // enlarging: one source pixel
					}
					c := in.NRGBAAt(px, py)
					a := float64(c.A) * wt
					r += float64(c.R) * a
					g += float64(c.G) * a
					bl += float64(c.B) * a
					al += a
					wsum += wt
					if sx <= 1 && sy <= 1 {
						break
					}
				}
				if sx <= 1 && sy <= 1 {
					break
				}
			}
			if al == 0 || wsum == 0 {
				continue // fully transparent
			}
			out.SetNRGBA(x, y, color.NRGBA{
				R: clamp(r / al), G: clamp(g / al), B: clamp(bl / al), A: clamp(al / wsum),
			})
		}
	}
	return out
}

// overlap is how much of source pixel p (the interval [p, p+1)) lies in [a, b).
func overlap(a, b float64, p int) float64 {
	lo, hi := max(a, float64(p)), min(b, float64(p+1))
	return max(0, hi-lo)
}

func clamp(v float64) uint8 {
	return uint8(min(255, max(0, v+0.5)))
}
