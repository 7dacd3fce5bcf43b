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
		return "", err
	}
	if strings.Contains(abs, "/AppTranslocation/") {
		return "", errors.New("mcptray runs from a temporary macOS location (App Translocation); move mcptray.app into /Applications, open it from there, and run this again")
	}
	if st, err := os.Stat(abs); err != nil || st.IsDir() {
		return "", fmt.Errorf("mcptray-stdio is not at %s (build it with `make build`, or pass --shim PATH)", abs)
	}
	return abs, nil
}
