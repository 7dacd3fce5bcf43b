package clientconfig

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Goose's config.yaml is edited as text, as Codex's TOML is: mcptray's
// block under the top-level extensions mapping is replaced in place or
// appended, so every other line and comment stays as it was. The library
// only checks that the file parses, before and after.

// yamlBlock is mcptray's extension for Goose, its lines indented by ind
// and nested by step.
func yamlBlock(c Client, f Form, p Params, ind, step string) (string, error) {
	p, err := entryParams(c, f, p)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	in := ind + step
	fmt.Fprintf(&b, "%s%s:\n", ind, yamlKey(p.name()))
	fmt.Fprintf(&b, "%senabled: true\n", in)
	if f == HTTP {
		auth, err := bearer(c, p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%stype: streamable_http\n%sname: %s\n", in, in, tomlString(p.name()))
		fmt.Fprintf(&b, "%sdescription: %s\n", in, tomlString("Your own tools, resources and prompts, served by mcptray"))
		fmt.Fprintf(&b, "%suri: %s\n", in, tomlString(p.URL))
		fmt.Fprintf(&b, "%sheaders:\n%s%sAuthorization: %s\n", in, in, step, tomlString(auth))
	} else {
		fmt.Fprintf(&b, "%stype: stdio\n%sname: %s\n", in, in, tomlString(p.name()))
		fmt.Fprintf(&b, "%sdescription: %s\n", in, tomlString("Your own tools, resources and prompts, served by mcptray"))
		fmt.Fprintf(&b, "%scmd: %s\n%sargs: []\n", in, tomlString(p.ShimPath), in)
	}
	fmt.Fprintf(&b, "%stimeout: %d\n", in, maxWait)
	return b.String(), nil
}

// yamlKey is k as a YAML mapping key: bare when it is a plain word.
func yamlKey(k string) string {
	if bareKey.MatchString(k) && !strings.ContainsAny(k[:1], "-0123456789") {
		return k
	}
	return tomlString(k) // a JSON string is a YAML double-quoted scalar
}

// yamlLayout finds, in the file's lines (LF, each keeping its "\n"), the
// top-level key rootKey and the block of its child name: root is the key's
// line (-1 when absent), flow says its value is an inline {}, [start, end)
// are the child's lines (start -1 when absent), and ind is the children's
// indentation ("" when it has none yet).
func yamlLayout(lines []string, rootKey, name string) (root int, flow bool, start, end int, ind string, err error) {
	root, start, end = -1, -1, -1
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(rootKey) + `\s*:(.*)$`)
	for i, l := range lines {
		m := re.FindStringSubmatch(strings.TrimRight(l, "\n"))
		if m == nil {
			continue
		}
		value := m[1]
		if c := strings.Index(value, " #"); c >= 0 {
			value = value[:c]
		}
		switch strings.Join(strings.Fields(value), "") {
		case "":
		case "{}":
			flow = true
		default:
			return 0, false, 0, 0, "", fmt.Errorf("%s is written inline in the file, which mcptray does not rewrite; it was left untouched", rootKey)
		}
		root = i
		break
	}
	if root < 0 || flow {
		return root, flow, -1, -1, "", nil
	}
	indentOf := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	content := func(l string) bool {
		t := strings.TrimSpace(l)
		return t != "" && !strings.HasPrefix(t, "#")
	}
	child := -1 // the children's indentation
	for i := root + 1; i < len(lines); i++ {
		l := lines[i]
		if !content(l) {
			continue
		}
		n := indentOf(l)
		if n == 0 {
			if start >= 0 && end < 0 {
				end = i
			}
			break
		}
		if child < 0 {
			child, ind = n, l[:n]
		}
		if n > child {
			continue
		}
		if start >= 0 && end < 0 {
			end = i
		}
		key := strings.TrimSpace(strings.TrimRight(l, "\n"))
		if k, _, ok := strings.Cut(key, ":"); ok && (k == name || k == tomlString(name) || k == "'"+name+"'") {
			if start >= 0 {
				return 0, false, 0, 0, "", fmt.Errorf("the file defines %s twice; it was left untouched", name)
			}
			start = i
		}
	}
	if start >= 0 && end < 0 {
		end = len(lines)
	}
	// Blank and comment lines at the end of the block belong to what follows.
	for start >= 0 && end > start+1 && !content(lines[end-1]) {
		end--
	}
	return root, flow, start, end, ind, nil
}

// yamlEnd is where the block of the top-level key at line root ends: the
// next line of content at column 0, the blank lines and the comments at
// column 0 before it left to it.
func yamlEnd(lines []string, root int) int {
	end := len(lines)
	for i := root + 1; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(lines[i], " ") {
			end = i
			break
		}
	}
	for end > root+1 && (strings.TrimSpace(lines[end-1]) == "" || strings.HasPrefix(lines[end-1], "#")) {
		end--
	}
	return end
}

// yamlValid parses content, whose root must be a mapping (or nothing).
func yamlValid(content []byte) (map[string]any, error) {
	var v map[string]any
	if err := yaml.Unmarshal(content, &v); err != nil {
		return nil, fmt.Errorf("the file is not valid YAML (%v); it was left untouched — fix it or move it away, then try again", err)
	}
	return v, nil
}

// yamlEditable checks a file mcptray is to edit as text: valid YAML whose
// lines end in LF or CRLF. A lone CR is a line break to YAML but not to the
// line editing, which would then put mcptray's lines inside another one.
func yamlEditable(content []byte) error {
	if _, err := yamlValid(content); err != nil {
		return err
	}
	if bytes.Contains(bytes.ReplaceAll(content, []byte("\r\n"), nil), []byte("\r")) {
		return errors.New("the file has lines that end in a lone carriage return (CR), which mcptray does not edit; " +
			"it was left untouched — save it with LF or CRLF line ends, then try again")
	}
	return nil
}

func mergeYAML(c Client, existing []byte, f Form, p Params) ([]byte, error) {
	if err := yamlEditable(existing); err != nil {
		return nil, err
	}
	src, lines := tomlLines(existing)
	root, flow, start, end, ind, err := yamlLayout(lines, c.RootKey, p.name())
	if err != nil {
		return nil, err
	}
	const step = "  "
	if ind == "" {
		ind = step
	}
	block, err := yamlBlock(c, f, p, ind, step)
	if err != nil {
		return nil, err
	}
	var out string
	switch {
	case root < 0:
		out = src
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		out += c.RootKey + ":\n" + block
	case flow:
		out = strings.Join(lines[:root], "") + c.RootKey + ":\n" + block + strings.Join(lines[root+1:], "")
	case start >= 0:
		out = strings.Join(lines[:start], "") + block + strings.Join(lines[end:], "")
	default:
		at := yamlEnd(lines, root)
		head := strings.Join(lines[:at], "")
		if !strings.HasSuffix(head, "\n") {
			head += "\n"
		}
		out = head + block + strings.Join(lines[at:], "")
	}
	ok, err := hasEntry(c, []byte(out), p.name())
	if err != nil || !ok {
		return nil, fmt.Errorf("mcptray cannot edit this file automatically (%v); it was left untouched — add this under %s: by hand:\n%s", err, c.RootKey, block)
	}
	return []byte(out), nil
}

func removeYAML(c Client, existing []byte, name string) ([]byte, bool, error) {
	if err := yamlEditable(existing); err != nil {
		return nil, false, err
	}
	_, lines := tomlLines(existing)
	_, _, start, end, _, err := yamlLayout(lines, c.RootKey, name)
	if err != nil || start < 0 {
		return nil, false, err
	}
	out := strings.Join(lines[:start], "") + strings.Join(lines[end:], "")
	if _, err := yamlValid([]byte(out)); err != nil {
		return nil, false, errors.New("internal error: the file without the entry does not parse; it was left untouched")
	}
	return []byte(out), true, nil
}

// yamlEntries decodes the extensions the file defines.
func yamlEntries(c Client, content []byte) (map[string]map[string]any, error) {
	v, err := yamlValid(content)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]any{}
	exts, _ := v[c.RootKey].(map[string]any)
	for name, e := range exts {
		if m, ok := e.(map[string]any); ok {
			out[name] = m
		}
	}
	return out, nil
}
