package clientconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// A small lossless JSONC editor: it parses a document (JSON with // and /* */
// comments and trailing commas) into a tree of byte spans and edits the text
// in place, so comments, formatting, key order and unknown keys survive.

type nodeKind int

const (
	kindOther nodeKind = iota
	kindObject
	kindArray
)

type node struct {
	kind       nodeKind
	start, end int // the value's span
	members    []member
	elems      []*node
}

type member struct {
	key      string
	keyStart int
	val      *node
}

type parser struct {
	src []byte
	pos int
}

// SyntaxError says where a config file is malformed.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

func (p *parser) fail(msg string) error {
	line, col := 1, 1
	for _, c := range p.src[:min(p.pos, len(p.src))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &SyntaxError{Line: line, Col: col, Msg: msg}
}

// parseJSONC parses a whole document; the root must be an object.
func parseJSONC(src []byte) (*node, error) {
	p := &parser{src: src}
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		p.pos = 3
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos >= len(src) || src[p.pos] != '{' {
		return nil, p.fail("the file must hold a JSON object")
	}
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	if err := p.skip(); err != nil {
		return nil, err
	}
	if p.pos != len(src) {
		return nil, p.fail("unexpected text after the top-level object")
	}
	return n, nil
}

// skip passes whitespace and comments.
func (p *parser) skip() error {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '*':
			end := bytes.Index(p.src[p.pos+2:], []byte("*/"))
			if end < 0 {
				return p.fail("unterminated /* comment")
			}
			p.pos += end + 4
		default:
			return nil
		}
	}
	return nil
}

func (p *parser) value() (*node, error) {
	if p.pos >= len(p.src) {
		return nil, p.fail("unexpected end of file")
	}
	start := p.pos
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		if _, err := p.str(); err != nil {
			return nil, err
		}
	default:
		for p.pos < len(p.src) && !strings.ContainsRune(" \t\r\n,]}/", rune(p.src[p.pos])) {
			p.pos++
		}
		var v any
		if p.pos == start || json.Unmarshal(p.src[start:p.pos], &v) != nil {
			p.pos = start
			return nil, p.fail("invalid value")
		}
	}
	return &node{kind: kindOther, start: start, end: p.pos}, nil
}

func (p *parser) str() (string, error) {
	start := p.pos
	p.pos++
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '\\':
			p.pos += 2
			continue
		case '\n':
			return "", p.fail("newline in a string")
		case '"':
			p.pos++
			var s string
			if err := json.Unmarshal(p.src[start:p.pos], &s); err != nil {
				p.pos = start
				return "", p.fail("invalid string")
			}
			return s, nil
		}
		p.pos++
	}
	return "", p.fail("unterminated string")
}

func (p *parser) object() (*node, error) {
	n := &node{kind: kindObject, start: p.pos}
	p.pos++
	for {
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) {
			return nil, p.fail("unterminated object")
		}
		if p.src[p.pos] == '}' {
			p.pos++
			n.end = p.pos
			return n, nil
		}
		if p.src[p.pos] != '"' {
			return nil, p.fail("expected a quoted key or }")
		}
		ks := p.pos
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.fail("expected :")
		}
		p.pos++
		if err := p.skip(); err != nil {
			return nil, err
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, member{key: key, keyStart: ks, val: v})
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.src) && p.src[p.pos] == '}' {
			continue
		}
		return nil, p.fail("expected , or }")
	}
}

func (p *parser) array() (*node, error) {
	n := &node{kind: kindArray, start: p.pos}
	p.pos++
	for {
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) {
			return nil, p.fail("unterminated array")
		}
		if p.src[p.pos] == ']' {
			p.pos++
			n.end = p.pos
			return n, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		if err := p.skip(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.src) && p.src[p.pos] == ']' {
			continue
		}
		return nil, p.fail("expected , or ]")
	}
}

func (n *node) get(key string) *member {
	for i := len(n.members) - 1; i >= 0; i-- { // the last one wins, as in JSON.parse
		if n.members[i].key == key {
			return &n.members[i]
		}
	}
	return nil
}

// doc is a JSONC document being edited.
type doc struct {
	src  []byte
	unit string // one indentation step
}

func newDoc(src []byte) (*doc, *node, error) {
	root, err := parseJSONC(src)
	if err != nil {
		return nil, nil, err
	}
	d := &doc{src: src, unit: "  "}
	if len(root.members) > 0 {
		// One step is what the first member adds to its object's line:
		// a file whose root is itself indented does not make it wider.
		ind, outer := d.indentAt(root.members[0].keyStart), d.lineIndent(root.start)
		if len(ind) > len(outer) && strings.HasPrefix(ind, outer) {
			d.unit = ind[len(outer):]
		}
	}
	return d, root, nil
}

// indentAt is the leading whitespace of the line holding pos, when only
// whitespace precedes pos on it.
func (d *doc) indentAt(pos int) string {
	ls := bytes.LastIndexByte(d.src[:pos], '\n') + 1
	ind := d.src[ls:pos]
	if len(bytes.TrimLeft(ind, " \t")) != 0 {
		return ""
	}
	return string(ind)
}

// lineIndent is the leading whitespace of the line holding pos.
func (d *doc) lineIndent(pos int) string {
	ls := bytes.LastIndexByte(d.src[:pos], '\n') + 1
	i := ls
	for i < len(d.src) && (d.src[i] == ' ' || d.src[i] == '\t') {
		i++
	}
	return string(d.src[ls:i])
}

func (d *doc) splice(start, end int, text string) {
	out := make([]byte, 0, len(d.src)+len(text))
	out = append(out, d.src[:start]...)
	out = append(out, text...)
	out = append(out, d.src[end:]...)
	d.src = out
}

// render formats v as JSON indented for a value at indent.
func (d *doc) render(v any, indent string) (string, error) {
	b, err := marshal(v)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, indent, d.unit); err != nil {
		return "", err
	}
	return out.String(), nil
}

// setMember sets obj[key] = v: the value is replaced in place when the key
// exists, else a member is added after the last one.
func (d *doc) setMember(obj *node, key string, v any) error {
	if m := obj.get(key); m != nil {
		text, err := d.render(v, d.lineIndent(m.keyStart))
		if err != nil {
			return err
		}
		d.splice(m.val.start, m.val.end, text)
		return nil
	}
	k, _ := marshal(key)
	if len(obj.members) == 0 {
		outer := d.lineIndent(obj.start)
		inner := outer + d.unit
		text, err := d.render(v, inner)
		if err != nil {
			return err
		}
		// Keep whatever sits between the braces (comments) before the new member.
		body := strings.TrimRight(string(d.src[obj.start+1:obj.end-1]), " \t\r\n")
		d.splice(obj.start+1, obj.end-1, body+"\n"+inner+string(k)+": "+text+"\n"+outer)
		return nil
	}
	last := obj.members[len(obj.members)-1]
	ind := d.indentAt(last.keyStart)
	if ind == "" {
		ind = d.lineIndent(obj.start) + d.unit
	}
	text, err := d.render(v, ind)
	if err != nil {
		return err
	}
	d.splice(last.val.end, last.val.end, ",\n"+ind+string(k)+": "+text)
	return nil
}

// appendElem adds v at the end of arr.
func (d *doc) appendElem(arr *node, v any) error {
	if len(arr.elems) == 0 {
		outer := d.lineIndent(arr.start)
		inner := outer + d.unit
		text, err := d.render(v, inner)
		if err != nil {
			return err
		}
		body := strings.TrimRight(string(d.src[arr.start+1:arr.end-1]), " \t\r\n")
		d.splice(arr.start+1, arr.end-1, body+"\n"+inner+text+"\n"+outer)
		return nil
	}
	last := arr.elems[len(arr.elems)-1]
	ind := d.indentAt(last.start)
	sep := ",\n" + ind
	if ind == "" {
		sep = ", "
	}
	text, err := d.render(v, ind)
	if err != nil {
		return err
	}
	d.splice(last.end, last.end, sep+text)
	return nil
}

// holds says whether node n's value is v, compared as JSON values.
func (d *doc) holds(n *node, v any) (bool, error) {
	var have, want any
	if err := d.decode(n, &have); err != nil {
		return false, err
	}
	b, err := marshal(v)
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, &want); err != nil {
		return false, err
	}
	return reflect.DeepEqual(have, want), nil
}

// decode reads a node's value as plain JSON.
func (d *doc) decode(n *node, v any) error {
	return json.Unmarshal(stripJSONC(d.src[n.start:n.end]), v)
}

// stripJSONC turns JSONC into JSON: comments become spaces and trailing
// commas are dropped (strings are left alone).
func stripJSONC(src []byte) []byte {
	out := make([]byte, 0, len(src))
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			end := min(j+1, len(src))
			out = append(out, src[i:end]...)
			i = end - 1
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			i--
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := bytes.Index(src[i+2:], []byte("*/"))
			if end < 0 {
				return out
			}
			i += end + 3
			out = append(out, ' ')
		case c == ',':
			j := i + 1
			for j < len(src) {
				if src[j] == ' ' || src[j] == '\t' || src[j] == '\n' || src[j] == '\r' {
					j++
					continue
				}
				if src[j] == '/' && j+1 < len(src) && src[j+1] == '/' {
					for j < len(src) && src[j] != '\n' {
						j++
					}
					continue
				}
				if src[j] == '/' && j+1 < len(src) && src[j+1] == '*' {
					end := bytes.Index(src[j+2:], []byte("*/"))
					if end < 0 {
						break
					}
					j += end + 4
					continue
				}
				break
			}
			if j < len(src) && (src[j] == '}' || src[j] == ']') {
				continue // trailing comma
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

// deleteMember takes obj[key] out, with its comma and, when it stands on
// lines of its own, those lines.
func (d *doc) deleteMember(obj *node, key string) {
	for i := len(obj.members) - 1; i >= 0; i-- {
		if obj.members[i].key == key {
			items := make([]span, len(obj.members))
			for j, m := range obj.members {
				items[j] = span{m.keyStart, m.val.end}
			}
			d.deleteItem(obj, items, i)
			return
		}
	}
}

// deleteElem takes the element el out of arr, as deleteMember does.
func (d *doc) deleteElem(arr *node, el *node) {
	items := make([]span, len(arr.elems))
	at := -1
	for j, e := range arr.elems {
		items[j] = span{e.start, e.end}
		if e == el {
			at = j
		}
	}
	if at >= 0 {
		d.deleteItem(arr, items, at)
	}
}

// span is a member's or an element's text, from its key (or value) to the
// end of its value.
type span struct{ start, end int }

// deleteItem removes items[i] of the object or array c.
func (d *doc) deleteItem(c *node, items []span, i int) {
	s, e := items[i].start, items[i].end
	if j := d.skipBlank(e); j < len(d.src) && d.src[j] == ',' {
		// A comma follows: the item goes with it, and with its lines
		// when nothing else stands on them.
		start, end := s, j+1
		rest := end
		for rest < len(d.src) && (d.src[rest] == ' ' || d.src[rest] == '\t' || d.src[rest] == '\r') {
			rest++
		}
		if ls := bytes.LastIndexByte(d.src[:s], '\n') + 1; len(bytes.TrimLeft(d.src[ls:s], " \t")) != 0 {
			end = rest // in a line: the spaces after the comma go too
		} else if start = ls; rest < len(d.src) && d.src[rest] == '\n' {
			end = rest + 1
		}
		d.splice(start, end, "")
		return
	}
	if i == 0 {
		// The only item: what is left between the brackets is kept unless
		// it is blank.
		d.splice(s, e, "")
		if inner := d.src[c.start+1 : c.end-(e-s)-1]; len(bytes.TrimSpace(inner)) == 0 {
			d.splice(c.start+1, c.end-(e-s)-1, "")
		}
		return
	}
	// The last item: the comma after the one before goes with it.
	d.splice(d.skipBlank(items[i-1].end), e, "")
}

// skipBlank passes whitespace and comments from pos.
func (d *doc) skipBlank(pos int) int {
	p := &parser{src: d.src, pos: pos}
	if p.skip() != nil {
		return len(d.src)
	}
	return p.pos
}
