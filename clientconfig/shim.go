package clientconfig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// ShimPath finds mcptray-stdio, the program a stdio entry launches: at
// flagValue when it is given, else next to the running program. It is an
// absolute path that stays valid (never a macOS App Translocation copy),
// and the file must exist. It touches the file system.
func ShimPath(flagValue string) (string, error) {
	p := flagValue
	if p == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("finding mcptray's own path: %w", err)
		}
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		name := "mcptray-stdio"
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		p = filepath.Join(filepath.Dir(exe), name)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("the shim's path %q: %w", p, err)
	}
	if strings.Contains(abs, "/AppTranslocation/") {
		return "", errors.New("mcptray runs from a temporary macOS location (App Translocation); move mcptray.app into /Applications, open it from there, and run this again")
	}
	if st, err := os.Stat(abs); err != nil || st.IsDir() {
		return "", fmt.Errorf("mcptray-stdio is not at %s (install mcptray with `make install`, or pass --shim PATH)", abs)
	}
	return abs, nil
}

// BuildFolder says whether the shim at path sits in a build folder of
// mcptray's source tree (bin/ of a checkout) rather than where mcptray is
// installed, and returns the checkout. An entry pointing there breaks on
// `make clean` or when the checkout moves. It touches the file system.
func BuildFolder(path string) (string, bool) {
	dir := filepath.Dir(path)
	for range 3 {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			return dir, strings.Contains(string(b), "module github.com/mcptray/mcptray\n")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", false
}

// BuildFolderWarning is what a person is told before an entry is written
// that points into the build folder of checkout.
func BuildFolderWarning(checkout string) string {
	return fmt.Sprintf("mcptray runs from its build folder in %s: the entry would point into it, and `make clean` or moving the checkout would break it. "+
		"Install mcptray first — `make install` (or `make run`) puts it in ~/.local/bin — then connect from the installed mcptray.", checkout)
}
