//go:build ignore

// pecheck inspects the Windows programs built here, which cannot run here
// (Debian's Wine lacks what Go 1.26 binaries need):
//
//	go run packaging/windows/pecheck.go gui|console FILE [VERSION]
//
// It checks that FILE is an x86-64 PE executable of the given subsystem
// (gui: no console window opens; console: the stdio shim, which AI clients
// talk to over stdin/stdout). With VERSION it also checks the resources:
// an icon, a manifest (when there is a version block from windres) and a
// version block whose ProductVersion is VERSION. It prints what it saw.
package main

import (
	"bytes"
	"debug/pe"
	"encoding/binary"
	"fmt"
	"log"
	"os"
	"unicode/utf16"
)

// Resource types (winuser.h).
const (
	rtIcon      = 3
	rtGroupIcon = 14
	rtVersion   = 16
	rtManifest  = 24
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("pecheck: ")
	if len(os.Args) < 3 || os.Args[1] != "gui" && os.Args[1] != "console" {
		log.Fatal("usage: go run packaging/windows/pecheck.go gui|console FILE [VERSION]")
	}
	path := os.Args[2]
	f, err := pe.Open(path)
	if err != nil {
		log.Fatalf("%s: %v", path, err)
	}
	defer f.Close()
	oh, ok := f.OptionalHeader.(*pe.OptionalHeader64)
	if !ok || f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 {
		log.Fatalf("%s: not an x86-64 (PE32+) executable", path)
	}
	want := map[string]uint16{"gui": pe.IMAGE_SUBSYSTEM_WINDOWS_GUI, "console": pe.IMAGE_SUBSYSTEM_WINDOWS_CUI}[os.Args[1]]
	if oh.Subsystem != want {
		log.Fatalf("%s: subsystem %d, want %d (%s)", path, oh.Subsystem, want, os.Args[1])
	}
	fmt.Printf("%s: PE32+ x86-64, %s subsystem", path, os.Args[1])
	if len(os.Args) < 4 {
		fmt.Println()
		return
	}
	version := os.Args[3]
	rsrc := f.Section(".rsrc")
	if rsrc == nil {
		log.Fatalf("%s: no resources (.rsrc)", path)
	}
	data, err := rsrc.Data()
	if err != nil {
		log.Fatalf("%s: reading .rsrc: %v", path, err)
	}
	types := resourceTypes(data)
	for _, t := range []struct {
		id   uint32
		name string
	}{{rtIcon, "icon"}, {rtGroupIcon, "icon group"}, {rtVersion, "version"}} {
		if !types[t.id] {
			log.Fatalf("%s: no %s resource", path, t.name)
		}
	}
	if !bytes.Contains(data, utf16z("ProductVersion", version)) {
		log.Fatalf("%s: the version resource does not say ProductVersion %s", path, version)
	}
	manifest := ""
	if types[rtManifest] {
		manifest = ", manifest"
	}
	fmt.Printf(", resources: icon, version %s%s\n", version, manifest)
}

// resourceTypes lists the type IDs of the resource directory's root.
func resourceTypes(data []byte) map[uint32]bool {
	out := map[uint32]bool{}
	if len(data) < 16 {
		return out
	}
	named := binary.LittleEndian.Uint16(data[12:])
	ids := binary.LittleEndian.Uint16(data[14:])
	for i := range int(named) + int(ids) {
		at := 16 + 8*i
		if at+8 > len(data) {
			break
		}
		if id := binary.LittleEndian.Uint32(data[at:]); id&0x80000000 == 0 {
			out[id] = true
		}
	}
	return out
}

// utf16z is key and value as a version block stores them: UTF-16LE, each
// ended by a NUL and the value aligned on 32 bits.
func utf16z(key, value string) []byte {
	enc := func(s string) []byte {
		var b bytes.Buffer
		for _, u := range utf16.Encode([]rune(s)) {
			_ = binary.Write(&b, binary.LittleEndian, u)
		}
		b.Write([]byte{0, 0})
		return b.Bytes()
	}
	k, v := enc(key), enc(value)
	// The value starts on the next 32-bit boundary after the key, which
	// itself follows a 6-byte header: match the key, any padding, the value.
	pad := (4 - (6+len(k))%4) % 4
	return append(append(k, make([]byte, pad)...), v...)
}
