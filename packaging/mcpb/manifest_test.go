package mcpb_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/internal/testutil"
)

// The extension holds no mcptray, so what Claude Desktop shows of it
// before anyone uses it (the line under its name, then the page's text)
// must say first that the mcptray app must be installed and where to get
// it, and promise no tools that are not there without it.
func TestManifestSaysMcptrayMustBeInstalled(t *testing.T) {
	testutil.Long(t, "builds and runs the manifest generator")
	cmd := exec.Command("go", "run", "manifest.go", "1.2.3")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run manifest.go: %v\n%s", err, stderr.String())
	}
	var m struct {
		Version         string           `json:"version"`
		Description     string           `json:"description"`
		LongDescription string           `json:"long_description"`
		Tools           []map[string]any `json:"tools"`
		ToolsGenerated  bool             `json:"tools_generated"`
	}
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("the manifest is not JSON: %v\n%s", err, out)
	}
	const releases = "https://github.com/mcptray/mcptray/releases"
	if m.Version != "1.2.3" {
		t.Errorf("version %q", m.Version)
	}
	if !strings.HasPrefix(m.Description, "Needs the mcptray app, installed separately") || !strings.Contains(m.Description, releases) {
		t.Errorf("the line under the name does not start with what the extension needs, and where to get it: %q", m.Description)
	}
	first, _, _ := strings.Cut(m.LongDescription, "\n\n")
	if !strings.HasPrefix(first, "**First install the mcptray app on this computer.**") {
		t.Errorf("the page does not start with installing mcptray: %q", first)
	}
	second := strings.SplitN(m.LongDescription, "\n\n", 3)
	if len(second) < 2 || !strings.Contains(second[1], releases) {
		t.Errorf("the page does not say where to get mcptray next: %q", m.LongDescription)
	}
	if len(m.Tools) > 0 || !m.ToolsGenerated {
		t.Errorf("the page lists %d tools as the extension's (tools_generated %v); without mcptray there are none, with it they are the person's own", len(m.Tools), m.ToolsGenerated)
	}
}
