package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/mcpcore"
)

// TestOSLinesSurviveExportAndImport: the command lines a tool holds per
// system go through `mcptray import` into the database and come back out
// of `mcptray export` as they were; a command without any is exported
// without the field, as before.
func TestOSLinesSurviveExportAndImport(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "x.db")
	src := `{"format": "mcptray-catalog", "version": 1, "tools": [
	  {"name": "now", "description": "The time.", "action": {"command": {"argv": ["date"], "dir": "/tmp",
	    "os": {"windows": {"argv": ["cmd", "/d", "/c", "echo %DATE% %TIME%"], "dir": "C:\\Users"}, "darwin": {"argv": ["date", "-u"]}}}}},
	  {"name": "plain", "description": "No lines per system.", "action": {"command": {"argv": ["true"]}}}
	]}`
	file := filepath.Join(dir, "in.json")
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, db, "import", file); err != nil {
		t.Fatalf("import: %q, %v", out, err)
	}
	out, err := run(t, db, "export")
	if err != nil {
		t.Fatal(err)
	}
	want, err := mcpcore.ParseCatalog([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got, err := mcpcore.ParseCatalog([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Tools, want.Tools) {
		t.Errorf("exported\n%+v\nwant\n%+v", got.Tools, want.Tools)
	}
	if n := strings.Count(out, `"os"`); n != 1 {
		t.Errorf("the export names \"os\" %d times, want once (the plain command has none):\n%s", n, out)
	}
	// A line for a system mcptray does not know is refused, with where.
	bad := strings.Replace(src, `"darwin"`, `"macos"`, 1)
	if err := os.WriteFile(file, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, db, "import", file); err == nil || !strings.Contains(err.Error(), "os.macos") {
		t.Errorf("importing a line for \"macos\": %v", err)
	}
}
