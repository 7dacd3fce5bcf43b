package localefix_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	// Fyne's lang package reads the locale in its init, as it does in the
	// mcptray program: this test binary has the same init order.
	_ "fyne.io/fyne/v2/lang"

	"github.com/mcptray/mcptray/internal/localefix"
)

// TestMain: with LOCALEFIX_TEST_CHILD set, the test binary only restores
// the locale and prints LANG, as the first thing mcptray's main does.
func TestMain(m *testing.M) {
	if os.Getenv("LOCALEFIX_TEST_CHILD") != "" {
		localefix.Restore()
		fmt.Print(os.Getenv("LANG"))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestCUTF8LocaleIsQuiet starts a program with Fyne under LANG=C.UTF-8,
// the default of Debian and of containers: Fyne must not log a locale
// error on start, and what the program runs must still see LANG=C.UTF-8.
func TestCUTF8LocaleIsQuiet(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8", "LOCALEFIX_TEST_CHILD=1"}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if strings.TrimSpace(errOut.String()) != "" {
		t.Errorf("stderr under LANG=C.UTF-8: %q", errOut.String())
	}
	if out.String() != "C.UTF-8" {
		t.Errorf("LANG after Restore = %q, want C.UTF-8 (tools inherit it)", out.String())
	}
}
