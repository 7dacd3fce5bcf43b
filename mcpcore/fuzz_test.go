package mcpcore

// Fuzz targets for the parsers at mcpcore's boundaries: catalog import,
// the router's peek at a request body, and the folder-template path
// resolver. `make fuzz` runs each for FUZZTIME; `make test` for a few
// seconds. Seeds are in testdata/fuzz/<target>/, next to those added here.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/catalog"
)

func FuzzParseCatalog(f *testing.F) {
	for _, name := range []string{"conformance.json", "starter.json"} {
		if b, err := os.ReadFile(filepath.Join("..", "examples", name)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"format":"mcptray-catalog","version":1,"tools":[{"name":"a","name":"b"}]}`))
	f.Add([]byte("\xef\xbb\xbf{\"format\":\"mcptray-catalog\",\"version\":1}"))
	f.Add([]byte(`{"format":"mcptray-catalog","version":1,"tools":[{"name":"d","description":"D.","inputSchema":` +
		strings.Repeat(`{"a":`, 100) + `1` + strings.Repeat(`}`, 100) + `,"action":{"respond":{"content":[{"type":"text","text":"x"}]}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCatalog(data)
		if err != nil {
			return
		}
		// What parses is written back in a form that parses to the same.
		out, err := catalog.Marshal(c)
		if err != nil {
			t.Fatalf("a parsed catalog does not encode: %v", err)
		}
		again, err := ParseCatalog(out)
		if err != nil {
			t.Fatalf("an exported catalog does not parse: %v\n%s", err, out)
		}
		if back, _ := catalog.Marshal(again); !bytes.Equal(back, out) {
			t.Fatalf("export, import, export changed the catalog:\n%s\n%s", out, back)
		}
	})
}

func FuzzRouterPeek(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`), "", "")
	f.Add([]byte(`{"jsonrpc":"2.0","id":"x","method":"initialize","params":{}}`), "", "")
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"abc"}}`), "2026-07-28", "")
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), "2025-11-25", "session")
	f.Add([]byte(`{"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":null}}}`), "1999-01-01", "")
	f.Fuzz(func(t *testing.T, body []byte, version, session string) {
		var msg message
		if json.Unmarshal(body, &msg) != nil {
			return // answered as a parse error before the peek
		}
		modern := isModern(session, version, &msg, body)
		if version != "" && modern == contains(legacyVersions, version) {
			t.Fatalf("version header %q routed modern=%v", version, modern)
		}
		mv, ok := metaVersion(body)
		if ok != hasModernMeta(body) || (!ok && mv != "") {
			t.Fatalf("metaVersion %q %v, hasModernMeta %v", mv, ok, hasModernMeta(body))
		}
		if version == "" && session == "" && ok && !modern {
			t.Fatalf("a body with _meta protocolVersion was routed to 2025-11-25")
		}
		if isTaskMethod(msg.Method) {
			if problem := checkTaskName([]string{version}, body); problem == "" && strings.TrimSpace(version) == "" {
				var p struct {
					Params struct {
						TaskID any `json:"taskId"`
					} `json:"params"`
				}
				_ = json.Unmarshal(body, &p)
				if id, _ := p.Params.TaskID.(string); id != "" {
					t.Fatalf("an empty Mcp-Name matched task id %q", id)
				}
			}
		}
		_ = checkDepth(body)
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func FuzzFolderPath(f *testing.F) {
	for _, rel := range []string{"a.md", "/a.md", "../secret.txt", "sub/../a.md", "sub/b.md", "./a.md", "sub//b.md",
		"%2e%2e/secret.txt", "..\\secret.txt", "link/secret.txt", "sub/", "a.md\x00", ""} {
		f.Add(rel)
	}
	base := f.TempDir()
	folder := filepath.Join(base, "notes")
	if err := os.MkdirAll(filepath.Join(folder, "sub"), 0o755); err != nil {
		f.Fatal(err)
	}
	const inside, outside = "inside", "SECRET"
	for _, p := range []string{filepath.Join(folder, "a.md"), filepath.Join(folder, "sub", "b.md")} {
		if err := os.WriteFile(p, []byte(inside), 0o600); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(base, "secret.txt"), []byte(outside), 0o600); err != nil {
		f.Fatal(err)
	}
	_ = os.Symlink(base, filepath.Join(folder, "link")) // no symlinks on some Windows setups
	f.Fuzz(func(t *testing.T, rel string) {
		b, err := readInFolder(folder, rel)
		if err == nil && string(b) != inside {
			t.Fatalf("%q read %q: a path left the folder", rel, b)
		}
	})
}
