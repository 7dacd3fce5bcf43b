package trayicon

import (
	"bytes"
	"encoding/binary"
	"image/png"
	"testing"

	"github.com/mcptray/mcptray/assets"
)

// TestIcoOfWrapsThePNGAsWindowsReadsIt: the tray icon as an .ico file of
// one PNG entry, the header saying where it is and how big. Windows'
// LoadImage, which systray's tray calls, reads .ico files and no bare PNG.
func TestIcoOfWrapsThePNGAsWindowsReadsIt(t *testing.T) {
	img := assets.Tray(assets.TrayServing, false).PNG
	ico := icoOf(img)
	u16 := func(at int) int { return int(binary.LittleEndian.Uint16(ico[at:])) }
	u32 := func(at int) int { return int(binary.LittleEndian.Uint32(ico[at:])) }
	if u16(0) != 0 || u16(2) != 1 || u16(4) != 1 {
		t.Fatalf("header %v: want reserved 0, type 1 (icon), 1 image", ico[:6])
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	if int(ico[6]) != cfg.Width%256 || int(ico[7]) != cfg.Height%256 || u16(12) != 32 {
		t.Errorf("entry says %dx%d at %d bits, the PNG is %dx%d", ico[6], ico[7], u16(12), cfg.Width, cfg.Height)
	}
	size, at := u32(14), u32(18)
	if at != 22 || size != len(img) || !bytes.Equal(ico[at:at+size], img) {
		t.Fatalf("the entry (%d bytes at %d) is not the PNG (%d bytes)", size, at, len(img))
	}
}
