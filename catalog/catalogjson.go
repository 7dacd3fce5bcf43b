package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// utf8BOM is the byte order mark some editors (Notepad) put first.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// ParseCatalog decodes a catalog document strictly — an unknown field is an
// error, so a typo never silently drops part of a definition; so are a
// key given twice in one object (JSON would keep the last silently) and
// bytes that are not UTF-8 (JSON would replace them silently) — and
// validates it. A leading UTF-8 byte order mark is skipped. A
// *ValidationError lists every problem.
func Decode(data []byte) (*Catalog, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("reading catalog JSON: %s", invalidUTF8(data))
	}
	if err := checkDuplicateKeys(data); err != nil {
		return nil, fmt.Errorf("reading catalog JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Catalog
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("reading catalog JSON: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("reading catalog JSON: unexpected data after the catalog object")
	}
	if c.Format != CatalogFormat {
		return nil, fmt.Errorf("reading catalog JSON: \"format\" must be %q (got %q)", CatalogFormat, c.Format)
	}
	if c.Version < 1 {
		return nil, fmt.Errorf("reading catalog JSON: \"version\" must be %d", CatalogVersion)
	}
	return &c, nil
}

// MarshalCatalog encodes a catalog in its documented form, indented for
// people and version control.
func Marshal(c *Catalog) ([]byte, error) {
	out := *c
	out.Format, out.Version = CatalogFormat, CatalogVersion
	b, err := json.MarshalIndent(&out, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding catalog: %w", err)
	}
	return append(b, '\n'), nil
}

// invalidUTF8 says where data (which is not valid UTF-8) first goes wrong.
func invalidUTF8(data []byte) string {
	off := 0
	for off < len(data) {
		r, size := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		off += size
	}
	line, col := position(data, off)
	return fmt.Sprintf("the file is not valid UTF-8: byte 0x%02X at offset %d (line %d, column %d); save it as UTF-8", data[off], off, line, col)
}

// position is the 1-based line and column (in bytes) of offset off in data.
func position(data []byte, off int) (line, col int) {
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	return line, off - bytes.LastIndexByte(before, '\n')
}

// checkDuplicateKeys refuses an object holding the same key twice, naming
// the key, where it is (its JSON path) and its line and column. Malformed
// JSON is left for the decoder to report.
func checkDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	// One frame per open object or array: the keys seen (objects) and the
	// path segment of the element being read.
	type frame struct {
		keys   map[string]bool
		object bool
		key    string // objects: the current key; arrays: its index
		index  int
		want   bool // objects: the next string token is a key
	}
	var stack []*frame
	path := func() string {
		var b strings.Builder
		b.WriteString("$")
		for _, f := range stack {
			if f.object {
				b.WriteString("." + f.key)
			} else {
				b.WriteString("[" + strconv.Itoa(f.index) + "]")
			}
		}
		return b.String()
	}
	// value notes that a whole value was read in the innermost frame.
	value := func() {
		if len(stack) == 0 {
			return
		}
		top := stack[len(stack)-1]
		if top.object {
			top.want = true
		} else {
			top.index++
		}
	}
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return nil // the decoder says what is wrong, and where
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				stack = append(stack, &frame{keys: map[string]bool{}, object: t == '{', want: t == '{'})
			default:
				stack = stack[:len(stack)-1]
				value()
			}
			continue
		case string:
			if top := len(stack) - 1; top >= 0 && stack[top].object && stack[top].want {
				f := stack[top]
				if f.keys[t] {
					// The key token starts after the separator before it.
					off := int(before) + bytes.IndexByte(data[before:], '"')
					line, col := position(data, off)
					f.key = t
					return fmt.Errorf("duplicate key %q at %s (line %d, column %d): each key may appear once in an object", t, path(), line, col)
				}
				f.keys[t], f.key, f.want = true, t, false
				continue
			}
		}
		value()
	}
}
