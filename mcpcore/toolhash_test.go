package mcpcore

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/catalog"
)

// TestToolHashCoversOSLines: a remembered approval is bound to what runs
// on every system: editing the Windows line asks again, as editing the
// command's own line does. A command without such lines is written, and
// hashed, as before they existed, so the approvals remembered then still
// hold.
func TestToolHashCoversOSLines(t *testing.T) {
	tool := catalog.Tool{Name: "t", Description: "d", Action: catalog.Action{Command: &catalog.Command{Argv: []catalog.Template{"date"}}}}
	raw, err := json.Marshal(tool)
	if err != nil || strings.Contains(string(raw), `"os"`) {
		t.Fatalf("a command without lines per system is written %s, %v", raw, err)
	}
	plain, err := toolHash(tool)
	if err != nil {
		t.Fatal(err)
	}
	hashes := map[string]string{plain: "no lines per system"}
	for _, l := range []catalog.CommandLine{
		{Argv: []catalog.Template{"cmd", "/c", "echo %DATE%"}},
		{Argv: []catalog.Template{"cmd", "/c", "echo %TIME%"}},
		{Argv: []catalog.Template{"cmd", "/c", "echo %TIME%"}, Dir: `C:\`},
	} {
		tool.Action.Command.OS = map[string]catalog.CommandLine{"windows": l}
		h, err := toolHash(tool)
		if err != nil {
			t.Fatal(err)
		}
		if prev, ok := hashes[h]; ok {
			t.Errorf("the Windows line %+v hashes as %s", l, prev)
		}
		hashes[h] = "the Windows line " + strings.Join([]string{string(l.Argv[2]), string(l.Dir)}, " in ")
	}
}
