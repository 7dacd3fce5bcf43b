package clientconfig

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"
)

// This file reads the MCP servers an AI app's config file defines, as
// they are written there, so that mcptray can take them over (an
// "import", see upstream.go): each entry's name, where it is, and its
// fields decoded, in the file's order.

// Source is where a server entry was found.
type Source struct {
	Client string // the app's client ID (Lookup)
	App    string // the app's name for people
	File   string // the config file
	// Project is the project folder of a Claude Code entry kept in
	// ~/.claude.json for one project (projects[folder].mcpServers); "" for
	// the file's own list.
	Project string
	Name    string // the entry's name in the file
}

// String says where the entry is, for people: `github in Cursor
// (/home/ann/.cursor/mcp.json)`.
func (s Source) String() string {
	where := s.File
	if s.Project != "" {
		where += ", project " + s.Project
	}
	return fmt.Sprintf("%s in %s (%s)", s.Name, s.App, where)
}

// Entry is one server entry of a config file as written: its fields by
// name, decoded (JSON as encoding/json decodes into any, TOML and YAML as
// their libraries do), and their names in the file's order.
type Entry struct {
	Source
	Fields map[string]any
	Keys   []string
	// Inputs are the descriptions of VS Code's inputs by id: what it asks
	// a person for a ${input:id} of the entry.
	Inputs map[string]string
}

// ReadServers lists the server entries of the config file of c at path,
// whose content is content, in the file's order. A file that does not
// parse is an error naming the file and the line. It is pure.
func ReadServers(c Client, path string, content []byte) ([]Entry, error) {
	c = ForFile(c, path)
	src := Source{Client: c.ID, App: c.Name, File: path}
	if len(bytes.TrimSpace(content)) == 0 {
		return nil, nil
	}
	var out []Entry
	var err error
	switch c.Format {
	case TOML:
		out, err = tomlServers(c, src, content)
	case YAML, ContinueYAML:
		out, err = yamlServers(c, src, content)
	default:
		out, err = jsonServers(c, src, content)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// jsonServers reads the servers of a JSON or JSONC file: the root key's
// object, and for Claude Code's ~/.claude.json also each project's.
func jsonServers(c Client, src Source, content []byte) ([]Entry, error) {
	d, root, err := newDoc(content)
	if err != nil {
		return nil, fmt.Errorf("the file is not valid JSON: %w", err)
	}
	out, err := jsonTable(d, root, c.RootKey, src)
	if err != nil {
		return nil, err
	}
	if c.ID == "vscode" {
		inputs := vscodeInputs(d, root)
		for i := range out {
			out[i].Inputs = inputs
		}
	}
	if c.ID != "claude-code" {
		return out, nil
	}
	projects := lastMember(root, "projects")
	if projects == nil || projects.kind != kindObject {
		return out, nil
	}
	for _, folder := range memberKeys(projects) {
		p := lastMember(projects, folder)
		if p.kind != kindObject || folder == "" {
			continue // no project: Claude Code writes a folder's path
		}
		s := src
		s.Project = folder
		more, err := jsonTable(d, p, c.RootKey, s)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

// vscodeInputs are the descriptions of the inputs of a VS Code file, by
// id; an input not as VS Code writes it is left out.
func vscodeInputs(d *doc, root *node) map[string]string {
	var inputs []struct{ ID, Description string }
	in := lastMember(root, "inputs")
	if in == nil || d.decode(in, &inputs) != nil {
		return nil
	}
	out := map[string]string{}
	for _, i := range inputs {
		out[i.ID] = i.Description
	}
	return out
}

// jsonTable reads the servers of the object under key in obj.
func jsonTable(d *doc, obj *node, key string, src Source) ([]Entry, error) {
	table := lastMember(obj, key)
	if table == nil {
		return nil, nil
	}
	if table.kind != kindObject {
		return nil, fmt.Errorf("line %d: %q is not an object", lineOf(d.src, table.start), key)
	}
	var out []Entry
	for _, name := range memberKeys(table) {
		v := lastMember(table, name)
		var fields map[string]any
		if v.kind != kindObject || d.decode(v, &fields) != nil {
			return nil, fmt.Errorf("line %d: the server %q is not an object", lineOf(d.src, v.start), name)
		}
		keys := memberKeys(v)
		s := src
		s.Name = name
		out = append(out, Entry{Source: s, Fields: fields, Keys: keys})
	}
	return out, nil
}

// lastMember is the value of key in obj (the last one, as JSON.parse
// reads a key given twice), or nil.
func lastMember(obj *node, key string) *node {
	if m := obj.get(key); m != nil {
		return m.val
	}
	return nil
}

// memberKeys lists obj's keys in order, each once, where it is first
// written.
func memberKeys(obj *node) []string {
	var keys []string
	seen := map[string]bool{}
	for _, m := range obj.members {
		if !seen[m.key] {
			seen[m.key] = true
			keys = append(keys, m.key)
		}
	}
	return keys
}

// lineOf is the line of the byte at pos.
func lineOf(src []byte, pos int) int { return bytes.Count(src[:pos], []byte("\n")) + 1 }

// tomlServers reads Codex's [mcp_servers.NAME] tables, in the file's
// order (the decoder's metadata keeps it).
func tomlServers(c Client, src Source, content []byte) ([]Entry, error) {
	var v map[string]any
	md, err := toml.Decode(string(content), &v)
	if err != nil {
		return nil, fmt.Errorf("the file is not valid TOML: %w", err)
	}
	servers, ok := v[c.RootKey].(map[string]any)
	if !ok {
		if _, there := v[c.RootKey]; there {
			return nil, fmt.Errorf("%s is not a table", c.RootKey)
		}
		return nil, nil
	}
	var out []Entry
	at := map[string]int{}
	for _, k := range md.Keys() {
		if len(k) < 2 || k[0] != c.RootKey {
			continue
		}
		i, seen := at[k[1]]
		if !seen {
			fields, ok := servers[k[1]].(map[string]any)
			if !ok {
				return nil, fmt.Errorf("the server %q is not a table", k[1])
			}
			s := src
			s.Name = k[1]
			i = len(out)
			at[k[1]] = i
			out = append(out, Entry{Source: s, Fields: fields})
		}
		if len(k) == 3 {
			out[i].Keys = append(out[i].Keys, k[2])
		}
	}
	return out, nil
}

// yamlMapping decodes content, whose root must be a mapping, and returns
// the value node of its top-level key (nil when absent).
func yamlMapping(content []byte, key string) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(content, &doc); err != nil {
		return nil, fmt.Errorf("the file is not valid YAML: %w", err)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: the file must hold a mapping (key: value lines)", top.Line)
	}
	var val *yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == key {
			val = top.Content[i+1]
		}
	}
	return val, nil
}

// yamlServers reads the servers of a YAML file: Goose's extensions
// mapping, each named by its key, or the mcpServers list of a Continue
// config.yaml or block file, each item named by its name key.
func yamlServers(c Client, src Source, content []byte) ([]Entry, error) {
	servers, err := yamlMapping(content, c.RootKey)
	if err != nil || servers == nil || servers.Tag == "!!null" {
		return nil, err
	}
	list := c.Format == ContinueYAML
	switch {
	case list && servers.Kind != yaml.SequenceNode:
		return nil, fmt.Errorf("line %d: %s is not a list", servers.Line, c.RootKey)
	case !list && servers.Kind != yaml.MappingNode:
		return nil, fmt.Errorf("line %d: %s is not a mapping", servers.Line, c.RootKey)
	}
	var out []Entry
	for i := 0; i < len(servers.Content); i++ {
		name, n := "", servers.Content[i]
		if !list {
			// A mapping's nodes are its keys and values in turn.
			i++
			name, n = n.Value, servers.Content[i]
		}
		e, err := yamlEntry(src, name, n)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// yamlEntry is the server whose mapping is n, named name, or by its name
// key when name is "".
func yamlEntry(src Source, name string, n *yaml.Node) (Entry, error) {
	what := fmt.Sprintf("the server %q", name)
	if name == "" {
		what = "a server"
	}
	if n.Kind != yaml.MappingNode {
		return Entry{}, fmt.Errorf("line %d: %s is not a mapping", n.Line, what)
	}
	var fields map[string]any
	if err := n.Decode(&fields); err != nil {
		return Entry{}, fmt.Errorf("line %d: %s: %w", n.Line, what, err)
	}
	var keys []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		keys = append(keys, n.Content[i].Value)
	}
	if name == "" {
		if name, _ = fields["name"].(string); name == "" {
			return Entry{}, fmt.Errorf("line %d: a server has no name", n.Line)
		}
	}
	src.Name = name
	return Entry{Source: src, Fields: fields, Keys: keys}, nil
}

// AppFile is a config file of an app that may define servers.
type AppFile struct {
	Client Client
	Path   string
}

// ServerFiles lists the files of c on e that define servers and exist:
// the ones mcptray writes its entry to (Paths), without a file of
// mcptray's own (Continue's mcpServers/mcptray.json), and for Continue
// every other file of its mcpServers folder (JSON files in the apps'
// format, YAML block files). It touches the file system.
func ServerFiles(c Client, e Env) []AppFile {
	var out []AppFile
	add := func(p string) {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			out = append(out, AppFile{Client: ForFile(c, p), Path: p})
		}
	}
	for _, p := range Paths(c, e) {
		if c.OwnFile && !isYAML(p) {
			if e.Glob == nil {
				continue
			}
			dir := filepath.Dir(p)
			var others []string
			for _, ext := range []string{"*.json", "*.yaml", "*.yml"} {
				others = append(others, e.Glob(e.join(dir, ext))...)
			}
			sort.Strings(others)
			for _, o := range others {
				if o != p {
					add(o)
				}
			}
			continue
		}
		add(p)
	}
	return out
}

// isYAML says whether path names a YAML file.
func isYAML(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".yaml" || ext == ".yml"
}

// ClientForFile guesses which app a config file given by its path
// belongs to, from its name (claude_desktop_config.json, mcp.json under
// .cursor or Code/User, config.toml, …), for `mcptray upstream import
// FILE`. ok is false when the name says nothing.
func ClientForFile(path string) (Client, bool) {
	slash := filepath.ToSlash(path)
	base := filepath.Base(slash)
	dir := filepath.Base(filepath.Dir(slash))
	id := ""
	switch {
	case base == "claude_desktop_config.json":
		id = "claude-desktop"
	case base == ".claude.json":
		id = "claude-code"
	case base == ".mcp.json":
		id = "claude-code-project"
	case base == "mcp.json" && dir == ".cursor":
		id = "cursor"
	case base == "mcp.json" && (dir == "User" || dir == ".vscode"):
		id = "vscode"
	case base == "mcp.json" && dir == ".lmstudio":
		id = "lmstudio"
	case base == "mcp_config.json":
		id = "windsurf"
	case base == "settings.json" && dir == "zed":
		id = "zed"
	case base == "settings.json" && dir == ".gemini":
		id = "gemini"
	case strings.HasSuffix(base, ".toml"):
		id = "codex"
	case base == "mcp-config.json":
		id = "copilot-cli"
	case base == "cline_mcp_settings.json":
		id = "cline"
	case isYAML(base) && strings.Contains(slash, "goose"):
		id = "goose"
	case strings.Contains(slash, ".continue/") || dir == "mcpServers":
		id = "continue"
	}
	if id == "" {
		return Client{}, false
	}
	c, _ := Lookup(id)
	return ForFile(c, path), true
}
