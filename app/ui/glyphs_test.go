package ui

import (
	"encoding/json"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2/theme"
	"golang.org/x/image/font/sfnt"
)

// TestEverySymbolTheAppDrawsHasAGlyph: each character beyond ASCII in the
// app's strings (every package under app/) and in the examples it shows
// is in a font Fyne bundles (Noto Sans, its symbols font Inter Symbols).
// Other fonts are the system's: Windows' may lack what Linux's have, and
// a character without a glyph is drawn as a box ("Server �Connect a
// client" under Wine).
func TestEverySymbolTheAppDrawsHasAGlyph(t *testing.T) {
	var fonts []*sfnt.Font
	for _, res := range []interface{ Content() []byte }{theme.DefaultTextFont(), theme.DefaultSymbolFont()} {
		f, err := sfnt.Parse(res.Content())
		if err != nil {
			t.Fatal(err)
		}
		fonts = append(fonts, f)
	}
	var buf sfnt.Buffer
	has := func(r rune) bool {
		for _, f := range fonts {
			if i, err := f.GlyphIndex(&buf, r); err == nil && i != 0 {
				return true
			}
		}
		return false
	}
	check := func(where, s string) {
		for _, r := range s {
			if r > 0x7f && r != '\u00a0' && !has(r) {
				t.Errorf("%s: %q (U+%04X) has no glyph in Fyne's fonts: use words, or a character that has one: %q", where, r, r, s)
			}
		}
	}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		var sc scanner.Scanner
		sc.Init(fset.AddFile(path, -1, len(src)), src, nil, 0) // comments skipped
		for {
			pos, tok, lit := sc.Scan()
			if tok == token.EOF {
				return nil
			}
			if tok == token.STRING || tok == token.CHAR {
				if s, err := strconv.Unquote(lit); err == nil {
					check(fset.Position(pos).String(), s)
				}
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"starter.json", "gallery.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", f))
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		var walk func(any)
		walk = func(v any) {
			switch v := v.(type) {
			case string:
				check("examples/"+f, v)
			case []any:
				for _, e := range v {
					walk(e)
				}
			case map[string]any:
				for _, e := range v {
					walk(e)
				}
			}
		}
		walk(v)
	}
}
