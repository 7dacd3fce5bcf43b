// Package clientconfig generates the MCP server entry each AI client needs
// to use mcptray, finds the clients' config files, and merges the entry into
// them losslessly: other servers, unknown keys and comments survive, a
// malformed file is refused rather than rewritten, and a backup is made
// before writing. It also makes the HTTP form's per-client token. What
// touches files, processes or the store (PlanInstall, Plan.Apply, Install,
// RotateToken, RunningProcesses) is marked so; the rest is pure: paths come
// from an Env.
package clientconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Form is how the client reaches mcptray.
type Form int

const (
	// Stdio launches the mcptray-stdio shim (no secret in the config).
	Stdio Form = iota
	// HTTP connects to mcptray's URL with a per-client token.
	HTTP
)

func (f Form) String() string {
	if f == HTTP {
		return "http"
	}
	return "stdio"
}

// Format is a config file's syntax.
type Format int

const (
	JSON  Format = iota // JSON; comments are kept if present
	JSONC               // JSON with comments and trailing commas
	TOML
)

// Client describes one AI client.
type Client struct {
	ID      string // command-line name, e.g. "claude-desktop"
	Name    string // display name
	Format  Format
	RootKey string // the object holding the servers (TOML: the table prefix)
	HTTP    bool   // whether the HTTP form is supported in the file
	// TokenEnv is the environment variable the HTTP form reads the token
	// from, for clients that take it only that way (Codex).
	TokenEnv string
	// Restart tells the user how to make the client read its config again.
	Restart string
}

// TokenEnvVar is the environment variable holding mcptray's token for
// clients that read it from the environment.
const TokenEnvVar = "MCPTRAY_TOKEN"

// VSCodeInputID is the id of VS Code's password input for the token.
const VSCodeInputID = "mcptray-token"

var clients = []Client{
	{ID: "claude-desktop", Name: "Claude Desktop", Format: JSON, RootKey: "mcpServers",
		Restart: "Quit Claude Desktop completely (closing the window is not enough: use Quit in the menu bar or tray icon), then open it again."},
	{ID: "claude-code", Name: "Claude Code (user scope)", Format: JSON, RootKey: "mcpServers", HTTP: true,
		Restart: "Start a new Claude Code session (or run /mcp to reconnect)."},
	{ID: "claude-code-project", Name: "Claude Code (project .mcp.json)", Format: JSON, RootKey: "mcpServers", HTTP: true,
		Restart: "Start Claude Code in this project again and approve the project server when asked."},
	{ID: "cursor", Name: "Cursor", Format: JSON, RootKey: "mcpServers", HTTP: true,
		Restart: "Open Cursor Settings → MCP and refresh the server list, or restart Cursor."},
	{ID: "vscode", Name: "VS Code", Format: JSONC, RootKey: "servers", HTTP: true,
		Restart: "Run \"MCP: List Servers\" in VS Code and start mcptray (VS Code asks for the token once in the HTTP form)."},
	{ID: "windsurf", Name: "Windsurf", Format: JSON, RootKey: "mcpServers", HTTP: true,
		Restart: "Press Refresh in Windsurf's MCP panel (Cascade → MCP servers), or restart Windsurf."},
	{ID: "zed", Name: "Zed", Format: JSONC, RootKey: "context_servers", HTTP: true,
		Restart: "Zed reloads settings.json by itself; check the Agent panel's settings for mcptray's status."},
	{ID: "codex", Name: "OpenAI Codex", Format: TOML, RootKey: "mcp_servers", HTTP: true, TokenEnv: TokenEnvVar,
		Restart: "Start a new Codex session."},
	{ID: "gemini", Name: "Gemini CLI", Format: JSON, RootKey: "mcpServers", HTTP: true,
		Restart: "Start Gemini CLI again (/mcp lists the servers)."},
}

// Clients lists the supported clients in a fixed order.
func Clients() []Client { return append([]Client(nil), clients...) }

// Lookup finds a client by its ID.
func Lookup(id string) (Client, bool) {
	for _, c := range clients {
		if c.ID == id {
			return c, true
		}
	}
	return Client{}, false
}

// IDs lists the client IDs.
func IDs() []string {
	var ids []string
	for _, c := range clients {
		ids = append(ids, c.ID)
	}
	return ids
}

// Params is what goes into an entry.
type Params struct {
	Name     string // the server's name in the client, default "mcptray"
	ShimPath string // absolute path of mcptray-stdio (Stdio form)
	URL      string // mcptray's endpoint URL (HTTP form)
	Token    string // the client's token (HTTP form, where it goes in the file)
}

func (p Params) name() string {
	if p.Name == "" {
		return "mcptray"
	}
	return p.Name
}

// ErrNoHTTP is returned for the HTTP form of a client that cannot use it.
var ErrNoHTTP = errors.New("this client only runs stdio servers from its config file; use the stdio form")

// obj is a JSON object that keeps its key order.
type obj []kv

type kv struct {
	k string
	v any
}

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := marshal(f.k)
		v, err := marshal(f.v)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal is json.Marshal without HTML escaping: config files are read by
// people, and a placeholder like <new token> must stay legible.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// entry is the server entry for a JSON client.
func entry(c Client, f Form, p Params) (any, error) {
	if f == HTTP && !c.HTTP {
		return nil, ErrNoHTTP
	}
	if f == Stdio {
		if p.ShimPath == "" || !filepath.IsAbs(p.ShimPath) && !strings.HasPrefix(p.ShimPath, "/") && !isWindowsAbs(p.ShimPath) {
			return nil, fmt.Errorf("the shim path must be absolute (clients do not search the shell's PATH): %q", p.ShimPath)
		}
		switch c.ID {
		case "vscode":
			return obj{{"type", "stdio"}, {"command", p.ShimPath}, {"args", []string{}}}, nil
		case "claude-code", "claude-code-project":
			return obj{{"type", "stdio"}, {"command", p.ShimPath}, {"args", []string{}}}, nil
		case "zed":
			return obj{{"command", p.ShimPath}, {"args", []string{}}, {"env", obj{}}}, nil
		case "gemini":
			return obj{{"command", p.ShimPath}, {"args", []string{}}, {"timeout", 300000}}, nil
		default:
			return obj{{"command", p.ShimPath}, {"args", []string{}}}, nil
		}
	}
	if p.URL == "" {
		return nil, errors.New("the HTTP form needs mcptray's URL")
	}
	bearer := obj{{"Authorization", "Bearer " + p.Token}}
	switch c.ID {
	case "claude-code", "claude-code-project":
		return obj{{"type", "http"}, {"url", p.URL}, {"headers", bearer}}, nil
	case "vscode":
		return obj{{"type", "http"}, {"url", p.URL}, {"headers", obj{{"Authorization", "Bearer ${input:" + VSCodeInputID + "}"}}}}, nil
	case "windsurf":
		return obj{{"serverUrl", p.URL}, {"headers", bearer}}, nil
	case "gemini":
		return obj{{"httpUrl", p.URL}, {"headers", bearer}, {"timeout", 300000}}, nil
	default: // cursor, zed
		return obj{{"url", p.URL}, {"headers", bearer}}, nil
	}
}

func isWindowsAbs(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') ||
		strings.HasPrefix(p, `\\`)
}

// vscodeInput is VS Code's password prompt for the token (HTTP form).
func vscodeInput() obj {
	return obj{{"type", "promptString"}, {"id", VSCodeInputID}, {"description", "mcptray client token (shown once by `mcptray config vscode --http`)"}, {"password", true}}
}

// Snippet is the smallest complete config file for the client holding only
// mcptray's entry: what `mcptray config CLIENT --print` shows.
func Snippet(c Client, f Form, p Params) ([]byte, error) {
	return Merge(c, nil, f, p)
}

// Merge returns existing with mcptray's entry set (added, or replaced when
// the name exists), touching nothing else. An empty existing makes a new
// file. A malformed file is an error and nothing is returned.
func Merge(c Client, existing []byte, f Form, p Params) ([]byte, error) {
	if c.Format == TOML {
		return mergeTOML(c, existing, f, p)
	}
	e, err := entry(c, f, p)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(existing)) == 0 {
		existing = []byte("{}\n")
	}
	d, root, err := newDoc(existing)
	if err != nil {
		return nil, fmt.Errorf("the file is not valid JSON (%w); it was left untouched — fix it or move it away, then try again", err)
	}
	if m := root.get(c.RootKey); m != nil && m.val.kind != kindObject {
		return nil, fmt.Errorf("%q in the file is not an object; it was left untouched", c.RootKey)
	}
	// Edit from the end of the file backwards would keep spans valid; simpler:
	// one edit, then parse again for the next.
	if m := root.get(c.RootKey); m != nil {
		if err := d.setMember(m.val, p.name(), e); err != nil {
			return nil, err
		}
	} else if err := d.setMember(root, c.RootKey, obj{{p.name(), e}}); err != nil {
		return nil, err
	}
	if c.ID == "vscode" && f == HTTP {
		root, err := parseJSONC(d.src)
		if err != nil {
			return nil, err
		}
		in := root.get("inputs")
		switch {
		case in == nil:
			if err := d.setMember(root, "inputs", []any{vscodeInput()}); err != nil {
				return nil, err
			}
		case in.val.kind != kindArray:
			return nil, errors.New(`"inputs" in the file is not an array; it was left untouched`)
		default:
			found := false
			for _, el := range in.val.elems {
				var v struct {
					ID string `json:"id"`
				}
				if el.kind == kindObject && d.decode(el, &v) == nil && v.ID == VSCodeInputID {
					text, err := d.render(vscodeInput(), d.lineIndent(el.start))
					if err != nil {
						return nil, err
					}
					d.splice(el.start, el.end, text)
					found = true
					break
				}
			}
			if !found {
				if err := d.appendElem(in.val, vscodeInput()); err != nil {
					return nil, err
				}
			}
		}
	}
	out := d.src
	if !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	// The result must parse, and hold exactly the entry.
	if ok, err := hasEntry(c, out, p.name()); err != nil || !ok {
		return nil, fmt.Errorf("internal error: the merged file does not hold the entry (%v)", err)
	}
	return out, nil
}

// Configured reports whether a config file's content has mcptray's entry.
func Configured(c Client, content []byte, name string) (bool, error) {
	if len(bytes.TrimSpace(content)) == 0 {
		return false, nil
	}
	if name == "" {
		name = "mcptray"
	}
	return hasEntry(c, content, name)
}

func hasEntry(c Client, content []byte, name string) (bool, error) {
	if c.Format == TOML {
		return tomlHasEntry(c, content, name)
	}
	d, root, err := newDoc(content)
	if err != nil {
		return false, err
	}
	m := root.get(c.RootKey)
	if m == nil || m.val.kind != kindObject {
		return false, nil
	}
	e := m.val.get(name)
	if e == nil {
		return false, nil
	}
	var v any
	return d.decode(e.val, &v) == nil, nil
}

// Env is the machine a path is computed for; fields are as the OS reports
// them. Glob lists matches of a pattern (filepath.Glob in real use).
type Env struct {
	GOOS          string
	Home          string
	AppData       string // Windows %APPDATA%
	LocalAppData  string // Windows %LOCALAPPDATA%
	XDGConfigHome string // Linux $XDG_CONFIG_HOME (default ~/.config)
	CodexHome     string // $CODEX_HOME
	ProjectDir    string // the project for project-scoped files (the working dir)
	Glob          func(pattern string) []string
}

// LocalEnv is the Env of this machine.
func LocalEnv(goos string) Env {
	home, _ := os.UserHomeDir()
	wd, _ := os.Getwd()
	return Env{
		GOOS: goos, Home: home,
		AppData: os.Getenv("APPDATA"), LocalAppData: os.Getenv("LOCALAPPDATA"),
		XDGConfigHome: os.Getenv("XDG_CONFIG_HOME"), CodexHome: os.Getenv("CODEX_HOME"),
		ProjectDir: wd,
		Glob: func(p string) []string {
			m, _ := filepath.Glob(p)
			return m
		},
	}
}

func (e Env) join(elem ...string) string {
	if e.GOOS == "windows" {
		return strings.Join(elem, `\`)
	}
	return strings.Join(elem, "/")
}

func (e Env) xdg() string {
	if e.XDGConfigHome != "" {
		return e.XDGConfigHome
	}
	return e.join(e.Home, ".config")
}

// Paths lists the config files of a client on e, the preferred one first.
// For Claude Desktop on Windows every MSIX package folder (Claude_*) comes
// before the classic %APPDATA% location, which is listed only when no
// package exists or it exists too: write all of them when unsure.
func Paths(c Client, e Env) []string {
	switch c.ID {
	case "claude-desktop":
		switch e.GOOS {
		case "darwin":
			return []string{e.join(e.Home, "Library", "Application Support", "Claude", "claude_desktop_config.json")}
		case "windows":
			var out []string
			if e.Glob != nil && e.LocalAppData != "" {
				pkgs := e.Glob(e.join(e.LocalAppData, "Packages", "Claude_*"))
				sort.Strings(pkgs)
				for _, p := range pkgs {
					out = append(out, e.join(p, "LocalCache", "Roaming", "Claude", "claude_desktop_config.json"))
				}
			}
			classic := e.join(e.AppData, "Claude", "claude_desktop_config.json")
			if len(out) == 0 || (e.Glob != nil && len(e.Glob(e.join(e.AppData, "Claude"))) > 0) {
				out = append(out, classic)
			}
			return out
		default:
			return []string{e.join(e.xdg(), "Claude", "claude_desktop_config.json")}
		}
	case "claude-code":
		return []string{e.join(e.Home, ".claude.json")}
	case "claude-code-project":
		return []string{e.join(e.ProjectDir, ".mcp.json")}
	case "cursor":
		return []string{e.join(e.Home, ".cursor", "mcp.json")}
	case "vscode":
		switch e.GOOS {
		case "darwin":
			return []string{e.join(e.Home, "Library", "Application Support", "Code", "User", "mcp.json")}
		case "windows":
			return []string{e.join(e.AppData, "Code", "User", "mcp.json")}
		default:
			return []string{e.join(e.xdg(), "Code", "User", "mcp.json")}
		}
	case "windsurf":
		return []string{e.join(e.Home, ".codeium", "windsurf", "mcp_config.json")}
	case "zed":
		switch e.GOOS {
		case "windows":
			return []string{e.join(e.AppData, "Zed", "settings.json")}
		case "darwin":
			return []string{e.join(e.Home, ".config", "zed", "settings.json")}
		default:
			return []string{e.join(e.xdg(), "zed", "settings.json")}
		}
	case "codex":
		if e.CodexHome != "" {
			return []string{e.join(e.CodexHome, "config.toml")}
		}
		return []string{e.join(e.Home, ".codex", "config.toml")}
	case "gemini":
		return []string{e.join(e.Home, ".gemini", "settings.json")}
	}
	return nil
}
