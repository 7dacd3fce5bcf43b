package editor

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/app/internal/uitest"
	"github.com/mcptray/mcptray/catalog"
)

// TestEditorWindowsLine: "On Windows, run instead" shows the command
// line a tool runs on Windows, saves what a person types there into the
// command's "os" (keeping the lines for other systems), says what is
// wrong with a line, and leaves a command without one as it was.
func TestEditorWindowsLine(t *testing.T) {
	uitest.NewTestApp(t)
	s := uitest.NewServed(t)
	tool := catalog.Tool{Name: "now", Description: "The time.", Action: catalog.Action{Command: &catalog.Command{
		Argv: []catalog.Template{"date", "+%H:%M"},
		OS: map[string]catalog.CommandLine{
			"windows": {Argv: []catalog.Template{"cmd", "/d", "/c", "echo %TIME%"}, Dir: `C:\Users`},
			"darwin":  {Argv: []catalog.Template{"date", "-u"}},
		}}}}
	if err := s.St.PutTool(context.Background(), tool); err != nil {
		t.Fatal(err)
	}
	e := newEditor(t, s.St, tool, false)
	if got := e.Command.WinLine.Entry.Text; got != "cmd /d /c 'echo %TIME%'" {
		t.Fatalf("the Windows line reads %q", got)
	}
	if got := e.Command.winDir.Entry.Text; got != `C:\Users` {
		t.Fatalf("the Windows folder reads %q", got)
	}
	if !strings.Contains(e.Command.winRuns.Text, "On Windows it runs “cmd” with 3 arguments") {
		t.Errorf("under the line: %q", e.Command.winRuns.Text)
	}
	if e.dirty() {
		got, _ := e.Tool()
		t.Fatalf("a freshly opened tool counts as changed: %+v", got.Action.Command)
	}

	e.Command.WinLine.Entry.SetText(`cmd /d /v:on /c 'type "!FILE!"'`)
	e.Command.winDir.Entry.SetText("")
	if !e.Save() {
		t.Fatalf("not saved: %q %v", e.Status.Text, e.Errs.Shown())
	}
	stored, err := s.St.Tool(context.Background(), "now")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]catalog.CommandLine{
		"windows": {Argv: []catalog.Template{"cmd", "/d", "/v:on", "/c", `type "!FILE!"`}},
		"darwin":  {Argv: []catalog.Template{"date", "-u"}},
	}
	if !reflect.DeepEqual(stored.Action.Command.OS, want) {
		t.Fatalf("stored %+v, want %+v", stored.Action.Command.OS, want)
	}

	// A call's value in cmd's line, a line that does not read, and a
	// folder without a line are refused, each where it was typed.
	for _, tc := range []struct{ line, dir, key, says string }{
		{"cmd /c 'type {{.args.path}}'", "", "action.command.os", "!NAME!"},
		{"cmd /c 'type", "", "action.command.os", "On Windows:"},
		{"", `C:\x`, "action.command.os", "needs the command line"},
		{"dir", "{{end}}", "action.command.os.windows.dir", "end"},
	} {
		e.Command.WinLine.Entry.SetText(tc.line)
		e.Command.winDir.Entry.SetText(tc.dir)
		if e.Save() {
			t.Fatalf("%q in %q saved", tc.line, tc.dir)
		}
		if got := e.Errs.Shown()[tc.key]; !strings.Contains(got, tc.says) {
			t.Errorf("%q in %q: %q shows %q, want it to say %q (all: %v)", tc.line, tc.dir, tc.key, got, tc.says, e.Errs.Shown())
		}
	}

	// Emptied, and with no other system's line, the field is gone.
	plain := catalog.Tool{Name: "plain", Description: "d", Action: catalog.Action{Command: &catalog.Command{Argv: []catalog.Template{"true"}}}}
	e = newEditor(t, s.St, plain, true)
	test.Type(e.Command.WinLine.Entry, "cmd /c ver")
	e.Command.WinLine.Entry.SetText("")
	if !e.Save() {
		t.Fatalf("not saved: %q %v", e.Status.Text, e.Errs.Shown())
	}
	if got, err := s.St.Tool(context.Background(), "plain"); err != nil || got.Action.Command.OS != nil {
		t.Fatalf("stored %+v, %v", got.Action.Command, err)
	}
}
