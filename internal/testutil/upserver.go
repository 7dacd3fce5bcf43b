package testutil

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Upserver builds the MCP server of package upstream's tests
// (upstream/testdata/upserver: go-sdk's server with tools that echo, wait,
// crash, change the tool list…) into a temporary folder and returns its
// path: the real program other packages' tests front as an upstream
// server. The package is found through `go list`, from whatever folder the
// test runs in.
func Upserver(t testing.TB) string {
	t.Helper()
	dir, err := exec.Command("go", "list", "-f", "{{.Dir}}", "github.com/mcptray/mcptray/upstream").Output()
	if err != nil {
		t.Fatalf("finding package upstream: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "upserver")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	build := exec.Command("go", "build", "-o", bin, "./testdata/upserver")
	build.Dir = strings.TrimSpace(string(dir))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the upstream server: %v\n%s", err, out)
	}
	return bin
}
