package trayicon

import (
	"bytes"
	"encoding/binary"
	"image/png"
)

// icoOf wraps a PNG image in an .ico file of one image, the PNG stored
// whole (Windows Vista and later read PNG entries): the format Windows'
// LoadImage reads, which a bare PNG is not. A PNG whose header cannot be
// read is wrapped all the same, its size written as 0 (256 pixels).
func icoOf(img []byte) []byte {
	var w, h int
	if cfg, err := png.DecodeConfig(bytes.NewReader(img)); err == nil {
		w, h = cfg.Width, cfg.Height
	}
	// A size byte of 0 means 256 (or more) pixels.
	side := func(n int) byte {
		if n <= 0 || n >= 256 {
			return 0
		}
		return byte(n)
	}
	const header, entry = 6, 16
	out := make([]byte, header+entry, header+entry+len(img))
	binary.LittleEndian.PutUint16(out[2:], 1) // an icon
	binary.LittleEndian.PutUint16(out[4:], 1) // one image
	out[6], out[7] = side(w), side(h)
	binary.LittleEndian.PutUint16(out[10:], 1)  // colour planes
	binary.LittleEndian.PutUint16(out[12:], 32) // bits per pixel
	binary.LittleEndian.PutUint32(out[14:], uint32(len(img)))
	binary.LittleEndian.PutUint32(out[18:], header+entry)
	return append(out, img...)
}
