package clientconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/catalog"
)

// shim is mcptray's shim as the import tests install it.
const shim = "/opt/mcptray/mcptray-stdio"

// copyFixture copies testdata/import/name into a temporary folder, under
// the name as, and returns its path.
func copyFixture(t *testing.T, name, as string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "import", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), as)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readImport reads one file of the app id.
func readImport(t *testing.T, id, path string, o ImportOptions) Import {
	t.Helper()
	imp, err := ReadImport([]AppFile{{Client: ForFile(mustLookup(id), path), Path: path}}, o)
	if err != nil {
		t.Fatal(err)
	}
	return imp
}

// appCase is what an app's fixture must give.
type appCase struct {
	id, fixture, as string
	servers         []string // proposed names, in order
	kinds           []string // "stdio", "streamable" or "sse", per server
	secrets         []string
	kept            map[string][]string // server → its kept fields
	skipped         []string            // entry names left out
	notes           map[string]string   // server → text one of its notes holds
}

var appCases = []appCase{
	{id: "claude-desktop", fixture: "claude_desktop_config.json", servers: []string{"github", "brave"}, kinds: []string{"stdio", "stdio"},
		secrets: []string{"github_GITHUB_PERSONAL_ACCESS_TOKEN", "brave_BRAVE_API_KEY"},
		kept:    map[string][]string{"github": {"alwaysAllow"}}, skipped: []string{"mcptray"}},
	{id: "claude-code", fixture: "claude.json", as: ".claude.json", servers: []string{"sentry", "db"}, kinds: []string{"streamable", "stdio"},
		secrets: []string{"sentry_Authorization", "db_PGPASSWORD"}},
	{id: "cursor", fixture: "mcp.json", servers: []string{"linear", "github"}, kinds: []string{"sse", "stdio"},
		notes: map[string]string{"github": `"${env:GITHUB_TOKEN}", which Cursor fills in`}},
	{id: "vscode", fixture: "vscode-mcp.json", as: "mcp.json", servers: []string{"github", "fs"}, kinds: []string{"streamable", "stdio"},
		kept:  map[string][]string{"fs": {"envFile"}},
		notes: map[string]string{"github": `"Bearer ${input:gh-token}", which VS Code asks for ("GitHub token")`}},
	{id: "windsurf", fixture: "mcp_config.json", servers: []string{"context7", "git"}, kinds: []string{"streamable", "stdio"},
		secrets: []string{"context7_CONTEXT7_API_KEY"}, kept: map[string][]string{"git": {"disabledTools"}}},
	{id: "codex", fixture: "codex-config.toml", as: "config.toml", servers: []string{"docs", "figma"}, kinds: []string{"stdio", "streamable"},
		secrets: []string{"docs_DOCS_TOKEN"}, kept: map[string][]string{"docs": {"startup_timeout_sec"}, "figma": {"bearer_token_env_var"}},
		notes: map[string]string{"figma": "bearer_token_env_var"}},
	{id: "gemini", fixture: "gemini-settings.json", as: "settings.json", servers: []string{"weather", "old", "py"}, kinds: []string{"streamable", "sse", "stdio"},
		secrets: []string{"weather_X-Api-Key"}, kept: map[string][]string{"weather": {"timeout", "trust"}},
		notes: map[string]string{"py": `"$MY_API_KEY"`}},
	{id: "zed", fixture: "zed-settings.json", as: "settings.json", servers: []string{"postgres", "old-style"}, kinds: []string{"stdio", "stdio"},
		kept: map[string][]string{"postgres": {"source"}}, skipped: []string{"ext"}},
	{id: "goose", fixture: "goose-config.yaml", as: "config.yaml", servers: []string{"fetch", "remote"}, kinds: []string{"stdio", "streamable"},
		secrets: []string{"fetch_FETCH_TOKEN", "remote_Authorization"}, kept: map[string][]string{"fetch": {"env_keys", "timeout", "description"}},
		skipped: []string{"developer"}},
	{id: "continue", fixture: "continue-config.yaml", as: "config.yaml", servers: []string{"sqlite", "remote-tools"}, kinds: []string{"stdio", "streamable"},
		secrets: []string{"remote-tools_X-Api-Key"}, kept: map[string][]string{"sqlite": {"connectionTimeout"}, "remote-tools": {"requestOptions"}}},
	{id: "lmstudio", fixture: "lmstudio-mcp.json", as: "mcp.json", servers: []string{"hf"}, kinds: []string{"streamable"}, secrets: []string{"hf_Authorization"}},
	{id: "cline", fixture: "cline_mcp_settings.json", servers: []string{"aws", "legacy"}, kinds: []string{"stdio", "sse"},
		kept: map[string][]string{"aws": {"autoApprove", "timeout"}}},
	{id: "copilot-cli", fixture: "mcp-config.json", servers: []string{"playwright", "gh"}, kinds: []string{"stdio", "streamable"},
		kept: map[string][]string{"playwright": {"tools"}, "gh": {"tools"}}, notes: map[string]string{"gh": "${GITHUB_TOKEN}"}},
}

// TestImportEachApp reads a real config file of each app (a fixture in
// testdata/import): the servers in the file's order, stdio or remote with
// the right transport, the credentials as secrets, the fields mcptray does
// not use kept with their values, and the entries left out.
func TestImportEachApp(t *testing.T) {
	for _, tc := range appCases {
		t.Run(tc.id, func(t *testing.T) {
			as := tc.as
			if as == "" {
				as = tc.fixture
			}
			path := copyFixture(t, tc.fixture, as)
			imp := readImport(t, tc.id, path, ImportOptions{ShimPath: shim})
			var names, kinds, secrets []string
			for _, p := range imp.Servers {
				names = append(names, p.Upstream.Name)
				switch {
				case p.Upstream.Command != nil:
					kinds = append(kinds, "stdio")
				default:
					kinds = append(kinds, p.Upstream.Remote.Transport)
				}
				for _, s := range p.Secrets {
					secrets = append(secrets, s.Name)
					if s.Value == "" {
						t.Errorf("%s: the secret %s is empty", p.Upstream.Name, s.Name)
					}
				}
				var kept []string
				for _, f := range p.Kept {
					kept = append(kept, f.Name)
				}
				if want := tc.kept[p.Upstream.Name]; !slices.Equal(kept, want) {
					t.Errorf("%s: kept %v, want %v", p.Upstream.Name, kept, want)
				}
				if want := tc.notes[p.Upstream.Name]; want != "" && !slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, want) }) {
					t.Errorf("%s: no note says %q: %q", p.Upstream.Name, want, p.Notes)
				}
				if problems := p.Upstream.Problems(); len(problems) > 0 {
					t.Errorf("%s: %v", p.Upstream.Name, problems)
				}
			}
			if !slices.Equal(names, tc.servers) || !slices.Equal(kinds, tc.kinds) {
				t.Errorf("servers %v %v, want %v %v", names, kinds, tc.servers, tc.kinds)
			}
			slices.Sort(secrets)
			want := slices.Sorted(slices.Values(tc.secrets))
			if !slices.Equal(secrets, want) {
				t.Errorf("secrets %v, want %v", secrets, want)
			}
			var skipped []string
			for _, s := range imp.Skipped {
				skipped = append(skipped, s.From.Name)
			}
			if !slices.Equal(skipped, tc.skipped) {
				t.Errorf("skipped %v, want %v", skipped, tc.skipped)
			}
		})
	}
}

// TestClientForFile: a file given by its path is read as the app whose
// file it is.
func TestClientForFile(t *testing.T) {
	for path, want := range map[string]string{
		"/home/ann/.config/Claude/claude_desktop_config.json":    "claude-desktop",
		"/home/ann/.claude.json":                                 "claude-code",
		"/home/ann/app/.mcp.json":                                "claude-code-project",
		"/home/ann/.cursor/mcp.json":                             "cursor",
		"/home/ann/.config/Code/User/mcp.json":                   "vscode",
		"/home/ann/app/.vscode/mcp.json":                         "vscode",
		"/home/ann/.codeium/windsurf/mcp_config.json":            "windsurf",
		"/home/ann/.config/zed/settings.json":                    "zed",
		"/home/ann/.codex/config.toml":                           "codex",
		"/home/ann/.gemini/settings.json":                        "gemini",
		"/home/ann/.copilot/mcp-config.json":                     "copilot-cli",
		"/home/ann/.lmstudio/mcp.json":                           "lmstudio",
		"/home/ann/.cline/data/settings/cline_mcp_settings.json": "cline",
		"/home/ann/.config/goose/config.yaml":                    "goose",
		"/home/ann/.continue/config.yaml":                        "continue",
		"/home/ann/.continue/mcpServers/tools.yaml":              "continue",
	} {
		c, ok := ClientForFile(path)
		if !ok || c.ID != want {
			t.Errorf("ClientForFile(%s) = %q, %v; want %s", path, c.ID, ok, want)
		}
	}
	if c, ok := ClientForFile("/home/ann/.continue/config.yaml"); c.Format != ContinueYAML || !ok {
		t.Errorf("Continue's config.yaml is read as %v", c.Format)
	}
	if _, ok := ClientForFile("/tmp/notes.json"); ok {
		t.Errorf("a file of no app is taken for one")
	}
}

// TestImportMalformed: a file that does not parse, or whose servers are
// not where the app keeps them in the shape it reads, is an error naming
// the file and the line.
func TestImportMalformed(t *testing.T) {
	for _, tc := range []struct{ id, as, content, line string }{
		{"claude-desktop", "claude_desktop_config.json", "{\n  \"mcpServers\": {\n    \"a\" {}\n  }\n}\n", "line 3"},
		{"cursor", "mcp.json", "{\n  \"mcpServers\": [\n  ]\n}\n", "line 2"},
		{"cursor", "mcp.json", "{\"mcpServers\": {\n\"a\": \"npx\"}}", "line 2"},
		{"vscode", "mcp.json", "// mine\n{\n  \"servers\": {\n    \"a\": {\"command\": \"x\",,}\n  }\n}\n", "line 4"},
		{"codex", "config.toml", "model = \"o3\"\n[mcp_servers.a]\ncommand = \n", "line 3"},
		{"goose", "config.yaml", "extensions:\n  a:\n    cmd: x\n\tenv: 1\n", "line 3"},
		{"goose", "config.yaml", "extensions:\n  a: just text\n", "line 2"},
		{"continue", "config.yaml", "mcpServers:\n  - command: x\n", "line 2"},
		{"continue", "config.yaml", "mcpServers:\n  name: x\n", "line 2"},
	} {
		path := filepath.Join(t.TempDir(), tc.as)
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadImport([]AppFile{{Client: ForFile(mustLookup(tc.id), path), Path: path}}, ImportOptions{})
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.line) {
			t.Errorf("%s %q: %v; want an error naming %s and %s", tc.id, tc.content, err, path, tc.line)
		}
	}
}

// TestImportAcrossApps: the same command line in two apps is one server,
// noted; a name given twice gets a second name; a secret name taken in
// the store is not reused; Only picks by the app's name and says which
// names there are when one is not there; mcptray's HTTP entry is skipped.
func TestImportAcrossApps(t *testing.T) {
	desktop := copyFixture(t, "claude_desktop_config.json", "claude_desktop_config.json")
	cursor := copyFixture(t, "mcp.json", "mcp.json")
	files := []AppFile{{mustLookup("claude-desktop"), desktop}, {mustLookup("cursor"), cursor}}
	o := ImportOptions{SecretTaken: func(n string) bool { return n == "brave_BRAVE_API_KEY" },
		UpstreamTaken: func(n string) bool { return n == "linear" }}
	imp, err := ReadImport(files, o)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range imp.Servers {
		names = append(names, p.Upstream.Name)
	}
	if !slices.Equal(names, []string{"github", "brave", "linear_2"}) {
		t.Fatalf("servers %v, want github, brave, linear_2", names)
	}
	gh := imp.Servers[0]
	if len(gh.Also) != 1 || gh.Also[0].File != cursor || !slices.ContainsFunc(gh.Notes, func(n string) bool { return strings.Contains(n, "also in github in Cursor") }) {
		t.Errorf("github's duplicate in Cursor: also %v, notes %q", gh.Also, gh.Notes)
	}
	if s := imp.Servers[1].Secrets; len(s) != 1 || s[0].Name != "brave_BRAVE_API_KEY_2" {
		t.Errorf("brave's secret %v, want brave_BRAVE_API_KEY_2 (the name is taken)", s)
	}

	only, err := ReadImport(files, ImportOptions{Only: []string{"brave"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(only.Servers) != 1 || only.Servers[0].Upstream.Name != "brave" {
		t.Errorf("Only brave gave %+v", only.Servers)
	}
	if !strings.Contains(only.Preview(), "not picked") {
		t.Errorf("the preview does not say what was not picked:\n%s", only.Preview())
	}
	if _, err := ReadImport(files, ImportOptions{Only: []string{"gitlab"}}); err == nil || !strings.Contains(err.Error(), "no server named gitlab") || !strings.Contains(err.Error(), "brave") {
		t.Errorf("Only a name not there: %v", err)
	}

	self := Entry{Source: Source{Client: "cursor", App: "Cursor", Name: "mine"}, Fields: map[string]any{"url": "http://127.0.0.1:8731/mcp/"}, Keys: []string{"url"}}
	imp, err = Propose([]Entry{self}, ImportOptions{URL: "http://127.0.0.1:8731/mcp"})
	if err != nil || len(imp.Servers) != 0 || len(imp.Skipped) != 1 || imp.Skipped[0].Why != "it is mcptray itself" {
		t.Errorf("mcptray's HTTP entry: %+v, %v", imp, err)
	}
}

// TestImportNamesAndValues: an app's name mcptray does not take is made
// one; a "{{" in a plain value stays text; a credential in an argument or
// the address is noted and masked in the preview, never made a secret.
func TestImportNamesAndValues(t *testing.T) {
	entries := []Entry{
		{Source: Source{Client: "cursor", App: "Cursor", File: "f", Name: "my.server (dev)"},
			Fields: map[string]any{"command": "srv", "args": []any{"--api-key", "abc123", "--port", 8080.0}, "env": map[string]any{"GREETING": "{{hi}}"}},
			Keys:   []string{"command", "args", "env"}},
		{Source: Source{Client: "cursor", App: "Cursor", File: "f", Name: "web"},
			Fields: map[string]any{"url": "https://x.example.com/mcp?api_key=s3cr3t&v=1"}, Keys: []string{"url"}},
	}
	imp, err := Propose(entries, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u := imp.Servers[0].Upstream
	if u.Name != "my_server_dev" || len(u.Problems()) > 0 {
		t.Errorf("name %q, problems %v", u.Name, u.Problems())
	}
	if !slices.Equal(u.Command.Argv, []string{"srv", "--api-key", "abc123", "--port", "8080"}) {
		t.Errorf("argv %q", u.Command.Argv)
	}
	if got := u.Command.Env["GREETING"]; got != `{{"{{"}}hi}}` {
		t.Errorf("a plain value with {{ is %q", got)
	}
	pv := imp.Preview()
	for _, leak := range []string{"abc123", "s3cr3t"} {
		if strings.Contains(pv, leak) {
			t.Errorf("the preview shows %s:\n%s", leak, pv)
		}
	}
	for _, want := range []string{"--api-key ••••", "api_key=••••", "argument 2 looks like a credential", "the address holds a credential"} {
		if !strings.Contains(pv, want) {
			t.Errorf("the preview does not say %q:\n%s", want, pv)
		}
	}
	if len(imp.SecretValues()) != 0 {
		t.Errorf("secrets %v, want none", imp.SecretValues())
	}
}

// TestServerFiles: the files read for an app are the ones that exist;
// for Continue every file of its mcpServers folder but mcptray's own, and
// its config.yaml.
func TestServerFiles(t *testing.T) {
	home := t.TempDir()
	e := Env{GOOS: "linux", Home: home, Glob: func(p string) []string { m, _ := filepath.Glob(p); return m }}
	dir := filepath.Join(home, ".continue", "mcpServers")
	for _, f := range []string{"mcptray.json", "tools.yaml", "other.json", "notes.txt"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, f := range ServerFiles(mustLookup("continue"), e) {
		got = append(got, fmt.Sprintf("%s:%d", filepath.Base(f.Path), f.Client.Format))
	}
	if want := []string{fmt.Sprintf("other.json:%d", JSON), fmt.Sprintf("tools.yaml:%d", ContinueYAML)}; !slices.Equal(got, want) {
		t.Errorf("Continue's files %v", got)
	}
	if fs := ServerFiles(mustLookup("cursor"), e); len(fs) != 0 {
		t.Errorf("Cursor's files %v, want none (there is none)", fs)
	}
}

// TestImportPreview: what a person reads before an import, in full.
func TestImportPreview(t *testing.T) {
	var entries []Entry
	for _, f := range []struct{ id, fixture, path string }{
		{"claude-desktop", "claude_desktop_config.json", "/home/ann/.config/Claude/claude_desktop_config.json"},
		{"vscode", "vscode-mcp.json", "/home/ann/.config/Code/User/mcp.json"},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "import", f.fixture))
		if err != nil {
			t.Fatal(err)
		}
		es, err := ReadServers(mustLookup(f.id), f.path, b)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, es...)
	}
	imp, err := Propose(entries, ImportOptions{ShimPath: shim})
	if err != nil {
		t.Fatal(err)
	}
	want := `From Claude Desktop (/home/ann/.config/Claude/claude_desktop_config.json):
  github — starts the command: npx -y @modelcontextprotocol/server-github
    environment variable GITHUB_PERSONAL_ACCESS_TOKEN = {{secret "github_GITHUB_PERSONAL_ACCESS_TOKEN"}}
    environment variable LOG_LEVEL = info
    kept, not used: alwaysAllow
  brave — starts the command: npx -y @modelcontextprotocol/server-brave-search
    environment variable BRAVE_API_KEY = {{secret "brave_BRAVE_API_KEY"}}
From VS Code (/home/ann/.config/Code/User/mcp.json):
  github_2 ("github" in the app) — connects to https://api.githubcopilot.com/mcp/ (streamable HTTP)
    header Authorization = Bearer ${input:gh-token}
    note: named github_2: another server has the name github
    note: header Authorization is "Bearer ${input:gh-token}", which VS Code asks for ("GitHub token") when it starts the server and mcptray does not: give mcptray the value (a secret) after the import
  fs — starts the command: npx -y @modelcontextprotocol/server-filesystem /home/ann
    kept, not used: envFile
    note: in VS Code it reads environment variables from a file (envFile), which mcptray does not: give them as environment variables
To the secret store (2 secrets, values not shown):
  github_GITHUB_PERSONAL_ACCESS_TOKEN — environment variable GITHUB_PERSONAL_ACCESS_TOKEN of github (40 characters)
  brave_BRAVE_API_KEY — environment variable BRAVE_API_KEY of brave (25 characters)
Left out:
  mcptray in Claude Desktop (/home/ann/.config/Claude/claude_desktop_config.json): it is mcptray itself
`
	if got := imp.Preview(); got != want {
		t.Errorf("the preview is\n%s\nwant\n%s", got, want)
	}
}

// TestImportDialects: what each app writes its own way — Continue's
// apiKey, Windows' shim path (mcptray itself, said so even when not
// picked), a picked entry that is left out (no error: the preview says
// why).
func TestImportDialects(t *testing.T) {
	entries := []Entry{
		{Source: Source{Client: "continue", App: "Continue", Name: "tools"},
			Fields: map[string]any{"name": "tools", "type": "sse", "url": "https://t.example.com/sse", "apiKey": "k-123"},
			Keys:   []string{"name", "type", "url", "apiKey"}},
		{Source: Source{Client: "claude-desktop", App: "Claude Desktop", Name: "mine"},
			Fields: map[string]any{"command": `C:\Program Files\mcptray\mcptray-stdio.exe`}, Keys: []string{"command"}},
		{Source: Source{Client: "goose", App: "Goose", Name: "developer"},
			Fields: map[string]any{"type": "builtin", "enabled": true}, Keys: []string{"type", "enabled"}},
	}
	imp, err := Propose(entries, ImportOptions{Only: []string{"tools", "developer"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.Servers) != 1 {
		t.Fatalf("servers %+v", imp.Servers)
	}
	r := imp.Servers[0].Upstream.Remote
	if r.Transport != catalog.UpstreamSSE || r.Headers["Authorization"] != `Bearer {{secret "tools_Authorization"}}` || len(imp.Servers[0].Kept) != 0 {
		t.Errorf("Continue's apiKey: %+v, kept %v", r, imp.Servers[0].Kept)
	}
	if v := imp.SecretValues()["tools_Authorization"]; v != "k-123" {
		t.Errorf("the apiKey's secret is %q", v)
	}
	var why []string
	for _, s := range imp.Skipped {
		why = append(why, s.From.Name+": "+s.Why)
	}
	want := []string{"mine: it is mcptray itself", "developer: it is part of Goose (type builtin), not a server of its own"}
	if !slices.Equal(why, want) {
		t.Errorf("left out %q, want %q", why, want)
	}
}
