//go:build ignore

// fat joins macOS programs of different architectures into one universal
// (fat) Mach-O file, what lipo -create does, which Debian does not ship:
//
//	go run packaging/mcpb/fat.go OUT IN...
//
// The Claude Desktop extension holds one shim for every Mac, Apple silicon
// or Intel. Each slice is aligned to 16 KiB (arm64's page size).
package main

import (
	"bytes"
	"debug/macho"
	"encoding/binary"
	"log"
	"os"
)

const align = 14 // log2 of 16 KiB

func main() {
	log.SetFlags(0)
	log.SetPrefix("fat: ")
	if len(os.Args) < 4 {
		log.Fatal("usage: go run packaging/mcpb/fat.go OUT IN...")
	}
	ins := os.Args[2:]
	type slice struct {
		cpu, sub uint32
		data     []byte
	}
	var slices []slice
	for _, in := range ins {
		data, err := os.ReadFile(in)
		if err != nil {
			log.Fatal(err)
		}
		f, err := macho.NewFile(bytes.NewReader(data))
		if err != nil {
			log.Fatalf("%s: not a Mach-O program: %v", in, err)
		}
		slices = append(slices, slice{uint32(f.Cpu), f.SubCpu, data})
	}
	var out bytes.Buffer
	put := func(vs ...uint32) {
		for _, v := range vs {
			_ = binary.Write(&out, binary.BigEndian, v)
		}
	}
	put(macho.MagicFat, uint32(len(slices)))
	off := uint32(1 << align)
	for _, s := range slices {
		put(s.cpu, s.sub, off, uint32(len(s.data)), align)
		off += uint32(len(s.data))
		off = (off + 1<<align - 1) &^ (1<<align - 1)
	}
	for _, s := range slices {
		out.Write(make([]byte, (1<<align-out.Len()%(1<<align))%(1<<align)))
		out.Write(s.data)
	}
	if err := os.WriteFile(os.Args[1], out.Bytes(), 0o755); err != nil {
		log.Fatal(err)
	}
	if _, err := macho.OpenFat(os.Args[1]); err != nil {
		log.Fatalf("%s: the result does not read back: %v", os.Args[1], err)
	}
}
