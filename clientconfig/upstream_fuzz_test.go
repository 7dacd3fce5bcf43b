package clientconfig

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// fuzzApps are the files FuzzReadServers reads its input as: one of each
// syntax and shape of server list.
var fuzzApps = []struct{ id, file string }{
	{"claude-code", ".claude.json"}, {"vscode", "mcp.json"}, {"codex", "config.toml"},
	{"goose", "config.yaml"}, {"continue", "config.yaml"}, {"gemini", "settings.json"},
}

// FuzzReadServers: whatever an app's file holds, reading its servers and
// proposing them never panics, nor does the preview; and taking an entry
// out (as a move does) either is refused or leaves a file that reads
// without that entry and with every other one.
func FuzzReadServers(f *testing.F) {
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "import", "*"))
	for _, p := range fixtures {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for i := range fuzzApps {
			f.Add(b, uint8(i))
		}
	}
	f.Add([]byte(`{"mcpServers":{"a":{"command":"x"},"a":{"url":"y"}}}`), uint8(0))
	f.Add([]byte("[mcp_servers]\na = {command = \"x\"}\n"), uint8(2))
	f.Fuzz(func(t *testing.T, content []byte, app uint8) {
		a := fuzzApps[int(app)%len(fuzzApps)]
		c := ForFile(mustLookup(a.id), a.file)
		entries, err := ReadServers(c, a.file, content)
		if err != nil {
			return
		}
		imp, err := Propose(entries, ImportOptions{ShimPath: shim})
		if err != nil {
			t.Fatalf("Propose without Only: %v", err)
		}
		_ = imp.Preview()
		for _, e := range entries {
			out, err := removeServer(c, content, e.Source)
			if err != nil {
				continue // refused: nothing is written
			}
			left, err := ReadServers(c, a.file, out)
			if err != nil {
				t.Fatalf("without %s the file does not read: %v\n%s", e.Name, err, out)
			}
			for _, o := range entries {
				there := slices.ContainsFunc(left, func(l Entry) bool { return l.Name == o.Name && l.Project == o.Project })
				if same := o.Name == e.Name && o.Project == e.Project; there == same {
					t.Fatalf("taking out %s/%s: %s/%s there = %v\n%s\n---\n%s", e.Project, e.Name, o.Project, o.Name, there, content, out)
				}
			}
		}
	})
}
