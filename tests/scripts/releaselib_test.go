// Package scripts tests the release scripts' shared library
// (scripts/release-lib.sh) as the scripts use it, in bash.
package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTemporaryFoldersAreRemoved: a folder tmpdir makes, even when called
// as $(tmpdir) in a subshell as every script does, and a path given to
// remove_at_exit are gone once the script ends, however it ends.
func TestTemporaryFoldersAreRemoved(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash here")
	}
	lib, err := filepath.Abs(filepath.Join("..", "..", "scripts", "release-lib.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, end := range []string{"exit 0", "exit 3", "false"} {
		t.Run(end, func(t *testing.T) {
			tmp := t.TempDir()
			stage := filepath.Join(tmp, "stage")
			script := `set -euo pipefail
source "$1"
d=$(tmpdir)
touch "$d/file"
echo "$d"
mkdir "$2"
remove_at_exit "$2"
` + end
			cmd := exec.Command("bash", "-c", script, "bash", lib, stage)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			out, _ := cmd.Output()
			d := strings.TrimSpace(string(out))
			if d == "" {
				t.Fatalf("tmpdir printed nothing")
			}
			for _, p := range []string{d, stage} {
				if _, err := os.Stat(p); !os.IsNotExist(err) {
					t.Errorf("%s is left behind (%v)", p, err)
				}
			}
			if left, _ := filepath.Glob(filepath.Join(tmp, "mcptray-release.*")); len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}
