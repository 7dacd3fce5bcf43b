// Package clientconfig generates the MCP server entry each AI client needs
// to use mcptray, finds the clients' config files, and merges the entry
// into them — or takes it out — losslessly: other servers, unknown keys,
// comments, line ends and a missing final newline survive, a malformed
// file is refused rather than rewritten, and a backup is made before
// writing. It also keeps the HTTP form's per-entry tokens and runs an
// installed entry as its client would (Check). And it imports the other
// servers a person's apps define: reads them (ReadServers), proposes them
// as servers mcptray fronts with their credentials apart (Propose,
// Import.Preview), moves them out of the apps' files and back (PlanMoves,
// MovePlan.MoveOut, UndoMove). What touches files, processes or the store
// (PlanInstall, PlanRemove, Plan.Apply, Install, Remove, Check,
// RunningProcesses, ServerFiles, ReadImport, PlanMoves, PlanMove,
// MovePlan.MoveOut, UndoMove) is marked so; the rest is pure: paths come
// from an Env.
package clientconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Form is how the client reaches mcptray.
type Form int

const (
	// Stdio launches the mcptray-stdio shim (no secret in the config).
	Stdio Form = iota
	// HTTP connects to mcptray's URL with a per-entry token.
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
	YAML
	// ContinueYAML is Continue's config.yaml: the servers are a YAML list
	// under RootKey, each item named by its name key (see ForFile).
	ContinueYAML
)

// Client describes one AI client.
type Client struct {
	ID      string // command-line name, e.g. "claude-desktop"
	Name    string // display name
	Format  Format
	RootKey string // the object holding the servers (TOML: the table prefix)
	HTTP    bool   // whether the HTTP form is supported in the file
	// EnvToken says the client takes the HTTP form's token only from an
	// environment variable its file names (Codex's bearer_token_env_var).
	EnvToken bool
	// EnvRef is how the client's file refers to an environment variable in
	// a header, %s standing for its name ("${%s}"), as its documentation
	// says; "" when it cannot. A file meant to be shared gets this instead
	// of a token.
	EnvRef string
	// Project says the client's file belongs to a project and is meant to
	// be committed and shared (Claude Code's .mcp.json).
	Project bool
	// OwnFile says the file holds mcptray's entries only (Continue reads
	// every file of its mcpServers folder): removing the last one deletes
	// the file.
	OwnFile bool
	// ExistingOnly, when set, says mcptray merges into the file but never
	// creates it, and why: creating it would change what the client reads
	// (Continue's config.yaml, see ForFile).
	ExistingOnly string
	// Restart tells the user how to make the client read its config again.
	Restart string

	stdio func(p Params) obj
	http  func(p Params, bearer string) obj
}

// TokenEnvVar is the environment variable holding the token of the entry
// named mcptray, for clients that read it from the environment; another
// entry name gets its own (TokenEnvName).
const TokenEnvVar = "MCPTRAY_TOKEN"

// VSCodeInputID is the id of VS Code's password input for the token of
// the entry named mcptray.
const VSCodeInputID = "mcptray-token"

// maxWait is the tool timeout written where a client has one: a desktop
// question may wait 300 s (askTimeoutSeconds) for a person.
const maxWait = 300

func cmdEntry(p Params) obj { return obj{{"command", p.ShimPath}, {"args", []string{}}} }

func urlEntry(p Params, bearer string) obj {
	return obj{{"url", p.URL}, {"headers", obj{{"Authorization", bearer}}}}
}

func typed(typ string, o obj) obj { return append(obj{{"type", typ}}, o...) }

var clients = []Client{
	{ID: "claude-desktop", Name: "Claude Desktop", Format: JSON, RootKey: "mcpServers",
		Restart: "Quit Claude Desktop completely (closing the window is not enough: use Quit in the menu bar or tray icon), then open it again.",
		stdio:   cmdEntry},
	{ID: "claude-code", Name: "Claude Code (user scope)", Format: JSON, RootKey: "mcpServers", HTTP: true, EnvRef: "${%s}",
		Restart: "Start a new Claude Code session (or run /mcp to reconnect).",
		stdio:   func(p Params) obj { return typed("stdio", cmdEntry(p)) },
		http:    func(p Params, b string) obj { return typed("http", urlEntry(p, b)) }},
	{ID: "claude-code-project", Name: "Claude Code (project .mcp.json)", Format: JSON, RootKey: "mcpServers", HTTP: true, EnvRef: "${%s}", Project: true,
		Restart: "Start Claude Code in this project again and approve the project server when asked.",
		stdio:   func(p Params) obj { return typed("stdio", cmdEntry(p)) },
		http:    func(p Params, b string) obj { return typed("http", urlEntry(p, b)) }},
	{ID: "cursor", Name: "Cursor", Format: JSON, RootKey: "mcpServers", HTTP: true, EnvRef: "${env:%s}",
		Restart: "Open Cursor Settings → MCP and refresh the server list, or restart Cursor.",
		stdio:   cmdEntry, http: urlEntry},
	{ID: "vscode", Name: "VS Code", Format: JSONC, RootKey: "servers", HTTP: true,
		Restart: "Run \"MCP: List Servers\" in VS Code and start mcptray (VS Code asks for the token once in the HTTP form).",
		stdio:   func(p Params) obj { return typed("stdio", cmdEntry(p)) },
		http:    func(p Params, b string) obj { return typed("http", urlEntry(p, b)) }},
	{ID: "windsurf", Name: "Windsurf", Format: JSON, RootKey: "mcpServers", HTTP: true,
		Restart: "Press Refresh in Windsurf's MCP panel (Cascade → MCP servers), or restart Windsurf.",
		stdio:   cmdEntry,
		http: func(p Params, b string) obj {
			return obj{{"serverUrl", p.URL}, {"headers", obj{{"Authorization", b}}}}
		}},
	{ID: "zed", Name: "Zed", Format: JSONC, RootKey: "context_servers", HTTP: true,
		Restart: "Zed reloads settings.json by itself; check the Agent panel's settings for mcptray's status.",
		stdio:   func(p Params) obj { return append(cmdEntry(p), kv{"env", obj{}}) },
		http:    urlEntry},
	{ID: "codex", Name: "OpenAI Codex", Format: TOML, RootKey: "mcp_servers", HTTP: true, EnvToken: true,
		Restart: "Start a new Codex session."},
	{ID: "gemini", Name: "Gemini CLI", Format: JSON, RootKey: "mcpServers", HTTP: true, EnvRef: "${%s}",
		Restart: "Start Gemini CLI again (/mcp lists the servers).",
		stdio:   func(p Params) obj { return append(cmdEntry(p), kv{"timeout", maxWait * 1000}) },
		http: func(p Params, b string) obj {
			return obj{{"httpUrl", p.URL}, {"headers", obj{{"Authorization", b}}}, {"timeout", maxWait * 1000}}
		}},
	{ID: "copilot-cli", Name: "GitHub Copilot CLI", Format: JSON, RootKey: "mcpServers", HTTP: true,
		Restart: "Start copilot again (/mcp show lists the servers).",
		stdio:   func(p Params) obj { return append(typed("local", cmdEntry(p)), kv{"tools", []string{"*"}}) },
		http:    func(p Params, b string) obj { return append(typed("http", urlEntry(p, b)), kv{"tools", []string{"*"}}) }},
	{ID: "lmstudio", Name: "LM Studio", Format: JSON, RootKey: "mcpServers", HTTP: true,
		Restart: "LM Studio reloads mcp.json when it changes; turn mcptray on in the Program tab of the chat's sidebar.",
		stdio:   cmdEntry, http: urlEntry},
	{ID: "cline", Name: "Cline", Format: JSON, RootKey: "mcpServers", HTTP: true,
		Restart: "Cline reloads its MCP settings when the file changes; open its MCP Servers panel and press Restart next to mcptray if it is not connected.",
		stdio:   func(p Params) obj { return append(typed("stdio", cmdEntry(p)), kv{"timeout", maxWait}) },
		// Without a type Cline takes a URL for the old SSE transport.
		http: func(p Params, b string) obj {
			return append(typed("streamableHttp", urlEntry(p, b)), kv{"timeout", maxWait})
		}},
	{ID: "goose", Name: "Goose", Format: YAML, RootKey: "extensions", HTTP: true,
		Restart: "Start a new Goose session (or restart Goose Desktop)."},
	{ID: "continue", Name: "Continue", Format: JSON, RootKey: "mcpServers", HTTP: true, OwnFile: true,
		Restart: "Continue's IDE extension reloads its configuration when the files change (mcptray's tools are used in Agent mode); start cn, its CLI, again.",
		stdio:   cmdEntry,
		http:    func(p Params, b string) obj { return typed("http", urlEntry(p, b)) }},
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

// DefaultName is the server's name in a client's config unless told
// otherwise.
const DefaultName = "mcptray"

// Params is what goes into an entry.
type Params struct {
	// Name is the server's name in the client, default "mcptray".
	Name string
	// ShimPath is the absolute path of the installed mcptray-stdio (Stdio
	// form); a file meant to be shared names it by ShimName instead.
	ShimPath string
	URL      string // mcptray's endpoint URL (HTTP form)
	Token    string // the entry's token (HTTP form, where the file holds it)
	// Shared says the file is meant to be shared (committed with a
	// project): the HTTP form names an environment variable for the token
	// instead of holding it.
	Shared bool
}

func (p Params) name() string {
	if p.Name == "" {
		return DefaultName
	}
	return p.Name
}

// TokenEnvName is the environment variable that holds the token of the
// entry named name, where the client reads it from the environment:
// MCPTRAY_TOKEN for the default name, MCPTRAY_TOKEN_<NAME> for others, so
// two entries never share one.
func TokenEnvName(name string) string {
	if name == "" || name == DefaultName {
		return TokenEnvVar
	}
	var b strings.Builder
	for _, r := range strings.ToUpper(name) {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return TokenEnvVar + "_" + b.String()
}

// vscodeInputID is the id of VS Code's password input for the entry name.
func vscodeInputID(name string) string {
	if name == "" || name == DefaultName {
		return VSCodeInputID
	}
	return name + "-token"
}

// Shared says the file of c that p writes is meant to be shared: a
// project's file, or one the caller found in a project (Params.Shared).
func Shared(c Client, p Params) bool { return c.Project || p.Shared }

// TokenInEnv says where the HTTP form of c with p leaves the token: in an
// environment variable the file names (Codex, or a shared file), rather
// than in the file or in VS Code's secret storage.
func TokenInEnv(c Client, p Params) bool { return c.EnvToken || Shared(c, p) && c.ID != "vscode" }

// TokenInFile says whether the HTTP form of c with p writes the token
// itself into the file, which must then be readable only by its owner.
func TokenInFile(c Client, p Params) bool { return c.ID != "vscode" && !TokenInEnv(c, p) }

// bearer is the Authorization header's value in c's HTTP entry.
func bearer(c Client, p Params) (string, error) {
	switch {
	case c.ID == "vscode":
		return "Bearer ${input:" + vscodeInputID(p.name()) + "}", nil
	case TokenInEnv(c, p):
		if c.EnvRef == "" {
			return "", fmt.Errorf("%s cannot take the token from an environment variable in this file, and a file meant to be shared must not hold one; use the stdio form (no secret in the file)", c.Name)
		}
		return "Bearer " + fmt.Sprintf(c.EnvRef, TokenEnvName(p.name())), nil
	}
	return "Bearer " + p.Token, nil
}

// ErrNoHTTP is returned for the HTTP form of a client that cannot use it.
var ErrNoHTTP = errors.New("this client only runs stdio servers from its config file; use the stdio form")

// obj is a JSON object that keeps its key order.
type obj []kv

type kv struct {
	k string
	v any
}

// MarshalJSON writes the members in order.
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

// ShimName is how a file meant to be shared names mcptray-stdio: without
// its folder, for each person's client to find on their own PATH, since
// where one person installed mcptray means nothing on a teammate's
// computer. It has no ".exe" because teammates may use other systems, and
// Windows finds mcptray-stdio.exe by this name (CreateProcess and Node's
// spawn, which the clients use, try ".exe").
const ShimName = "mcptray-stdio"

// entryParams refuses what no client could run — a relative shim path
// (clients started from a desktop menu do not get the shell's PATH), an
// HTTP form without a URL — and returns p as the entry of c writes it: in
// a file meant to be shared, the shim by its name alone (ShimName).
func entryParams(c Client, f Form, p Params) (Params, error) {
	if f == HTTP {
		if !c.HTTP {
			return p, ErrNoHTTP
		}
		if p.URL == "" {
			return p, errors.New("the HTTP form needs mcptray's URL")
		}
		return p, nil
	}
	if p.ShimPath == "" || !filepath.IsAbs(p.ShimPath) && !strings.HasPrefix(p.ShimPath, "/") && !isWindowsAbs(p.ShimPath) {
		return p, fmt.Errorf("the shim path must be absolute (clients do not search the shell's PATH): %q", p.ShimPath)
	}
	if Shared(c, p) {
		p.ShimPath = ShimName
	}
	return p, nil
}

// entry is the server entry for a JSON client.
func entry(c Client, f Form, p Params) (any, error) {
	p, err := entryParams(c, f, p)
	if err != nil {
		return nil, err
	}
	if f == Stdio {
		return c.stdio(p), nil
	}
	b, err := bearer(c, p)
	if err != nil {
		return nil, err
	}
	return c.http(p, b), nil
}

func isWindowsAbs(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') ||
		strings.HasPrefix(p, `\\`)
}

// vscodeInput is VS Code's password prompt for the token (HTTP form).
func vscodeInput(name string) obj {
	return obj{{"type", "promptString"}, {"id", vscodeInputID(name)}, {"description", "mcptray client token (shown once by `mcptray config vscode --http --install`)"}, {"password", true}}
}

// Snippet is the smallest complete config file for the client holding only
// mcptray's entry: what `mcptray config CLIENT --print` shows.
func Snippet(c Client, f Form, p Params) ([]byte, error) {
	return Merge(c, nil, f, p)
}

// Merge returns existing with mcptray's entry set (added, or replaced when
// the name exists), touching nothing else: line ends and a missing final
// newline are kept. An empty existing makes a new file. A malformed file
// is an error and nothing is returned.
func Merge(c Client, existing []byte, f Form, p Params) ([]byte, error) {
	var out []byte
	var err error
	src := existing
	if len(bytes.TrimSpace(src)) == 0 {
		// A blank file is a new one: its blanks (a lone CR) kept in front
		// of the entry would read as another first line on the next merge.
		src = nil
	}
	switch c.Format {
	case TOML:
		out, err = mergeTOML(c, src, f, p)
	case YAML:
		out, err = mergeYAML(c, src, f, p)
	case ContinueYAML:
		out, err = mergeContinue(c, src, f, p)
	default:
		out, err = mergeJSON(c, src, f, p)
	}
	if err != nil {
		return nil, err
	}
	return keepLineEnds(existing, out), nil
}

// Remove returns existing without mcptray's entry named name (and, for VS
// Code, without its token input), touching nothing else. It reports false
// when there was no such entry. For a file of mcptray's own (OwnFile), no
// entry left means no file: nil.
func Remove(c Client, existing []byte, name string) ([]byte, bool, error) {
	if name == "" {
		name = DefaultName
	}
	if len(bytes.TrimSpace(existing)) == 0 {
		return existing, false, nil
	}
	var out []byte
	var found bool
	var err error
	switch c.Format {
	case TOML:
		out, found, err = removeTOML(c, existing, name)
	case YAML:
		out, found, err = removeYAML(c, existing, name)
	case ContinueYAML:
		out, found, err = removeContinue(c, existing, name)
	default:
		out, found, err = removeJSON(c, existing, name)
	}
	if err != nil || !found {
		return existing, false, err
	}
	if c.OwnFile {
		if left, err := entryNames(c, out); err == nil && len(left) == 0 {
			return nil, true, nil
		}
	}
	return keepLineEnds(existing, out), true, nil
}

func mergeJSON(c Client, existing []byte, f Form, p Params) ([]byte, error) {
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
	// One edit, then parse again for the next: the spans stay valid.
	if m := root.get(c.RootKey); m != nil {
		if err := d.setMember(m.val, p.name(), e); err != nil {
			return nil, err
		}
	} else if err := d.setMember(root, c.RootKey, obj{{p.name(), e}}); err != nil {
		return nil, err
	}
	if c.ID == "vscode" && f == HTTP {
		if err := setVSCodeInput(d, p.name()); err != nil {
			return nil, err
		}
	}
	out := d.src
	// The result must parse, and hold the entry.
	if ok, err := hasEntry(c, out, p.name()); err != nil || !ok {
		return nil, fmt.Errorf("internal error: the merged file does not hold the entry (%v)", err)
	}
	return out, nil
}

// setVSCodeInput adds (or replaces) the password input the entry name's
// token is asked with.
func setVSCodeInput(d *doc, name string) error {
	root, err := parseJSONC(d.src)
	if err != nil {
		return err
	}
	in := root.get("inputs")
	switch {
	case in == nil:
		return d.setMember(root, "inputs", []any{vscodeInput(name)})
	case in.val.kind != kindArray:
		return errors.New(`"inputs" in the file is not an array; it was left untouched`)
	}
	if el := vscodeInputElem(d, in.val, name); el != nil {
		if same, err := d.holds(el, vscodeInput(name)); err != nil || same {
			return err // as it should be already: left as it is written
		}
		text, err := d.render(vscodeInput(name), d.lineIndent(el.start))
		if err != nil {
			return err
		}
		d.splice(el.start, el.end, text)
		return nil
	}
	return d.appendElem(in.val, vscodeInput(name))
}

// vscodeInputElem finds the input of the entry name's token in inputs.
func vscodeInputElem(d *doc, inputs *node, name string) *node {
	for _, el := range inputs.elems {
		var v struct {
			ID string `json:"id"`
		}
		if el.kind == kindObject && d.decode(el, &v) == nil && v.ID == vscodeInputID(name) {
			return el
		}
	}
	return nil
}

func removeJSON(c Client, existing []byte, name string) ([]byte, bool, error) {
	d, root, err := newDoc(existing)
	if err != nil {
		return nil, false, fmt.Errorf("the file is not valid JSON (%w); it was left untouched — fix it or move it away, then try again", err)
	}
	m := root.get(c.RootKey)
	if m == nil || m.val.kind != kindObject || m.val.get(name) == nil {
		return nil, false, nil
	}
	d.deleteMember(m.val, name)
	if c.ID == "vscode" {
		root, err := parseJSONC(d.src)
		if err != nil {
			return nil, false, err
		}
		if in := root.get("inputs"); in != nil && in.val.kind == kindArray {
			if el := vscodeInputElem(d, in.val, name); el != nil {
				if len(in.val.elems) == 1 {
					// mcptray added the inputs with its own: both go.
					d.deleteMember(root, "inputs")
				} else {
					d.deleteElem(in.val, el)
				}
			}
		}
	}
	if _, err := parseJSONC(d.src); err != nil {
		return nil, false, fmt.Errorf("internal error: the file without the entry does not parse (%v); it was left untouched", err)
	}
	return d.src, true, nil
}

// Configured reports whether a config file's content has mcptray's entry.
func Configured(c Client, content []byte, name string) (bool, error) {
	if len(bytes.TrimSpace(content)) == 0 {
		return false, nil
	}
	if name == "" {
		name = DefaultName
	}
	return hasEntry(c, content, name)
}

func hasEntry(c Client, content []byte, name string) (bool, error) {
	names, err := entryNames(c, content)
	if err != nil {
		return false, err
	}
	_, ok := names[name]
	return ok, nil
}

// entryNames lists the servers a config file defines, each with its
// entry decoded.
func entryNames(c Client, content []byte) (map[string]map[string]any, error) {
	switch c.Format {
	case TOML:
		return tomlEntries(c, content)
	case YAML:
		return yamlEntries(c, content)
	case ContinueYAML:
		return continueEntries(c, content)
	}
	out := map[string]map[string]any{}
	if len(bytes.TrimSpace(content)) == 0 {
		return out, nil
	}
	d, root, err := newDoc(content)
	if err != nil {
		return nil, err
	}
	m := root.get(c.RootKey)
	if m == nil || m.val.kind != kindObject {
		return out, nil
	}
	for _, mem := range m.val.members {
		var v map[string]any
		if err := d.decode(mem.val, &v); err == nil {
			out[mem.key] = v
		}
	}
	return out, nil
}
