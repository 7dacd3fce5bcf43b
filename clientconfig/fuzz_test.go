package clientconfig

// Fuzz targets for the hand-written config merges (the JSONC splicer and
// the TOML table editor): whatever a person's file holds, a merge either
// refuses it or returns a file that has mcptray's entry, that a second
// merge leaves as it is, and from which the entry can be removed again.
// `make fuzz` runs each for FUZZTIME; `make test` for a few seconds. Seeds
// are in testdata/fuzz/<target>/.

import (
	"bytes"
	"strings"
	"testing"
)

func FuzzMergeJSONC(f *testing.F) {
	f.Add([]byte("{\n  // mine\n  \"servers\": {\"other\": {\"url\": \"x\"},},\n}\n"), false)
	f.Add([]byte("{\"servers\":{\"mcptray\":{\"command\":\"old\"}}}"), true)
	f.Add([]byte("/* c */ {\"inputs\": [], \"servers\": {}} // end"), true)
	f.Add([]byte("{\r\n\t\"servers\": {\r\n\t}\r\n}"), false)
	f.Add([]byte(""), false)
	fuzzMerge(f, "vscode")
}

func FuzzMergeJSON(f *testing.F) {
	f.Add([]byte("{\"mcpServers\":{\"a\":{\"command\":\"b\"}},\"theme\":\"dark\"}\n"), false)
	f.Add([]byte("{\"mcpServers\":{\"mcptray\":{\"url\":\"old\"}}}"), true)
	f.Add([]byte("{\"mcpServers\":[]}"), false)
	f.Add([]byte("\xef\xbb\xbf{}"), true)
	fuzzMerge(f, "claude-code")
}

func FuzzMergeTOML(f *testing.F) {
	f.Add([]byte("model = \"o3\"\n\n[mcp_servers.other]\ncommand = \"x\"\n"), false)
	f.Add([]byte("[mcp_servers.mcptray]\ncommand = \"old\"\n\n[mcp_servers.mcptray.env]\nA = \"b\"\n"), true)
	f.Add([]byte("[mcp_servers.\"mcptray\"]\nurl = 'x'\n[profiles.x]\n"), true)
	f.Add([]byte("a = [\n  1,\n]\r\n"), false)
	fuzzMerge(f, "codex")
}

// fuzzMerge checks the merge properties for the client id, in both forms,
// on the files wanted accepts (all when none is given).
func fuzzMerge(f *testing.F, id string, wanted ...func(existing []byte) bool) {
	c, ok := Lookup(id)
	if !ok {
		f.Fatalf("no client %q", id)
	}
	fuzzMergeClient(f, c, wanted...)
}

// fuzzMergeClient is fuzzMerge for the client c as it is.
func fuzzMergeClient(f *testing.F, c Client, wanted ...func(existing []byte) bool) {
	p := Params{ShimPath: "/opt/mcptray/mcptray-stdio", URL: "http://127.0.0.1:8731/mcp", Token: "mt_fuzz"}
	f.Fuzz(func(t *testing.T, existing []byte, http bool) {
		for _, w := range wanted {
			if !w(existing) {
				t.Skip()
			}
		}
		form := Stdio
		if http {
			form = HTTP
		}
		out, err := Merge(c, existing, form, p)
		if err != nil {
			return // a file it cannot edit safely is refused, untouched
		}
		if has, err := Configured(c, out, ""); err != nil || !has {
			t.Fatalf("after a merge the entry is not there (%v, %v):\n%s", has, err, out)
		}
		again, err := Merge(c, out, form, p)
		if err != nil {
			t.Fatalf("a merged file does not merge again: %v\n%s", err, out)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("merging twice changed the file:\n%s\n---\n%s", out, again)
		}
		left, found, err := Remove(c, out, "")
		if err != nil || !found {
			t.Fatalf("the merged entry cannot be removed (%v, %v):\n%s", found, err, out)
		}
		if has, err := Configured(c, left, ""); err != nil || has {
			t.Fatalf("after removing, the entry is still there (%v, %v):\n%s", has, err, left)
		}
	})
}

func FuzzMergeYAML(f *testing.F) {
	f.Add([]byte("extensions:\n  other:\n    cmd: x\n    enabled: true\nGOOSE_MODEL: o3\n"), false)
	f.Add([]byte("extensions:\n  mcptray:\n    type: stdio\n    cmd: old\n"), true)
	f.Add([]byte("# mine\nextensions: {}\n"), false)
	f.Add([]byte("!\r"), false) // a lone CR: refused, once merged twice differently
	fuzzMerge(f, "goose")
}

func FuzzMergeContinueYAML(f *testing.F) {
	f.Add([]byte("name: x\nmodels:\n  - name: m\n    provider: openai\nmcpServers:\n  - name: other\n    command: x\n# end\nrules: []\n"), false)
	f.Add([]byte("mcpServers:\n- command: old\n  name: mcptray\n- name: b\n"), true)
	f.Add([]byte("mcpServers: []\r\nname: x\r\n"), false)
	f.Add([]byte("mcpServers: # none\n"), true)
	fuzzMergeClient(f, ForFile(mustLookup("continue"), "config.yaml"))
}

// TestYAMLWithLoneCRIsRefused: the fuzzer's find, a Goose file whose lines
// end in a lone CR, is refused untouched rather than merged into a file
// that a second merge changes again.
func TestYAMLWithLoneCRIsRefused(t *testing.T) {
	c, _ := Lookup("goose")
	p := Params{ShimPath: "/opt/mcptray/mcptray-stdio"}
	for _, existing := range []string{"!\r", "GOOSE_MODEL: o3\rextensions: {}\r"} {
		if out, err := Merge(c, []byte(existing), Stdio, p); err == nil || !strings.Contains(err.Error(), "lone carriage return") {
			t.Errorf("Merge(%q) = %q, %v; want it refused, naming the lone CR", existing, out, err)
		}
	}
	if _, err := Merge(c, []byte("GOOSE_MODEL: o3\r\nextensions: {}\r\n"), Stdio, p); err != nil {
		t.Errorf("a CRLF file is refused: %v", err)
	}
}
