// Copyright 2025 The Go MCP SDK Authors. All rights reserved.
// Use of this source code is governed by the license
// that can be found in the LICENSE file.

// Package json provides internal JSON utilities.

package json

import (
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/segmentio/encoding/json"
)

// defaultMaxDepth is the maximum JSON nesting depth accepted by [Unmarshal].
// Realistic MCP payloads nest only a handful of levels, so 1000 is far more
// than any legitimate message requires while keeping worst-case parse cost
// bounded.
const defaultMaxDepth = 1000

// errMaxDepthExceeded is returned by [Unmarshal] when the input nests deeper than [defaultMaxDepth].
var errMaxDepthExceeded = fmt.Errorf("json: exceeded maximum nesting depth of %d", defaultMaxDepth)

type Decoder struct {
	dec *json.Decoder
}

func NewDecoder(r io.Reader) *Decoder {
	dec := json.NewDecoder(r)
	dec.DontMatchCaseInsensitiveStructFields()
	return &Decoder{dec: dec}
}

func (d *Decoder) Decode(v any) error {
	return d.dec.Decode(v)
}

func Unmarshal(data []byte, v any) error {
	if err := checkMaxDepth(data, defaultMaxDepth); err != nil {
		return err
	}
	// Parse the bytes in place, with the flags NewDecoder sets: a Decoder
	// would first copy data into a new buffer of at least 32 KiB, which,
	// for the many small messages of a request, is most of what it
	// allocates. As with the Decoder, bytes after the first value are
	// ignored.
	_, err := json.Parse(data, v, json.DontMatchCaseInsensitiveStructFields)
	return err
}

// checkMaxDepth scans data once and reports [errMaxDepthExceeded] if the
// nesting of JSON objects and arrays exceeds maxDepth. It is a lightweight pass which
// tracks '{' and '[' against '}' and ']' while skipping over the contents of strings.
func checkMaxDepth(data []byte, maxDepth int) error {
	var (
		depth    int
		inString bool
		escaped  bool
	)
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}

		switch b {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > maxDepth {
				return errMaxDepthExceeded
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

// StringLen is the length of s encoded as a JSON string by encoding/json's
// Marshal (HTML characters escaped), quotes included: what [AppendString]
// appends.
func StringLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		if htmlSafe(s[i]) {
			n++
			i++
			continue
		}
		_, en, size := escapeAt(s, i)
		if en == 0 {
			en = size
		}
		n += en
		i += size
	}
	return n
}

// AppendString appends s encoded as a JSON string, byte for byte as
// encoding/json's Marshal writes it (HTML characters escaped). With dst
// sized by [StringLen], a large text is encoded without the growing
// buffer and the copy out of it that Marshal makes.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if htmlSafe(s[i]) {
			i++
			continue
		}
		esc, en, size := escapeAt(s, i)
		if en > 0 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, esc[:en]...)
			start = i + size
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// htmlSafe reports whether encoding/json writes the byte b as it is.
func htmlSafe(b byte) bool {
	return b >= 0x20 && b < utf8.RuneSelf && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
}

// escapeAt says how encoding/json writes the character at s[i], which
// takes size bytes of s: as it is when en is 0, else as esc[:en].
func escapeAt(s string, i int) (esc [6]byte, en, size int) {
	const hex = "0123456789abcdef"
	if b := s[i]; b < utf8.RuneSelf {
		switch b {
		case '\\', '"':
			return [6]byte{'\\', b}, 2, 1
		case '\b':
			return [6]byte{'\\', 'b'}, 2, 1
		case '\f':
			return [6]byte{'\\', 'f'}, 2, 1
		case '\n':
			return [6]byte{'\\', 'n'}, 2, 1
		case '\r':
			return [6]byte{'\\', 'r'}, 2, 1
		case '\t':
			return [6]byte{'\\', 't'}, 2, 1
		}
		if htmlSafe(b) {
			return esc, 0, 1
		}
		// Other control bytes, and <, > and &.
		return [6]byte{'\\', 'u', '0', '0', hex[b>>4], hex[b&0xF]}, 6, 1
	}
	c, size := utf8.DecodeRuneInString(s[i:])
	switch {
	case c == utf8.RuneError && size == 1:
		return [6]byte{'\\', 'u', 'f', 'f', 'f', 'd'}, 6, 1
	case c == '\u2028' || c == '\u2029':
		// Valid in JSON, but not in JavaScript: escaped always.
		return [6]byte{'\\', 'u', '2', '0', '2', hex[c&0xF]}, 6, size
	}
	return esc, 0, size
}
