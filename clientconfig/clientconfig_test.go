package clientconfig

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var params = Params{
	ShimPath: "/Applications/mcptray.app/Contents/MacOS/mcptray-stdio",
	URL:      "http://127.0.0.1:8731/mcp",
	Token:    "mt_example_token",
}

func ext(c Client) string {
	switch c.Format {
	case TOML:
		return ".toml"
	case JSONC:
		return ".jsonc"
	case YAML:
		return ".yaml"
	}
	return ".json"
}

// TestGolden pins the exact file each client gets, in both forms.
func TestGolden(t *testing.T) {
	for _, c := range Clients() {
		for _, f := range []Form{Stdio, HTTP} {
			name := c.ID + "-" + f.String() + ext(c)
			t.Run(name, func(t *testing.T) {
				got, err := Snippet(c, f, params)
				if f == HTTP && !c.HTTP {
					if err != ErrNoHTTP {
						t.Fatalf("got %v, want ErrNoHTTP", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join("testdata", "golden", name)
				if *update {
					if err := os.WriteFile(path, got, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test -update)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("got:\n%s\nwant:\n%s", got, want)
				}
			})
		}
	}
}

// A Windows path with spaces is written as one JSON/TOML string: no cmd /c,
// no splitting, backslashes escaped (a shared file names no path).
func TestWindowsPathWithSpaces(t *testing.T) {
	p := params
	p.ShimPath = `C:\Program Files\mcptray\mcptray-stdio.exe`
	for _, c := range Clients() {
		out, err := Snippet(c, Stdio, p)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		entries, err := entryNames(c, out)
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.ID, err, out)
		}
		e := entries["mcptray"]
		want := p.ShimPath
		if Shared(c, p) {
			want = ShimName
		}
		if str(e, "command", "cmd") != want || len(e["args"].([]any)) != 0 {
			t.Errorf("%s: entry %v", c.ID, e)
		}
		if strings.Contains(string(out), "cmd") && strings.Contains(string(out), "/c") {
			t.Errorf("%s: cmd /c in %s", c.ID, out)
		}
	}
	if _, err := Snippet(clients[0], Stdio, Params{ShimPath: "mcptray-stdio"}); err == nil {
		t.Error("a relative shim path was accepted")
	}
}

func decodeJSONC(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(stripJSONC(b), &v); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return v
}

func mustLookup(id string) Client {
	c, ok := Lookup(id)
	if !ok {
		panic(id)
	}
	return c
}

func TestMergeKeepsOtherServersAndUnknownKeys(t *testing.T) {
	in := []byte(`{
    "globalShortcut": "Ctrl+Space",
    "mcpServers": {
        "filesystem": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/ann/Desktop"],
            "env": {"DEBUG": "1"}
        }
    },
    "preferences": {"x": [1, 2, {"y": null}]}
}
`)
	out, err := Merge(mustLookup("claude-desktop"), in, Stdio, params)
	if err != nil {
		t.Fatal(err)
	}
	before, after := decodeJSONC(t, in), decodeJSONC(t, out)
	servers := after["mcpServers"].(map[string]any)
	if _, ok := servers["mcptray"]; !ok {
		t.Fatalf("no mcptray entry:\n%s", out)
	}
	delete(servers, "mcptray")
	if !reflect.DeepEqual(before, after) {
		t.Errorf("other content changed:\n%s", out)
	}
	// The original text is kept byte for byte, with the entry added in the file's indentation.
	if !bytes.HasPrefix(out, in[:bytes.Index(in, []byte("\n        }"))]) || !strings.Contains(string(out), "\n        \"mcptray\": {\n            \"command\"") {
		t.Errorf("formatting not kept:\n%s", out)
	}
	// Installing again changes nothing; another shim path replaces the entry in place.
	again, err := Merge(mustLookup("claude-desktop"), out, Stdio, params)
	if err != nil || !bytes.Equal(again, out) {
		t.Errorf("second merge changed the file (%v):\n%s", err, again)
	}
	p2 := params
	p2.ShimPath = "/opt/mcptray/mcptray-stdio"
	moved, err := Merge(mustLookup("claude-desktop"), out, Stdio, p2)
	if err != nil || strings.Count(string(moved), "mcptray-stdio") != 1 || !strings.Contains(string(moved), p2.ShimPath) {
		t.Errorf("replacing the entry (%v):\n%s", err, moved)
	}
}

func TestMergeAddsRootKey(t *testing.T) {
	out, err := Merge(mustLookup("gemini"), []byte(`{"theme": "Dracula"}`), HTTP, params)
	if err != nil {
		t.Fatal(err)
	}
	v := decodeJSONC(t, out)
	if v["theme"] != "Dracula" || v["mcpServers"].(map[string]any)["mcptray"].(map[string]any)["httpUrl"] != params.URL {
		t.Errorf("got:\n%s", out)
	}
	out, err = Merge(mustLookup("cursor"), []byte("{\n  \"mcpServers\": {}\n}\n"), Stdio, params)
	if err != nil || !strings.Contains(string(out), "\"mcpServers\": {\n    \"mcptray\": {") {
		t.Errorf("empty servers object (%v):\n%s", err, out)
	}
}

func TestMergeJSONCKeepsComments(t *testing.T) {
	in := []byte(`// Zed settings
{
  /* the theme */
  "theme": "One Dark", // trailing comment
  "context_servers": {
    // my other server
    "other": { "command": "/usr/bin/other", "args": [], },
  },
  "vim_mode": true,
}
`)
	out, err := Merge(mustLookup("zed"), in, Stdio, params)
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []string{"// Zed settings", "/* the theme */", "// trailing comment", "// my other server", `"vim_mode": true,`} {
		if !strings.Contains(string(out), keep) {
			t.Errorf("lost %q:\n%s", keep, out)
		}
	}
	v := decodeJSONC(t, out)
	cs := v["context_servers"].(map[string]any)
	if cs["other"] == nil || cs["mcptray"].(map[string]any)["command"] != params.ShimPath {
		t.Errorf("servers: %v", cs)
	}
}

func TestMergeVSCodeInputs(t *testing.T) {
	in := []byte(`{
	// VS Code MCP
	"inputs": [
		{"type": "promptString", "id": "gh-token", "password": true}
	],
	"servers": {
		"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}
	}
}
`)
	c := mustLookup("vscode")
	out, err := Merge(c, in, HTTP, params)
	if err != nil {
		t.Fatal(err)
	}
	v := decodeJSONC(t, out)
	inputs := v["inputs"].([]any)
	if len(inputs) != 2 || inputs[1].(map[string]any)["id"] != VSCodeInputID || inputs[1].(map[string]any)["password"] != true {
		t.Errorf("inputs: %v\n%s", inputs, out)
	}
	e := v["servers"].(map[string]any)["mcptray"].(map[string]any)
	if e["headers"].(map[string]any)["Authorization"] != "Bearer ${input:mcptray-token}" || strings.Contains(string(out), params.Token) {
		t.Errorf("the token must come from the input, never the file:\n%s", out)
	}
	if !strings.Contains(string(out), "// VS Code MCP") || !strings.Contains(string(out), "\t\t\"mcptray\": {") {
		t.Errorf("comments or tabs lost:\n%s", out)
	}
	again, err := Merge(c, out, HTTP, params)
	if err != nil || !bytes.Equal(again, out) {
		t.Errorf("second merge changed the file (%v):\n%s", err, again)
	}
}

func TestMergeTOML(t *testing.T) {
	in := []byte(`# Codex config
model = "gpt-5"

[mcp_servers.other]
command = "npx"
args = ["-y", "other"] # keep me

[mcp_servers.mcptray]
command = "/old/path"
args = []

[mcp_servers.mcptray.env]
X = "1"

# profiles follow
[profiles.fast]
model = "gpt-5-mini"
`)
	c := mustLookup("codex")
	out, err := Merge(c, in, HTTP, params)
	if err != nil {
		t.Fatal(err)
	}
	want := `# Codex config
model = "gpt-5"

[mcp_servers.other]
command = "npx"
args = ["-y", "other"] # keep me

[mcp_servers.mcptray]
url = "http://127.0.0.1:8731/mcp"
bearer_token_env_var = "MCPTRAY_TOKEN"
tool_timeout_sec = 300

# profiles follow
[profiles.fast]
model = "gpt-5-mini"
`
	if string(out) != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	if strings.Contains(string(out), params.Token) {
		t.Error("Codex takes the token from the environment, never the file")
	}
	again, err := Merge(c, out, HTTP, params)
	if err != nil || !bytes.Equal(again, out) {
		t.Errorf("second merge changed the file (%v):\n%s", err, again)
	}
	added, err := Merge(c, []byte("model = \"o3\"\n"), Stdio, params)
	if err != nil || string(added) != "model = \"o3\"\n\n[mcp_servers.mcptray]\ncommand = \""+params.ShimPath+"\"\nargs = []\ntool_timeout_sec = 300\n" {
		t.Errorf("append (%v):\n%s", err, added)
	}
}

func TestMalformedFileLeftUntouched(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"claude-desktop": `{"mcpServers": {"a": {"command": "x"}`,
		"zed":            `{"context_servers": {"a": nope}}`,
		"codex":          "[mcp_servers.a\ncommand = 1\n",
		"cursor":         `{"mcpServers": []}`,
		"gemini":         `[1, 2]`,
	}
	for id, content := range cases {
		c := mustLookup(id)
		path := filepath.Join(dir, id+ext(c))
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := PlanInstall(c, path, Stdio, params)
		if err == nil || !strings.Contains(err.Error(), "untouched") {
			t.Errorf("%s: got %v, want an error saying the file was left untouched", id, err)
		}
		if b, _ := os.ReadFile(path); string(b) != content {
			t.Errorf("%s: the file changed", id)
		}
		if _, err := os.Stat(path + ".bak"); err == nil {
			t.Errorf("%s: a backup was written", id)
		}
	}
}

func TestApplyBacksUp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "claude_desktop_config.json")
	orig := []byte(`{"mcpServers": {"other": {"command": "/bin/other"}}}`)
	if err := os.WriteFile(path, orig, 0o640); err != nil {
		t.Fatal(err)
	}
	c := mustLookup("claude-desktop")
	pl, err := PlanInstall(c, path, Stdio, params)
	if err != nil || !pl.Changed {
		t.Fatal(err, pl.Changed)
	}
	done, err := pl.Apply()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(done.Backup); !bytes.Equal(b, orig) {
		t.Errorf("backup holds %q", b)
	}
	st, _ := os.Stat(path)
	if got, _ := os.ReadFile(path); !bytes.Equal(got, pl.New) || st.Mode().Perm() != 0o640 {
		t.Errorf("written %q mode %v", got, st.Mode())
	}
	if ok, err := Configured(c, pl.New, ""); !ok || err != nil {
		t.Errorf("Configured = %v, %v", ok, err)
	}
	// New files are private; nothing to back up.
	pl, err = PlanInstall(mustLookup("cursor"), filepath.Join(dir, "new", "mcp.json"), HTTP, params)
	if err != nil {
		t.Fatal(err)
	}
	if done, err := pl.Apply(); err != nil || done.Backup != "" {
		t.Fatal(done, err)
	}
	if st, _ := os.Stat(pl.Path); st.Mode().Perm() != 0o600 {
		t.Errorf("new file mode %v", st.Mode())
	}
}

func TestPaths(t *testing.T) {
	win := Env{GOOS: "windows", Home: `C:\Users\ann`, Vars: map[string]string{"APPDATA": `C:\Users\ann\AppData\Roaming`, "LOCALAPPDATA": `C:\Users\ann\AppData\Local`},
		Glob: func(p string) []string {
			if strings.HasSuffix(p, `Packages\Claude_*`) {
				return []string{`C:\Users\ann\AppData\Local\Packages\Claude_pzs8sxrjxfjjc`}
			}
			return nil
		}}
	got := Paths(mustLookup("claude-desktop"), win)
	want := []string{`C:\Users\ann\AppData\Local\Packages\Claude_pzs8sxrjxfjjc\LocalCache\Roaming\Claude\claude_desktop_config.json`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MSIX: %q", got)
	}
	win.Glob = func(p string) []string { return []string{p} } // both the package and the classic folder exist
	if got := Paths(mustLookup("claude-desktop"), win); len(got) != 2 || !strings.HasPrefix(got[1], `C:\Users\ann\AppData\Roaming\Claude`) {
		t.Errorf("MSIX + classic: %q", got)
	}
	win.Glob = func(string) []string { return nil }
	if got := Paths(mustLookup("claude-desktop"), win); len(got) != 1 || got[0] != `C:\Users\ann\AppData\Roaming\Claude\claude_desktop_config.json` {
		t.Errorf("classic: %q", got)
	}
	mac := Env{GOOS: "darwin", Home: "/Users/ann"}
	linux := Env{GOOS: "linux", Home: "/home/ann", ProjectDir: "/src/app"}
	for _, tc := range []struct {
		id   string
		env  Env
		want string
	}{
		{"claude-desktop", mac, "/Users/ann/Library/Application Support/Claude/claude_desktop_config.json"},
		{"claude-desktop", linux, "/home/ann/.config/Claude/claude_desktop_config.json"},
		{"claude-code", linux, "/home/ann/.claude.json"},
		{"claude-code-project", linux, "/src/app/.mcp.json"},
		{"cursor", win, `C:\Users\ann\.cursor\mcp.json`},
		{"vscode", mac, "/Users/ann/Library/Application Support/Code/User/mcp.json"},
		{"vscode", win, `C:\Users\ann\AppData\Roaming\Code\User\mcp.json`},
		{"vscode", linux, "/home/ann/.config/Code/User/mcp.json"},
		{"windsurf", linux, "/home/ann/.codeium/windsurf/mcp_config.json"},
		{"zed", linux, "/home/ann/.config/zed/settings.json"},
		{"zed", win, `C:\Users\ann\AppData\Roaming\Zed\settings.json`},
		{"codex", linux, "/home/ann/.codex/config.toml"},
		{"gemini", mac, "/Users/ann/.gemini/settings.json"},
	} {
		if got := Paths(mustLookup(tc.id), tc.env); len(got) != 1 || got[0] != tc.want {
			t.Errorf("%s on %s: %q, want %q", tc.id, tc.env.GOOS, got, tc.want)
		}
	}
}

func TestDiff(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\n"
	new := "a\nb\nc\nX\ne\nf\n"
	want := "  … (1 line unchanged)\n  b\n  c\n- d\n+ X\n  e\n  f"
	if got := Diff([]byte(old), []byte(new)); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := Diff(nil, []byte("{}\n")); got != "+ {}" {
		t.Errorf("new file: %q", got)
	}
}

func TestRunning(t *testing.T) {
	procs := map[string]bool{"code": true, "bash": true}
	if running, known := Running(mustLookup("vscode"), procs); !running || !known {
		t.Errorf("vscode: running %v, known %v", running, known)
	}
	if running, known := Running(mustLookup("cursor"), procs); running || !known {
		t.Errorf("cursor: running %v, known %v", running, known)
	}
	if _, known := Running(mustLookup("codex"), procs); known {
		t.Error("codex (a command-line client) is said to be recognisable")
	}
}

func TestSnippetIsLegible(t *testing.T) {
	p := params
	p.Token = TokenPlaceholder
	p.URL = "http://127.0.0.1:8731/mcp?a=1&b=2"
	b, err := Snippet(mustLookup("cursor"), HTTP, p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "Bearer "+TokenPlaceholder) || !strings.Contains(string(b), "a=1&b=2") {
		t.Errorf("escaped snippet:\n%s", b)
	}
}
