package clientconfig

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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
		notes: map[string]string{"github": `"Bearer ${input:gh-token}", which VS Code fills in`}},
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
