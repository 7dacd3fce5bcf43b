package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
)

// headKeep is how much of an over-long line is kept to find its id in.
const headKeep = 64 << 10

// readLine reads one line of stdin, newline included. A line longer than
// limit is read to its end in the reader's buffer-sized pieces and dropped:
// long is true and line holds only its first headKeep bytes.
func readLine(r *bufio.Reader, limit int) (line []byte, long bool, err error) {
	for {
		frag, err := r.ReadSlice('\n')
		switch {
		case long:
		case len(line)+len(frag) > limit:
			long = true
			// A copy, so the large buffer can go.
			line = bytes.Clone(line[:min(len(line), headKeep)])
		default:
			line = append(line, frag...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, long, err
		}
	}
}

// idIn finds the id of the JSON-RPC message that head starts (its first
// bytes only, maybe cut anywhere): the value of a top-level "id" key that
// comes whole before the cut, else null.
func idIn(head []byte) json.RawMessage {
	head = bytes.TrimPrefix(bytes.TrimSpace(head), bom)
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return json.RawMessage("null")
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		if key == "id" {
			var id any
			if json.Unmarshal(v, &id) == nil {
				switch id.(type) {
				case string, float64:
					return v
				}
			}
			break
		}
	}
	return json.RawMessage("null")
}
