package clientconfig

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
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

// sharedEntry says why a shared file's entry names the shim without its
// folder, and what that asks of the people who share the file.
const sharedEntry = "This file is meant to be shared with the project, so the entry names mcptray-stdio without its folder, " +
	"and everyone who uses the project needs mcptray installed, with mcptray-stdio on their PATH."

// SharedShimNote is what a person should know when a file meant to be
// shared names the shim by its name (ShimName), given the installed shim:
// where the PATH of this process — the one a client started from here
// gets — finds that name, or that it finds another copy first (warn), or
// none (warn). It touches the file system.
func SharedShimNote(shim string) (note string, warn bool) {
	found, err := exec.LookPath(ShimName)
	switch {
	case err != nil:
		return fmt.Sprintf("mcptray-stdio is not on your PATH, so the AI app cannot start this entry here yet: add %s to your PATH. %s",
			filepath.Dir(shim), sharedEntry), true
	case !sameFile(found, shim):
		return fmt.Sprintf("Your PATH finds another mcptray-stdio first, %s, so the AI app would start that one rather than this mcptray's %s: put %s before %s in your PATH, or remove the other one. %s",
			found, shim, filepath.Dir(shim), filepath.Dir(found), sharedEntry), true
	}
	return fmt.Sprintf("%s Here it is found at %s.", sharedEntry, found), false
}

// sameFile says whether the paths a and b lead to the same file, through
// any symbolic links.
func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}
