package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestCUTF8LocaleIsQuiet runs mcptray under LANG=C.UTF-8, the default of
// Debian and of containers: Fyne must not log a locale error on every
// command, and the commands tools run must still see LANG=C.UTF-8.
func TestCUTF8LocaleIsQuiet(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	run := func(mode string, args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(self, args...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8", "MCPTRAY_TEST_AS_MAIN=" + mode}
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %v: %v\n%s", mode, args, err, errOut.String())
		}
		return out.String(), errOut.String()
	}
	out, errOut := run("main", "version")
	if !strings.HasPrefix(out, "mcptray ") || errOut != "" {
		t.Errorf("mcptray version under LANG=C.UTF-8: stdout %q, stderr %q", out, errOut)
	}
	if lang, _ := run("env"); lang != "C.UTF-8" {
		t.Errorf("LANG after Restore = %q, want C.UTF-8 (tools inherit it)", lang)
	}
}
