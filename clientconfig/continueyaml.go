package clientconfig

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Continue's config.yaml is the one file both of Continue's apps read
// servers from: its CLI (cn) reads nothing else, and its IDE extension
// reads it for the local configuration. Servers are a list under
// mcpServers, each item named by its name key. Like Goose's file it is
// edited as text: mcptray's item is replaced in place or appended after
// the last one, so every other line and comment stays as it was; the
// library only parses the file, to find where the items are (yaml.v3
// keeps each node's line) and to check the result.

// continueNoFile is why Continue's config.yaml is merged into but never
// created: when it exists, Continue's apps use it instead of the
// configuration they would use otherwise.
const continueNoFile = "mcptray adds to it but never creates it: with a config.yaml, Continue's CLI (cn) would stop using your Continue account's configuration, " +
	"models included, and the IDE extension would stop reading a config.json. cn writes the file when you give it a model at its first start: install again then " +
	"(the IDE extension reads mcptray's own file in mcpServers meanwhile)"

// ForFile is client c as it edits the config file at path. Every client
// keeps one syntax in its files, except Continue: mcptray's own JSON file
// in its mcpServers folder (read by the IDE extension), and its
// config.yaml (read by the CLI and the IDE extension), where servers are a
// YAML list and which mcptray never creates (ExistingOnly).
func ForFile(c Client, path string) Client {
	if c.ID == "continue" && isYAML(path) {
		c.Format, c.OwnFile, c.ExistingOnly = ContinueYAML, false, continueNoFile
	}
	return c
}

// continueItem is mcptray's server as an item of Continue's mcpServers
// list, its dash indented by ind.
func continueItem(c Client, f Form, p Params, ind string) (string, error) {
	p, err := entryParams(c, f, p)
	if err != nil {
		return "", err
	}
	in := ind + "  "
	var b strings.Builder
	fmt.Fprintf(&b, "%s- name: %s\n", ind, yamlScalar(p.name()))
	if f == HTTP {
		auth, err := bearer(c, p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%stype: streamable-http\n%surl: %s\n", in, in, tomlString(p.URL))
		fmt.Fprintf(&b, "%srequestOptions:\n%s  headers:\n%s    Authorization: %s\n", in, in, in, tomlString(auth))
	} else {
		fmt.Fprintf(&b, "%scommand: %s\n%sargs: []\n", in, tomlString(p.ShimPath), in)
	}
	return b.String(), nil
}

// plainScalar is a string YAML reads as that string without quotes,
// unless it is one of the words YAML reads as a boolean or nothing.
var plainScalar = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// yamlScalar is s as a YAML string: bare when that reads back as s.
func yamlScalar(s string) string {
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "y", "n", "null":
		return tomlString(s)
	}
	if plainScalar.MatchString(s) {
		return s
	}
	return tomlString(s) // a JSON string is a YAML double-quoted scalar
}

// continueLayout is where Continue's server list sits in a file's lines.
type continueLayout struct {
	root int // the line of the top-level key, -1 when absent
	// keep says the key's line stays as it is and items go after it
	// (mcpServers: with nothing after it); otherwise an existing key's
	// line is rewritten (mcpServers: [] or null).
	keep  bool
	items [][2]int // each item's lines, [start, end)
	names []string // each item's name
	dash  string   // the items' indentation ("" when there are none)
}

// find is the index of the item named name, or -1.
func (l continueLayout) find(name string) int {
	for i, n := range l.names {
		if n == name {
			return i
		}
	}
	return -1
}

// layoutContinue finds rootKey's list in content, whose lines are lines.
func layoutContinue(content []byte, lines []string, rootKey string) (continueLayout, error) {
	l := continueLayout{root: -1}
	var doc yaml.Node
	if err := yaml.Unmarshal(content, &doc); err != nil {
		return l, fmt.Errorf("the file is not valid YAML (%v); it was left untouched — fix it or move it away, then try again", err)
	}
	if len(doc.Content) == 0 {
		return l, nil
	}
	top := doc.Content[0] // a mapping: yamlEditable checked it
	for i := 0; i+1 < len(top.Content); i += 2 {
		key, val := top.Content[i], top.Content[i+1]
		if key.Value != rootKey {
			continue
		}
		if key.Column != 1 {
			return l, fmt.Errorf("%s is not at the start of its line; the file was left untouched", rootKey)
		}
		l.root = key.Line - 1
		switch {
		case val.Kind == yaml.ScalarNode && val.Tag == "!!null":
			after := strings.TrimSpace(strings.TrimRight(lines[l.root], "\n")[len(rootKey):])
			l.keep = after == ":" || strings.HasPrefix(after, ":") && strings.HasPrefix(strings.TrimSpace(after[1:]), "#")
			return l, nil
		case val.Kind != yaml.SequenceNode:
			return l, fmt.Errorf("%s in the file is not a list; it was left untouched", rootKey)
		case val.Style&yaml.FlowStyle != 0:
			if len(val.Content) > 0 || val.Line != key.Line {
				return l, fmt.Errorf("%s is written inline in the file ([…]), which mcptray does not rewrite; it was left untouched", rootKey)
			}
			return l, nil
		}
		return l, l.findItems(lines, val)
	}
	return l, nil
}

// findItems finds the lines of each item of the block list seq: an item
// starts at the line of its dash and ends where the next one starts; the
// last ends before the next line of content no deeper than the dashes,
// the blank and comment lines before that left to what follows.
func (l *continueLayout) findItems(lines []string, seq *yaml.Node) error {
	indentOf := func(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
	content := func(s string) bool {
		t := strings.TrimSpace(s)
		return t != "" && !strings.HasPrefix(t, "#")
	}
	for _, it := range seq.Content {
		start := it.Line - 1
		for start > l.root && !strings.HasPrefix(strings.TrimSpace(lines[start]), "-") {
			start--
		}
		if start <= l.root {
			return errors.New("an item of the list is written in a way mcptray does not edit; the file was left untouched")
		}
		if n := len(l.items); n > 0 {
			l.items[n-1][1] = start
		} else {
			l.dash = lines[start][:indentOf(lines[start])]
		}
		name := ""
		if it.Kind == yaml.MappingNode {
			for j := 0; j+1 < len(it.Content); j += 2 {
				if it.Content[j].Value == "name" {
					name = it.Content[j+1].Value
				}
			}
		}
		if name != "" && l.find(name) >= 0 {
			return fmt.Errorf("the file lists %s twice; it was left untouched", name)
		}
		l.items = append(l.items, [2]int{start, len(lines)})
		l.names = append(l.names, name)
	}
	if len(l.items) == 0 {
		return nil
	}
	last := &l.items[len(l.items)-1]
	for i := last[0] + 1; i < len(lines); i++ {
		if content(lines[i]) && indentOf(lines[i]) <= len(l.dash) {
			last[1] = i
			break
		}
	}
	for i := range l.items {
		for l.items[i][1] > l.items[i][0]+1 && !content(lines[l.items[i][1]-1]) {
			l.items[i][1]--
		}
	}
	return nil
}

func mergeContinue(c Client, existing []byte, f Form, p Params) ([]byte, error) {
	if err := yamlEditable(existing); err != nil {
		return nil, err
	}
	src, lines := tomlLines(existing)
	l, err := layoutContinue([]byte(src), lines, c.RootKey)
	if err != nil {
		return nil, err
	}
	dash := l.dash
	if len(l.items) == 0 {
		dash = "  "
	}
	item, err := continueItem(c, f, p, dash)
	if err != nil {
		return nil, err
	}
	var out string
	switch i := l.find(p.name()); {
	case l.root < 0:
		out = src
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		out += c.RootKey + ":\n" + item
	case i >= 0:
		out = joinLines(lines[:l.items[i][0]]) + item + joinLines(lines[l.items[i][1]:])
	case len(l.items) > 0:
		at := l.items[len(l.items)-1][1]
		head := joinLines(lines[:at])
		if !strings.HasSuffix(head, "\n") {
			head += "\n"
		}
		out = head + item + joinLines(lines[at:])
	case l.keep:
		out = joinLines(lines[:l.root+1]) + item + joinLines(lines[l.root+1:])
		if !strings.HasSuffix(lines[l.root], "\n") {
			out = joinLines(lines[:l.root+1]) + "\n" + item + joinLines(lines[l.root+1:])
		}
	default:
		out = joinLines(lines[:l.root]) + c.RootKey + ":\n" + item + joinLines(lines[l.root+1:])
	}
	if ok, err := hasEntry(c, []byte(out), p.name()); err != nil || !ok {
		return nil, fmt.Errorf("mcptray cannot edit this file automatically (%v); it was left untouched — add this under %s: by hand:\n%s", err, c.RootKey, item)
	}
	return []byte(out), nil
}

func removeContinue(c Client, existing []byte, name string) ([]byte, bool, error) {
	if err := yamlEditable(existing); err != nil {
		return nil, false, err
	}
	src, lines := tomlLines(existing)
	l, err := layoutContinue([]byte(src), lines, c.RootKey)
	if err != nil {
		return nil, false, err
	}
	i := l.find(name)
	if i < 0 {
		return nil, false, nil
	}
	rest := joinLines(lines[l.items[i][1]:])
	head := lines[:l.items[i][0]]
	if len(l.items) == 1 {
		// An empty list, not nothing: Continue takes a missing list, not
		// a null one.
		head = append(append([]string(nil), lines[:l.root]...), c.RootKey+": []\n")
		head = append(head, lines[l.root+1:l.items[i][0]]...)
	}
	out := joinLines(head) + rest
	if _, err := yamlValid([]byte(out)); err != nil {
		return nil, false, errors.New("internal error: the file without the entry does not parse; it was left untouched")
	}
	return []byte(out), true, nil
}

// joinLines is lines as one text again.
func joinLines(ls []string) string { return strings.Join(ls, "") }

// continueEntries decodes the servers Continue's file lists, by name,
// with a header of requestOptions (or its apiKey) where Check looks for
// headers.
func continueEntries(c Client, content []byte) (map[string]map[string]any, error) {
	v, err := yamlValid(content)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]any{}
	list, _ := v[c.RootKey].([]any)
	for _, it := range list {
		e, ok := it.(map[string]any)
		name, _ := e["name"].(string)
		if !ok || name == "" {
			continue
		}
		opts, _ := e["requestOptions"].(map[string]any)
		headers, _ := opts["headers"].(map[string]any)
		if key, ok := e["apiKey"].(string); ok && key != "" {
			if headers == nil {
				headers = map[string]any{}
			}
			headers["Authorization"] = "Bearer " + key
		}
		if headers != nil {
			e["headers"] = headers
		}
		out[name] = e
	}
	return out, nil
}
