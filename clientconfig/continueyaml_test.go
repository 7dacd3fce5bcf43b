package clientconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cnConfig is a config.yaml as a person using Continue's CLI has it: the
// model cn's first start wrote, their own server, comments.
const cnConfig = `# my Continue setup
name: Local Config
version: 1.0.0
schema: v1
models:
  - name: claude
    provider: anthropic
    model: claude-sonnet-4-6
    apiKey: sk-ant-xxx # keep this
mcpServers:
  # the files server
  - name: files
    command: npx
    args: ["-y", "@modelcontextprotocol/server-filesystem", "/home/ann"]

# rules come last
rules:
  - Be brief.
`

func continueYAML(t *testing.T) Client {
	t.Helper()
	c := ForFile(mustLookup("continue"), "/home/ann/.continue/config.yaml")
	if c.Format != ContinueYAML || c.ExistingOnly == "" || c.OwnFile {
		t.Fatalf("ForFile: %+v", c)
	}
	return c
}

func TestContinueYAMLMerge(t *testing.T) {
	c := continueYAML(t)
	p := Params{ShimPath: "/usr/bin/mcptray-stdio"}
	item := "  - name: mcptray\n    command: \"/usr/bin/mcptray-stdio\"\n    args: []\n"
	out, err := Merge(c, []byte(cnConfig), Stdio, p)
	if err != nil {
		t.Fatal(err)
	}
	// After the last item, before the blank line and the comment that
	// belong to what follows; nothing else moves.
	want := strings.Replace(cnConfig, "/home/ann\"]\n", "/home/ann\"]\n"+item, 1)
	if string(out) != want {
		t.Fatalf("merged:\n%s\nwant:\n%s", out, want)
	}
	if again, err := Merge(c, out, Stdio, p); err != nil || string(again) != want {
		t.Errorf("merging again changed the file (%v):\n%s", err, again)
	}
	// An entry of another form is replaced where it is, its name not first.
	old := strings.Replace(cnConfig, "  # the files server\n", "  - command: /old/mcptray-stdio\n    name: mcptray\n    env: {A: b}\n", 1)
	out, err = Merge(c, []byte(old), Stdio, p)
	if want := strings.Replace(cnConfig, "  # the files server\n", item, 1); err != nil || string(out) != want {
		t.Errorf("replaced (%v):\n%s\nwant:\n%s", err, out, want)
	}
	// Taking it out gives back the person's file, byte for byte.
	merged, _ := Merge(c, []byte(cnConfig), Stdio, p)
	back, found, err := Remove(c, merged, "")
	if err != nil || !found || string(back) != cnConfig {
		t.Errorf("removed (%v, %v):\n%s", found, err, back)
	}
	// The HTTP form: Continue's headers sit under requestOptions, where
	// Check finds them.
	out, err = Merge(c, []byte(cnConfig), HTTP, Params{URL: "http://127.0.0.1:8731/mcp", Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := continueEntries(c, out)
	if err != nil {
		t.Fatal(err)
	}
	l, err := launchOf(c, e["mcptray"], nil)
	if err != nil || l.url != "http://127.0.0.1:8731/mcp" || l.headers["Authorization"] != "Bearer tok" || e["mcptray"]["type"] != "streamable-http" {
		t.Errorf("HTTP entry (%v): %+v from\n%s", err, l, out)
	}
}

func TestContinueYAMLShapes(t *testing.T) {
	c := continueYAML(t)
	p := Params{ShimPath: "/b/mcptray-stdio", Name: "true"}
	item := func(ind string) string {
		return ind + "- name: \"true\"\n" + ind + "  command: \"/b/mcptray-stdio\"\n" + ind + "  args: []\n"
	}
	for _, tc := range []struct{ name, in, want string }{
		{"no list, no final newline", "name: x\nversion: 1.0.0\nschema: v1", "name: x\nversion: 1.0.0\nschema: v1\nmcpServers:\n" + strings.TrimSuffix(item("  "), "\n")},
		{"empty list", "name: x\nmcpServers: []\nrules: []\n", "name: x\nmcpServers:\n" + item("  ") + "rules: []\n"},
		{"null list", "mcpServers: # none yet\nname: x\n", "mcpServers: # none yet\n" + item("  ") + "name: x\n"},
		{"dashes at the margin", "mcpServers:\n- name: a\n  command: a\nname: x\n", "mcpServers:\n- name: a\n  command: a\n" + item("") + "name: x\n"},
		{"CRLF", "name: x\r\nmcpServers:\r\n    - name: a\r\n      command: a\r\n",
			strings.ReplaceAll("name: x\nmcpServers:\n    - name: a\n      command: a\n"+item("    "), "\n", "\r\n")},
		{"flow item", "mcpServers:\n  - {name: a, command: a}\n", "mcpServers:\n  - {name: a, command: a}\n" + item("  ")},
	} {
		out, err := Merge(c, []byte(tc.in), Stdio, p)
		if err != nil || string(out) != tc.want {
			t.Errorf("%s (%v):\n%q\nwant\n%q", tc.name, err, out, tc.want)
			continue
		}
		if ok, _ := Configured(c, out, "true"); !ok {
			t.Errorf("%s: the entry named \"true\" is not found again", tc.name)
		}
	}
	// The last item out leaves an empty list: Continue refuses a null one.
	out, found, err := Remove(c, []byte("mcpServers:\n  # mine\n  - name: mcptray\n    command: x\nname: y\n"), "")
	if err != nil || !found || string(out) != "mcpServers: []\n  # mine\nname: y\n" {
		t.Errorf("last item (%v, %v): %q", found, err, out)
	}
	for in, want := range map[string]string{
		"mcpServers: [{name: a, command: a}]\n":   "inline",
		"mcpServers:\n  a: {command: a}\n":        "not a list",
		"mcpServers:\n  - name: a\n  - name: a\n": "twice",
		"mcpServers: [\n":                         "not valid YAML",
		"- a\n- b\n":                              "cannot unmarshal !!seq",
		"name: x\rmcpServers: []\n":               "carriage return",
	} {
		if _, err := Merge(c, []byte(in), Stdio, p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error saying %q", in, err, want)
		}
	}
}

func TestContinueConfigYAMLNeverCreated(t *testing.T) {
	dir := t.TempDir()
	c := mustLookup("continue")
	p := Params{ShimPath: "/b/mcptray-stdio"}
	e := Env{GOOS: "linux", Home: dir, Vars: map[string]string{}}
	paths := Paths(c, e)
	yamlPath := paths[1]
	pl, err := PlanInstall(c, yamlPath, Stdio, p)
	if err != nil || pl.Changed || pl.Note == "" || pl.New != nil {
		t.Fatalf("absent config.yaml: %+v, %v", pl, err)
	}
	if _, err := pl.Apply(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(yamlPath); !os.IsNotExist(err) {
		t.Fatalf("config.yaml was created: %v", err)
	}
	// mcptray's own file is created; an existing config.yaml is merged.
	pl, err = PlanInstall(c, paths[0], Stdio, p)
	if err != nil || !pl.Changed || !strings.Contains(string(pl.New), `"mcpServers"`) {
		t.Fatalf("own file: %+v, %v", pl, err)
	}
	if err := os.MkdirAll(filepath.Dir(yamlPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(yamlPath, []byte(cnConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	pl, err = PlanInstall(c, yamlPath, Stdio, p)
	if err != nil || !pl.Changed || !strings.Contains(string(pl.New), "- name: mcptray\n") {
		t.Fatalf("existing config.yaml: %+v, %v", pl, err)
	}
}
