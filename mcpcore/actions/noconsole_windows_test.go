package actions

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"golang.org/x/sys/windows"
)

// TestCommandOpensNoConsoleWindow: a command is started without a console
// window of its own (a window would flash at every call of a tool run by
// the tray's serving process), and its output still arrives — here cmd's,
// started with its line as written.
func TestCommandOpensNoConsoleWindow(t *testing.T) {
	cmd := exec.Command("cmd", "/c", "ver")
	noConsoleWindow(cmd)
	if cmd.SysProcAttr == nil || cmd.SysProcAttr.CreationFlags&windows.CREATE_NO_WINDOW == 0 {
		t.Fatalf("started with %+v", cmd.SysProcAttr)
	}
	c := &catalog.Command{Argv: []catalog.Template{"cmd", "/d", "/c", `echo "a b" & echo c`}}
	out, err := CommandOutput(context.Background(), c, &Data{})
	if err != nil || out.ExitCode != 0 {
		t.Fatalf("%+v, %v", out, err)
	}
	if got := strings.ReplaceAll(string(out.Stdout), "\r", ""); got != "\"a b\" \nc\n" {
		t.Errorf("cmd printed %q", got)
	}
}
