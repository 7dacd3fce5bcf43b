package deptest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// servingPath are the packages the serving process runs: the server, its
// tray, the link to the window process and what they build on. None may
// import Fyne or GLFW: the serving process sits in the tray all day, and
// draws nothing (the window process, package app, does).
var servingPath = []string{
	"github.com/mcptray/mcptray/internal/cli",
	"github.com/mcptray/mcptray/internal/daemon",
	"github.com/mcptray/mcptray/app/tray",
	"github.com/mcptray/mcptray/app/trayicon",
	"github.com/mcptray/mcptray/app/link",
	"github.com/mcptray/mcptray/app/words",
	"github.com/mcptray/mcptray/internal/winlink",
	"github.com/mcptray/mcptray/mcpcore",
	"github.com/mcptray/mcptray/storage",
	"github.com/mcptray/mcptray/clientconfig",
	"github.com/mcptray/mcptray/assets",
}

// drawing are the import paths (prefixes) of what draws windows.
var drawing = []string{"fyne.io/fyne/", "github.com/go-gl/"}

func TestTheServingPathDrawsNothing(t *testing.T) {
	for _, goos := range []string{"linux", "windows", "darwin"} {
		t.Run(goos, func(t *testing.T) {
			for _, pkg := range servingPath {
				for _, dep := range depsOf(t, goos, pkg) {
					for _, d := range drawing {
						if strings.HasPrefix(dep, d) {
							t.Errorf("%s imports %s (for %s): the serving process would draw", pkg, dep, goos)
						}
					}
				}
			}
		})
	}
}

// depsOf lists the packages pkg depends on, as built for goos.
func depsOf(t *testing.T, goos, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", pkg)
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOFLAGS=")
	b, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go list -deps %s (%s): %v\n%s", pkg, goos, err, stderr)
	}
	return strings.Fields(string(b))
}
