package clientconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// Codex's config.toml is edited as text: mcptray's table (and its
// sub-tables) is replaced in place or appended, so every other line,
// comment and table stays as it was. The library only checks that the file
// parses before and after.

func tomlString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // JSON string escapes are valid TOML basic-string escapes
	return strings.TrimSuffix(b.String(), "\n")
}

func tomlBlock(c Client, f Form, p Params) (string, error) {
	p, err := entryParams(c, f, p)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[%s.%s]\n", c.RootKey, tomlKey(p.name()))
	if f == HTTP {
		fmt.Fprintf(&b, "url = %s\n", tomlString(p.URL))
		fmt.Fprintf(&b, "bearer_token_env_var = %s\n", tomlString(TokenEnvName(p.name())))
	} else {
		fmt.Fprintf(&b, "command = %s\n", tomlString(p.ShimPath))
		b.WriteString("args = []\n")
	}
	fmt.Fprintf(&b, "tool_timeout_sec = %d\n", maxWait)
	return b.String(), nil
}

var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func tomlKey(k string) string {
	if bareKey.MatchString(k) {
		return k
	}
	return tomlString(k)
}

// headerRe matches a table header line and captures its dotted name.
var headerRe = regexp.MustCompile(`^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$`)

// tableName normalizes a dotted header name: spaces around dots and quotes
// around simple keys are dropped.
func tableName(h string) string {
	parts := strings.Split(h, ".")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if len(p) >= 2 && (p[0] == '"' || p[0] == '\'') && p[len(p)-1] == p[0] {
			p = p[1 : len(p)-1]
		}
		parts[i] = p
	}
	return strings.Join(parts, ".")
}

func mergeTOML(c Client, existing []byte, f Form, p Params) ([]byte, error) {
	block, err := tomlBlock(c, f, p)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(existing)) > 0 {
		if err := tomlValid(existing); err != nil {
			return nil, err
		}
	}
	src, lines := tomlLines(existing)
	ours := c.RootKey + "." + p.name()
	start, end, err := tomlTables(lines, ours)
	if err != nil {
		return nil, err
	}
	var out string
	if start < 0 {
		out = src
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		if strings.TrimSpace(out) != "" {
			out += "\n"
		}
		out += block
	} else {
		sep := ""
		if end < len(lines) {
			sep = "\n"
		}
		out = strings.Join(lines[:start], "") + block + sep + strings.Join(lines[end:], "")
		if end < len(lines) && strings.TrimSpace(lines[end]) == "" {
			out = strings.Join(lines[:start], "") + block + strings.Join(lines[end:], "")
		}
	}
	ok, err := hasEntry(c, []byte(out), p.name())
	if err != nil || !ok {
		return nil, fmt.Errorf("mcptray cannot edit this file automatically (it defines %s in a form mcptray does not rewrite: %v); it was left untouched — add this by hand:\n%s", ours, err, block)
	}
	return []byte(out), nil
}

// tomlLines is the file with LF line ends (keepLineEnds restores CRLF),
// cut into lines that keep their "\n".
func tomlLines(existing []byte) (string, []string) {
	src := strings.ReplaceAll(string(existing), "\r\n", "\n")
	lines := strings.SplitAfter(src, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return src, lines
}

// tomlTables finds the lines [start, end) of table ours and its
// sub-tables; start is -1 when there is none. Blank and comment lines just
// before the next table belong to that table.
func tomlTables(lines []string, ours string) (start, end int, err error) {
	start, end = -1, -1
	for i, l := range lines {
		m := headerRe.FindStringSubmatch(strings.TrimRight(l, "\n"))
		if m == nil {
			continue
		}
		name := tableName(m[1])
		mine := name == ours || strings.HasPrefix(name, ours+".")
		switch {
		case mine && start < 0:
			start = i
		case !mine && start >= 0 && end < 0:
			end = i
		case mine && end >= 0:
			return 0, 0, fmt.Errorf("the file has the tables of %s in two places; it was left untouched — merge them by hand", ours)
		}
	}
	if start < 0 {
		return -1, -1, nil
	}
	if end < 0 {
		end = len(lines)
	}
	for end > start+1 {
		t := strings.TrimSpace(lines[end-1])
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		end--
	}
	return start, end, nil
}

func removeTOML(c Client, existing []byte, name string) ([]byte, bool, error) {
	if err := tomlValid(existing); err != nil {
		return nil, false, err
	}
	_, lines := tomlLines(existing)
	start, end, err := tomlTables(lines, c.RootKey+"."+name)
	if err != nil || start < 0 {
		return nil, false, err
	}
	// One blank line around the table goes with it.
	if start > 0 && strings.TrimSpace(lines[start-1]) == "" && (end == len(lines) || strings.TrimSpace(lines[end]) == "") {
		start--
	}
	out := strings.Join(lines[:start], "") + strings.Join(lines[end:], "")
	if err := tomlValid([]byte(out)); err != nil {
		return nil, false, fmt.Errorf("internal error: the file without %s does not parse (%v); it was left untouched", name, err)
	}
	return []byte(out), true, nil
}

// tomlValid says whether content parses as TOML.
func tomlValid(content []byte) error {
	var v map[string]any
	if err := toml.Unmarshal(content, &v); err != nil {
		return fmt.Errorf("the file is not valid TOML (%v); it was left untouched — fix it or move it away, then try again", err)
	}
	return nil
}

// tomlEntries decodes the servers the file defines.
func tomlEntries(c Client, content []byte) (map[string]map[string]any, error) {
	var v map[string]any
	if err := toml.Unmarshal(content, &v); err != nil {
		return nil, err
	}
	out := map[string]map[string]any{}
	servers, _ := v[c.RootKey].(map[string]any)
	for name, e := range servers {
		if m, ok := e.(map[string]any); ok {
			out[name] = m
		}
	}
	return out, nil
}
