package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// JsonArea is a multi-line monospace entry for JSON text.
func JsonArea(placeholder string, rows int) *widget.Entry {
	e := widget.NewMultiLineEntry()
	e.SetPlaceHolder(placeholder)
	e.TextStyle = fyne.TextStyle{Monospace: true}
	e.Wrapping = fyne.TextWrapOff
	e.SetMinRowsVisible(rows)
	return e
}

// JsonSyntax checks that s holds exactly one JSON value and says where it
// does not, as "line L, column C: …", counted as a person counts in the
// text area.
func JsonSyntax(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("empty: write a JSON value")
	}
	dec := json.NewDecoder(strings.NewReader(s))
	var v any
	err := dec.Decode(&v)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("%s: %s", position(s, se.Offset), se.Error())
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: the JSON ends too early (a missing } or ] or \"?)", position(s, int64(len(s))+1))
	case err != nil:
		return fmt.Errorf("not JSON: %w", err)
	}
	end := dec.InputOffset()
	if rest := bytes.TrimSpace([]byte(s[end:])); len(rest) > 0 {
		return fmt.Errorf("%s: unexpected text after the JSON value", position(s, end+int64(strings.Index(s[end:], string(rest[:1])))+1))
	}
	return nil
}

// position turns a byte offset (1-based, as encoding/json reports it: the
// offending byte is the one before it; len(s)+1 is the end of the text)
// into "line L, column C".
func position(s string, offset int64) string {
	offset = min(max(offset, 1), int64(len(s))+1)
	before := s[:offset-1]
	line := strings.Count(before, "\n") + 1
	col := utf8.RuneCountInString(before[strings.LastIndex(before, "\n")+1:]) + 1
	return fmt.Sprintf("line %d, column %d", line, col)
}
