//go:build unix

package fault

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestKillLeavesNoUpstream: mcptray killed with SIGKILL while three
// servers it fronts run (started with it), one of them with a child of
// its own. Within 2 s none of their processes is left.
func TestKillLeavesNoUpstream(t *testing.T) {
	h := newHome(t)
	mark := tag(4)
	// The mark is in each program's path, so in its command line and in
	// the child's (which runs the same program).
	bin := filepath.Join(h.dir, "up-"+mark, "upserver")
	wd, _ := os.Getwd()
	build := exec.Command("go", "build", "-o", bin, "./upstream/testdata/upserver")
	build.Dir = filepath.Clean(filepath.Join(wd, "..", ".."))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the upstream server: %v\n%s", err, out)
	}
	for i := 1; i <= 3; i++ {
		run(t, h, "upstream", "add", fmt.Sprintf("u%d", i), "--at-start", "--yes", "--db", h.db, "--", bin)
	}
	s := h.serve(false)
	waitMarked(t, mark, 3, 30*time.Second)
	got, err := s.post("tools/call", `"name":"u1_child","arguments":{},`+metaPlain)
	if err != nil || got["error"] != nil {
		t.Fatalf("u1_child: %v %v", got, err)
	}
	waitMarked(t, mark, 4, 10*time.Second)
	s.kill9(t)
	killed := time.Now()
	waitMarked(t, mark, 0, 2*time.Second)
	t.Logf("every upstream process gone %v after the kill", time.Since(killed).Round(time.Millisecond))
}
