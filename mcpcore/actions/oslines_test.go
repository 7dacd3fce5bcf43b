package actions

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/examples"
)

// TestCommandLineChosenByOS: the command line a command runs is the one
// its "os" gives for the system the call runs on (Data.OS, else this
// one), its own otherwise; its folder likewise, the command's own when
// the line gives none. A real program runs each time.
func TestCommandLineChosenByOS(t *testing.T) {
	requireUnix(t)
	other := t.TempDir()
	c := &catalog.Command{
		Argv: []catalog.Template{"echo", "own line"},
		OS: map[string]catalog.CommandLine{
			"linux":   {Argv: []catalog.Template{"echo", "linux line"}},
			"darwin":  {Argv: []catalog.Template{"pwd"}, Dir: catalog.Template(other)},
			"freebsd": {Argv: []catalog.Template{"pwd"}},
		},
		Dir: "/",
	}
	for _, tc := range []struct{ goos, want string }{
		{"linux", "linux line"},
		{"darwin", other},      // its own folder
		{"freebsd", "/"},       // the command's folder
		{"netbsd", "own line"}, // no line of its own
	} {
		res, err := runCommand(context.Background(), c, &Data{OS: tc.goos}, nil)
		if err != nil || res.IsError {
			t.Fatalf("%s: %+v, %v", tc.goos, res, err)
		}
		if got := strings.TrimSpace(text(t, res)); got != tc.want {
			t.Errorf("on %s it ran and printed %q, want %q", tc.goos, got, tc.want)
		}
	}
	// Without Data.OS, the running system's line.
	res, err := runCommand(context.Background(), c, &Data{}, nil)
	if want := map[string]string{"linux": "linux line", "darwin": other, "freebsd": "/"}[runtime.GOOS]; err != nil || want != "" && strings.TrimSpace(text(t, res)) != want {
		t.Errorf("on this %s: %q, %v, want %q", runtime.GOOS, text(t, res), err, want)
	}
	// What an approval shows is the line that will run.
	d, err := Describe(catalog.Action{Command: c}, &Data{OS: "linux"})
	if err != nil || !strings.HasPrefix(d, "Runs: echo 'linux line'\n") {
		t.Errorf("the approval of the Linux line reads %q, %v", d, err)
	}
	// The command itself is left as it was.
	if string(c.Argv[1]) != "own line" || c.Dir != "/" {
		t.Errorf("running changed the definition: %+v", c)
	}
}

// TestValidateOSLines: a line for an unknown system, a line without a
// program, a broken template in one, and a call's value in an argument of
// cmd are each named at their field.
func TestValidateOSLines(t *testing.T) {
	c := &catalog.Command{
		Argv: []catalog.Template{"ls"},
		OS: map[string]catalog.CommandLine{
			"win":     {Argv: []catalog.Template{"dir"}},
			"windows": {Argv: []catalog.Template{"cmd", "/c", "type {{.args.path}}"}, Dir: "{{end}}"},
			"darwin":  {Argv: []catalog.Template{" "}},
			"linux":   {Argv: []catalog.Template{"ls", "{{.args.x"}},
		},
	}
	var got []string
	for _, p := range ValidateCommand(c, nil) {
		got = append(got, p.Field)
	}
	want := []string{"os.darwin.argv", "os.linux.argv[1]", "os.win", "os.windows.dir", "os.windows.argv[2]"}
	if !slices.Equal(got, want) {
		t.Errorf("problems on %q, want %q", got, want)
	}
	for _, argv := range [][]catalog.Template{
		{`C:\Windows\System32\CMD.EXE`, "/c", `echo {{secret "t"}}`},
		{"run.bat", "{{.inputs.form.content.x}}"},
		{"tool.cmd", "x{{.args.a}}"},
	} {
		if ps := ValidateCommand(&catalog.Command{Argv: argv}, nil); len(ps) != 1 || !strings.Contains(ps[0].Message, "!NAME!") {
			t.Errorf("%q: %v", argv, ps)
		}
	}
	ok := &catalog.Command{
		Argv: []catalog.Template{"cat", "--", "{{.args.path}}"},
		Env:  map[string]catalog.Template{"FILE": "{{.args.path}}"},
		OS: map[string]catalog.CommandLine{
			"windows": {Argv: []catalog.Template{"cmd", "/d", "/v:on", "/c", `type "!FILE!" & echo {{.server.home}}`}},
			"darwin":  {Argv: []catalog.Template{"findstr", "/c:{{.args.q}}"}},
		},
	}
	if ps := ValidateCommand(ok, nil); len(ps) != 0 {
		t.Errorf("valid command rejected: %v", ps)
	}
}

// TestCmdNeverRunsWithACallsValue: on Windows, a program that cmd reads —
// here a batch file, which a catalog from before the rule, or a name
// filled in at call time, can reach — is not started when one of its
// arguments holds a value of the call. A real program stands for it: it
// would leave a mark.
func TestCmdNeverRunsWithACallsValue(t *testing.T) {
	requireUnix(t)
	dir := t.TempDir()
	mark := filepath.Join(dir, "ran")
	script := filepath.Join(dir, "tool.cmd")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := &catalog.Command{Argv: []catalog.Template{"{{.args.prog}}", "{{.args.x}}"}}
	args := map[string]any{"prog": script, "x": "a & calc"}
	res, err := runCommand(context.Background(), c, &Data{OS: "windows", Args: args}, nil)
	if err != nil || !res.IsError || !strings.Contains(text(t, res), "not run") {
		t.Fatalf("a batch file given a value: %+v, %v", res, err)
	}
	if _, err := os.Stat(mark); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the batch file ran: %v", err)
	}
	// Elsewhere a .cmd is a program like any other; on Windows, a batch
	// file with no value in its arguments runs.
	for _, d := range []*Data{{OS: "linux", Args: args}, {OS: "windows", Args: map[string]any{"prog": script}}} {
		cc := c
		if d.OS == "windows" {
			cc = &catalog.Command{Argv: []catalog.Template{"{{.args.prog}}"}}
		}
		if res, err := runCommand(context.Background(), cc, d, nil); err != nil || res.IsError {
			t.Fatalf("on %s: %+v, %v", d.OS, res, err)
		}
		if err := os.Remove(mark); err != nil {
			t.Fatalf("on %s it did not run: %v", d.OS, err)
		}
	}
}

// TestCmdCommandLine: cmd is started with its arguments as written —
// Microsoft's C runtime quoting (\") would reach cmd as text — and its
// program quoted when its path has a space.
func TestCmdCommandLine(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"cmd", "/d", "/c", `powershell -Command "Get-Date" 2>nul || echo %DATE%`}, `cmd /d /c powershell -Command "Get-Date" 2>nul || echo %DATE%`},
		{[]string{`C:\Program Files\cmd.exe`, "/c", "ver"}, `"C:\Program Files\cmd.exe" /c ver`},
	} {
		if got := cmdCommandLine(tc.argv); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.argv, got, tc.want)
		}
	}
	for prog, want := range map[string]bool{"cmd": true, `C:\WINDOWS\system32\CMD.exe`: true, "x.Bat": true, `C:\a b\y.cmd`: true, "findstr.exe": false, "cmdx": false, "/usr/bin/cmd.sh": false} {
		if readByCmd(prog) != want {
			t.Errorf("readByCmd(%q) = %v", prog, !want)
		}
	}
}

// TestExamplesWindowsLines: the Windows line of every example runs what
// this test says, with values that would be commands, variables or options
// if cmd or the program misread them. Such a value never reaches cmd: the
// command lines of cmd are the same whatever the call's values (they come
// through variables, read as !NAME! after cmd has read the line); every
// other program gets each value as one argument, behind a fixed switch or
// after "--".
func TestExamplesWindowsLines(t *testing.T) {
	hostile := `x" & calc & "%PATH%!PATH!^| /s`
	home := `C:\Users\Jane Doe`
	exe := home + `\AppData\Local\Programs\mcptray\mcptray.exe`
	type want struct {
		argv []string
		dir  string
		env  []string // the variables cmd reads the values from
	}
	wants := map[string]want{
		"current_time": {argv: []string{"cmd", "/d", "/c", `powershell -NoProfile -NonInteractive -Command "Get-Date -Format F; [TimeZoneInfo]::Local.DisplayName" 2>nul || echo %DATE% %TIME%`}},
		// The query last, after "--": text to look for whatever it holds.
		"search_notes": {argv: []string{exe, "files", "search", "--in", home + `\Notes`, "--ext", ".md,.txt", "--max-per-file", "5", "--", hostile}},
		"run_script":   {argv: []string{home + `\mcptray-scripts\` + hostile}, dir: home + `\mcptray-scripts`},
		// The days as the value of their flag (and a whole number by the schema).
		"clean_downloads": {argv: []string{exe, "files", "clean", home + `\Downloads`, "--older-than-days", hostile}},
		"read_file":       {argv: []string{"cmd", "/d", "/v:on", "/c", `type "!FILE!"`}, env: []string{"FILE"}},
		"list_folder":     {argv: []string{"cmd", "/d", "/v:on", "/c", `dir "!FOLDER!"`}, env: []string{"FOLDER"}},
		"search_notes_rg": {argv: []string{"rg", "--ignore-case", "--max-count", "5", "--no-heading", "--fixed-strings", "--", hostile, "."},
			dir: home + `\Notes`},
		"run_backup": {argv: []string{home + `\bin\backup.cmd`}, dir: home},
		"delete_file": {argv: []string{"cmd", "/d", "/v:on", "/c", `if not exist "!FILE!" (echo There is no file !FILE! 1>&2& exit /b 1) else if exist "!FILE!\*" (echo !FILE! is a folder, not a file 1>&2& exit /b 1) else del /f /q "!FILE!"`},
			env: []string{"FILE"}},
		"disk_space":         {argv: []string{"cmd", "/d", "/c", `powershell -NoProfile -NonInteractive -Command "Get-PSDrive -PSProvider FileSystem | Format-Table -AutoSize" 2>nul || dir /-c %SystemDrive%\`}},
		"git_recent_commits": {argv: []string{"git", "-C", hostile, "log", "-n", hostile, "--oneline"}},
		"count_words":        {argv: []string{"cmd", "/d", "/c", `powershell -NoProfile -NonInteractive -Command "$input | Measure-Object -Line -Word -Character | Format-List Lines, Words, Characters" 2>nul || (echo Counting words needs PowerShell, which this computer does not have. 1>&2& exit /b 1)`}},
		"ping_host":          {argv: []string{"ping", "-n", "3", hostile}},
		"add_to_inbox": {argv: []string{"cmd", "/d", "/v:on", "/c", `>>inbox.md echo.& >>inbox.md echo.## !NOTE_TITLE! (!NOTE_URGENCY!)& >>inbox.md echo.& >>inbox.md echo.!NOTE_TEXT!& echo Added the note to !CD!\inbox.md`},
			dir: home + `\Notes`, env: []string{"NOTE_TEXT", "NOTE_TITLE", "NOTE_URGENCY"}},
	}
	seen := map[string]bool{}
	for _, src := range [][]byte{examples.Starter, examples.Gallery} {
		var cat catalog.Catalog
		if err := json.Unmarshal(src, &cat); err != nil {
			t.Fatal(err)
		}
		for _, tool := range cat.Tools {
			c := tool.Action.Command
			if c == nil {
				continue
			}
			seen[tool.Name] = true
			w, ok := wants[tool.Name]
			if !ok {
				t.Errorf("%s: this test does not say what it runs on Windows", tool.Name)
				continue
			}
			args := map[string]any{}
			for _, k := range []string{"path", "folder", "query", "script", "days", "repo", "count", "host", "text"} {
				args[k] = hostile
			}
			inputs := map[string]any{"details": map[string]any{"content": map[string]any{"title": hostile, "urgency": hostile}}}
			data := &Data{OS: "windows", Args: args, Inputs: inputs, Server: map[string]string{"home": home, "executable": exe}}
			here := c.On(data.goos())
			argv, err := renderArgv(&here, data)
			if err != nil {
				t.Fatalf("%s: %v", tool.Name, err)
			}
			dir, _ := Render(here.Dir, data)
			if !slices.Equal(argv, w.argv) || dir != w.dir {
				t.Errorf("%s runs on Windows\n%q in %q, want\n%q in %q", tool.Name, argv, dir, w.argv, w.dir)
			}
			if ps := ValidateCommand(c, nil); len(ps) != 0 {
				t.Errorf("%s: %v", tool.Name, ps)
			}
			if !readByCmd(argv[0]) {
				if len(w.env) > 0 {
					t.Errorf("%s: the test expects variables for cmd, but it does not run cmd", tool.Name)
				}
				continue
			}
			if err := checkCmdValues(argv[0], here.Argv); err != nil {
				t.Errorf("%s: %v", tool.Name, err)
			}
			env, err := commandEnviron(&here, data)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range w.env {
				if !slices.Contains(env, name+"="+hostile) {
					t.Errorf("%s: cmd reads !%s!, which does not hold the value", tool.Name, name)
				}
			}
			if got := slices.Sorted(maps.Keys(c.Env)); !slices.Equal(got, w.env) {
				t.Errorf("%s passes the variables %q, want %q", tool.Name, got, w.env)
			}
		}
	}
	for name := range wants {
		if !seen[name] {
			t.Errorf("%s is no longer an example", name)
		}
	}
}

// TestStarterRunsMcptrayOnEverySystem: the starter's search_notes and
// clean_downloads run mcptray's own files search and files clean
// ({{.server.executable}}) on every system, not grep and find on Linux and
// macOS: grep finding nothing exits 1, which reached the AI app as "grep
// failed" and no text, and find -mtime +N deletes only what is N+1 whole
// days old, not what the approval says. Each system's line differs only
// in how it writes the folder (a backslash on Windows, where the approval
// and the gallery's "Runs:" show it), each value is one argument (the
// query after "--"), and no line needs a working folder. What the approval
// of clean_downloads shows on Linux is the line that runs.
func TestStarterRunsMcptrayOnEverySystem(t *testing.T) {
	hostile := `x" & calc & "$HOME%PATH% --in=/etc`
	var starter catalog.Catalog
	if err := json.Unmarshal(examples.Starter, &starter); err != nil {
		t.Fatal(err)
	}
	tools := map[string]*catalog.Command{}
	for _, tool := range starter.Tools {
		tools[tool.Name] = tool.Action.Command
	}
	for goos, sys := range map[string]struct{ home, exe, sep string }{
		"linux":   {"/home/Jane Doe", "/usr/bin/mcptray", "/"},
		"darwin":  {"/Users/jane", "/Applications/mcptray.app/Contents/MacOS/mcptray", "/"},
		"freebsd": {"/home/jane", "/usr/local/bin/mcptray", "/"},
		"windows": {`C:\Users\Jane Doe`, `C:\Users\Jane Doe\AppData\Local\Programs\mcptray\mcptray.exe`, `\`},
	} {
		data := &Data{OS: goos, Args: map[string]any{"query": hostile, "days": 30}, Server: map[string]string{"home": sys.home, "executable": sys.exe}}
		for name, want := range map[string][]string{
			"search_notes":    {sys.exe, "files", "search", "--in", sys.home + sys.sep + "Notes", "--ext", ".md,.txt", "--max-per-file", "5", "--", hostile},
			"clean_downloads": {sys.exe, "files", "clean", sys.home + sys.sep + "Downloads", "--older-than-days", "30"},
		} {
			c := tools[name]
			if c == nil {
				t.Fatalf("no %s command in the starter catalog", name)
			}
			here := c.On(goos)
			argv, err := renderArgv(&here, data)
			if err != nil {
				t.Fatalf("%s on %s: %v", name, goos, err)
			}
			if !slices.Equal(argv, want) || here.Dir != "" {
				t.Errorf("%s runs on %s\n%q in %q, want\n%q", name, goos, argv, here.Dir, want)
			}
		}
	}
	clean := catalog.Action{Command: tools["clean_downloads"]}
	got, err := Describe(clean, &Data{OS: "linux", Args: map[string]any{"days": 30},
		Server: map[string]string{"home": "/home/Jane Doe", "executable": "/home/Jane Doe/.local/bin/mcptray"}})
	if want := "Runs: '/home/Jane Doe/.local/bin/mcptray' files clean '/home/Jane Doe/Downloads' --older-than-days 30"; err != nil || got != want {
		t.Errorf("the approval of clean_downloads on Linux shows %q, %v; want %q", got, err, want)
	}
}
