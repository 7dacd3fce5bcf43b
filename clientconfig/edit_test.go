package clientconfig

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// existing is a realistic config file of each format with another server
// in it, comments where the format has them.
func existing(c Client) string {
	switch c.Format {
	case TOML:
		return "# Codex\nmodel = \"gpt-5\"\n\n[mcp_servers.other]\ncommand = \"npx\" # keep\n\n[profiles.fast]\nmodel = \"o3\"\n"
	case YAML:
		return "GOOSE_PROVIDER: anthropic # mine\nextensions:\n  developer:\n    enabled: true\n    type: builtin\n    name: developer\n    timeout: 300\n# the end\nGOOSE_MODE: smart_approve\n"
	case JSONC:
		return "// settings\n{\n  \"theme\": \"dark\", // keep\n  \"" + c.RootKey + "\": {\n    \"other\": {\"command\": \"/bin/other\"},\n  },\n}\n"
	}
	return "{\n  \"theme\": \"dark\",\n  \"" + c.RootKey + "\": {\n    \"other\": {\n      \"command\": \"/bin/other\"\n    }\n  }\n}\n"
}

// TestRemoveUndoesMerge: for every client and form, installing into a
// file with another server and removing again gives the file back byte
// for byte, whatever its line ends and final newline.
func TestRemoveUndoesMerge(t *testing.T) {
	for _, c := range Clients() {
		for _, f := range []Form{Stdio, HTTP} {
			if f == HTTP && !c.HTTP {
				continue
			}
			for _, variant := range []string{"lf", "crlf", "no final newline"} {
				in := existing(c)
				switch variant {
				case "crlf":
					in = strings.ReplaceAll(in, "\n", "\r\n")
				case "no final newline":
					in = strings.TrimSuffix(in, "\n")
				}
				name := fmt.Sprintf("%s/%s/%s", c.ID, f, variant)
				merged, err := Merge(c, []byte(in), f, params)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if ok, err := Configured(c, merged, ""); !ok || err != nil {
					t.Fatalf("%s: not configured (%v):\n%s", name, err, merged)
				}
				if variant == "crlf" && bytes.Contains(bytes.ReplaceAll(merged, []byte("\r\n"), nil), []byte("\n")) {
					t.Errorf("%s: LF lines in a CRLF file:\n%q", name, merged)
				}
				if variant == "no final newline" && bytes.HasSuffix(merged, []byte("\n")) {
					t.Errorf("%s: a final newline was added", name)
				}
				if variant == "lf" && !bytes.HasSuffix(merged, []byte("\n")) {
					t.Errorf("%s: the final newline was lost", name)
				}
				out, found, err := Remove(c, merged, "")
				if err != nil || !found {
					t.Fatalf("%s: remove: %v, found %v", name, err, found)
				}
				if string(out) != in {
					t.Errorf("%s: remove did not undo the merge:\n%q\nwant\n%q", name, out, in)
				}
				if _, found, _ := Remove(c, out, ""); found {
					t.Errorf("%s: removed twice", name)
				}
			}
		}
	}
}

// TestRemoveKeepsOtherEntries: removing takes out mcptray's entry only —
// from the middle, the end, or a file where it is alone.
func TestRemoveKeepsOtherEntries(t *testing.T) {
	c := mustLookup("cursor")
	in := "{\"mcpServers\": {\"a\": {\"command\": \"/a\"}, \"mcptray\": {\"command\": \"/m\"}, \"b\": {\"command\": \"/b\"}}}\n"
	out, found, err := Remove(c, []byte(in), "")
	if err != nil || !found || string(out) != "{\"mcpServers\": {\"a\": {\"command\": \"/a\"}, \"b\": {\"command\": \"/b\"}}}\n" {
		t.Errorf("middle (%v): %s", err, out)
	}
	out, _, _ = Remove(c, []byte("{\"mcpServers\": {\"mcptray\": {\"command\": \"/m\"}}, \"x\": 1}"), "")
	if string(out) != "{\"mcpServers\": {}, \"x\": 1}" {
		t.Errorf("alone: %s", out)
	}
	// mcptray's own file goes when its last entry does.
	own := mustLookup("continue")
	snippet, _ := Snippet(own, Stdio, params)
	if out, found, err := Remove(own, snippet, ""); out != nil || !found || err != nil {
		t.Errorf("continue: %q, %v, %v", out, found, err)
	}
	// VS Code's token input goes with the entry; another input stays.
	v := mustLookup("vscode")
	merged, err := Merge(v, []byte("{\"inputs\": [{\"id\": \"gh\", \"type\": \"promptString\"}], \"servers\": {}}\n"), HTTP, params)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err = Remove(v, merged, "")
	if err != nil || strings.Contains(string(out), VSCodeInputID) || !strings.Contains(string(out), `"gh"`) {
		t.Errorf("vscode (%v):\n%s", err, out)
	}
	// Another name is another entry.
	p := params
	p.Name = "work"
	merged, _ = Merge(c, []byte(in), Stdio, p)
	out, _, _ = Remove(c, merged, "work")
	if string(out) != in {
		t.Errorf("named entry:\n%s", out)
	}
}

// TestGooseEdits: Goose's YAML keeps its other keys and comments, an empty
// flow mapping becomes a block, and an entry is replaced in place.
func TestGooseEdits(t *testing.T) {
	c := mustLookup("goose")
	in := existing(c)
	out, err := Merge(c, []byte(in), Stdio, params)
	if err != nil {
		t.Fatal(err)
	}
	want := "GOOSE_PROVIDER: anthropic # mine\nextensions:\n  developer:\n    enabled: true\n    type: builtin\n    name: developer\n    timeout: 300\n  mcptray:\n"
	if !strings.HasPrefix(string(out), want) || !strings.HasSuffix(string(out), "    timeout: 300\n# the end\nGOOSE_MODE: smart_approve\n") {
		t.Fatalf("merge:\n%s", out)
	}
	p := params
	p.ShimPath = "/usr/bin/mcptray-stdio"
	again, err := Merge(c, out, Stdio, p)
	if err != nil || strings.Count(string(again), "mcptray-stdio") != 1 || !strings.Contains(string(again), p.ShimPath) {
		t.Fatalf("replace (%v):\n%s", err, again)
	}
	flow, err := Merge(c, []byte("extensions: {}\nGOOSE_MODE: auto\n"), HTTP, params)
	if err != nil || !strings.HasPrefix(string(flow), "extensions:\n  mcptray:\n    enabled: true\n    type: streamable_http\n") || !strings.HasSuffix(string(flow), "GOOSE_MODE: auto\n") {
		t.Fatalf("flow (%v):\n%s", err, flow)
	}
	if _, err := Merge(c, []byte("extensions: {a: 1}\n"), Stdio, params); err == nil || !strings.Contains(err.Error(), "untouched") {
		t.Fatalf("inline mapping: %v", err)
	}
	if _, err := Merge(c, []byte("extensions:\n  - a\n - b\n"), Stdio, params); err == nil || !strings.Contains(err.Error(), "untouched") {
		t.Fatalf("bad YAML: %v", err)
	}
}

// TestDiffIsMinimal: a one-key change of a large file without a final
// newline (as Claude Code writes ~/.claude.json) or with CRLF line ends
// shows the change and a few lines, not the file; changes far apart show
// apart.
func TestDiffIsMinimal(t *testing.T) {
	var b strings.Builder
	b.WriteString("{\n")
	for i := range 400 {
		fmt.Fprintf(&b, "  \"key%d\": %d,\n", i, i)
	}
	b.WriteString("  \"mcpServers\": {}\n}")
	for _, in := range []string{b.String(), strings.ReplaceAll(b.String(), "\n", "\r\n")} {
		out, err := Merge(mustLookup("claude-code"), []byte(in), Stdio, params)
		if err != nil {
			t.Fatal(err)
		}
		d := Diff([]byte(in), out)
		if n := strings.Count(d, "\n") + 1; n > 15 || !strings.Contains(d, "… (399 lines unchanged)") || strings.Contains(d, "\r") {
			t.Errorf("%d lines:\n%s", n, d)
		}
		if strings.Count(d, "\n- ") != 1 || strings.Count(d, "\n+ ") < 5 {
			t.Errorf("the change:\n%s", d)
		}
	}
	old := "a\n1\n2\n3\n4\n5\n6\n7\nb\n"
	d := Diff([]byte(old), []byte("A\n1\n2\n3\n4\n5\n6\n7\nB\n"))
	if d != "- a\n+ A\n  1\n  2\n  … (3 lines unchanged)\n  6\n  7\n- b\n+ B" {
		t.Errorf("two changes:\n%s", d)
	}
}

func TestTokenNames(t *testing.T) {
	e := Env{GOOS: "linux", Home: "/home/ann", ProjectDir: "/src/app"}
	cursor := mustLookup("cursor")
	usual := Paths(cursor, e)[0]
	names := map[string]bool{}
	for _, n := range []string{
		TokenName(cursor, e, usual, ""),
		TokenName(cursor, e, usual, "work"),
		TokenName(cursor, e, "/src/app/.cursor/mcp.json", ""),
		TokenName(cursor, e, "/src/other/.cursor/mcp.json", ""),
		TokenName(mustLookup("claude-code-project"), e, "/src/app/.mcp.json", ""),
		TokenName(mustLookup("claude-code-project"), e, "/src/other/.mcp.json", ""),
	} {
		if names[n] || len(n) > 64 {
			t.Errorf("token name %q repeats or is too long", n)
		}
		names[n] = true
	}
	if TokenName(cursor, e, usual, "") != "cursor" {
		t.Errorf("the usual entry's token is %q, want the client's ID (as before)", TokenName(cursor, e, usual, ""))
	}
	if n := TokenName(cursor, e, usual, "my work/server"); n != "cursor.my_work_server" {
		t.Errorf("named: %q", n)
	}
	if TokenEnvName("my-work") != "MCPTRAY_TOKEN_MY_WORK" || TokenEnvName("") != TokenEnvVar {
		t.Errorf("env names: %q", TokenEnvName("my-work"))
	}
}

// TestSharedFileGetsAReference: a file meant to be shared names the
// environment variable, never a token, in each client's documented syntax;
// a client with no such syntax refuses the HTTP form there.
func TestSharedFileGetsAReference(t *testing.T) {
	p := params
	p.Shared = true
	for id, want := range map[string]string{
		"claude-code-project": `"Bearer ${MCPTRAY_TOKEN}"`,
		"claude-code":         `"Bearer ${MCPTRAY_TOKEN}"`,
		"cursor":              `"Bearer ${env:MCPTRAY_TOKEN}"`,
		"gemini":              `"Bearer ${MCPTRAY_TOKEN}"`,
		"vscode":              `"Bearer ${input:mcptray-token}"`,
	} {
		c := mustLookup(id)
		out, err := Snippet(c, HTTP, p)
		if err != nil || !strings.Contains(string(out), want) || strings.Contains(string(out), p.Token) {
			t.Errorf("%s (%v):\n%s", id, err, out)
		}
		if TokenInFile(c, p) {
			t.Errorf("%s: the token is said to be in a shared file", id)
		}
	}
	if _, err := Snippet(mustLookup("windsurf"), HTTP, p); err == nil || !strings.Contains(err.Error(), "stdio form") {
		t.Errorf("windsurf in a shared file: %v", err)
	}
	if how := TokenInstructions(mustLookup("claude-code-project"), params, "mcpt_x"); !strings.Contains(how, "MCPTRAY_TOKEN=mcpt_x") || !strings.Contains(how, "shared") {
		t.Errorf("instructions: %q", how)
	}
}

func TestInProject(t *testing.T) {
	home := t.TempDir()
	e := Env{GOOS: "linux", Home: home, ProjectDir: home}
	repo := filepath.Join(home, "src", "app")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".git"), 0o755); err != nil { // a dotfiles repo
		t.Fatal(err)
	}
	cursor := mustLookup("cursor")
	if !InProject(cursor, e, filepath.Join(repo, ".cursor", "mcp.json")) {
		t.Error("a project's .cursor/mcp.json is not shared")
	}
	if InProject(cursor, e, Paths(cursor, e)[0]) || InProject(cursor, e, filepath.Join(home, "elsewhere", "mcp.json")) {
		t.Error("the person's own file is taken as shared")
	}
	if !InProject(mustLookup("claude-code-project"), e, "/anywhere/.mcp.json") {
		t.Error(".mcp.json is not shared")
	}
}

// TestApplyMakesATokenPrivate: an existing file readable by others that
// will hold a live token is made readable only by its owner, its backup
// too, and Apply says what the mode was.
func TestApplyMakesATokenPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := mustLookup("cursor")
	pl, err := PlanInstall(c, path, HTTP, params)
	if err != nil || !pl.Private {
		t.Fatalf("plan: %+v, %v", pl, err)
	}
	done, err := pl.Apply()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, done.Backup} {
		if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v", p, st.Mode())
		}
	}
	if done.WasMode != 0o644 {
		t.Errorf("WasMode %v", done.WasMode)
	}
	// The stdio form holds no secret: the mode stays.
	other := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(other, []byte("{}\n"), 0o644)
	pl, _ = PlanInstall(c, other, Stdio, params)
	if done, err := pl.Apply(); err != nil || done.WasMode != 0 {
		t.Fatal(done, err)
	}
	if st, _ := os.Stat(other); st.Mode().Perm() != 0o644 {
		t.Errorf("stdio: mode %v", st.Mode())
	}
}

func TestPathOverrides(t *testing.T) {
	e := Env{GOOS: "linux", Home: "/home/ann", Vars: map[string]string{
		"CLAUDE_CONFIG_DIR": "/cfg/claude", "CODEX_HOME": "/cfg/codex", "GEMINI_CLI_HOME": "/cfg/g",
		"COPILOT_HOME": "/cfg/copilot", "CLINE_DIR": "/cfg/cline", "GOOSE_PATH_ROOT": "/cfg/goose",
		"CONTINUE_GLOBAL_DIR": "/cfg/continue", "XDG_CONFIG_HOME": "/cfg/xdg"}}
	for id, want := range map[string]string{
		"claude-code":    "/cfg/claude/.claude.json",
		"codex":          "/cfg/codex/config.toml",
		"gemini":         "/cfg/g/.gemini/settings.json",
		"copilot-cli":    "/cfg/copilot/mcp-config.json",
		"cline":          "/cfg/cline/data/settings/cline_mcp_settings.json",
		"goose":          "/cfg/goose/config/config.yaml",
		"vscode":         "/cfg/xdg/Code/User/mcp.json",
		"claude-desktop": "/cfg/xdg/Claude/claude_desktop_config.json",
	} {
		if got := Paths(mustLookup(id), e); len(got) != 1 || got[0] != want {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
	e.Vars = map[string]string{"CLINE_MCP_SETTINGS_PATH": "/x/cline.json"}
	if got := Paths(mustLookup("cline"), e); got[0] != "/x/cline.json" {
		t.Errorf("cline: %q", got)
	}
	e.Vars = nil
	for id, want := range map[string]string{
		"claude-code": "/home/ann/.claude.json",
		"copilot-cli": "/home/ann/.copilot/mcp-config.json",
		"lmstudio":    "/home/ann/.lmstudio/mcp.json",
		"cline":       "/home/ann/.cline/data/settings/cline_mcp_settings.json",
		"goose":       "/home/ann/.config/goose/config.yaml",
	} {
		if got := Paths(mustLookup(id), e); len(got) != 1 || got[0] != want {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
	// Continue: mcptray's own file for the IDE extension, config.yaml for
	// the CLI (and the IDE's local configuration).
	for dir, want := range map[string][]string{
		"":              {"/home/ann/.continue/mcpServers/mcptray.json", "/home/ann/.continue/config.yaml"},
		"/cfg/continue": {"/cfg/continue/mcpServers/mcptray.json", "/cfg/continue/config.yaml"},
	} {
		e.Vars = map[string]string{"CONTINUE_GLOBAL_DIR": dir}
		if got := Paths(mustLookup("continue"), e); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("continue (CONTINUE_GLOBAL_DIR=%q): %q, want %q", dir, got, want)
		}
	}
	win := Env{GOOS: "windows", Home: `C:\Users\ann`, Vars: map[string]string{"APPDATA": `C:\Users\ann\AppData\Roaming`}}
	if got := Paths(mustLookup("goose"), win); got[0] != `C:\Users\ann\AppData\Roaming\Block\goose\config\config.yaml` {
		t.Errorf("goose on Windows: %q", got)
	}
}
