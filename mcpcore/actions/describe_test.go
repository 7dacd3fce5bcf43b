package actions

import (
	"testing"

	"github.com/mcptray/mcptray/catalog"
)

func TestDescribeSaysWhatRunsWithSecretsMasked(t *testing.T) {
	data := &Data{OS: "linux", Args: map[string]any{"q": "a b&c", "id": "x/y"}, Inputs: map[string]any{"f": map[string]any{"content": map[string]any{"n": 2}}}}
	for _, tc := range []struct {
		name string
		a    catalog.Action
		want string
	}{
		{"request", catalog.Action{HTTP: &catalog.HTTP{Method: "post", URL: `https://api.example.com/items/{{pathescape .args.id}}`,
			Query:   map[string]catalog.Template{"q": "{{.args.q}}", "key": `{{secret "api"}}`},
			Headers: map[string]catalog.Template{"Authorization": `Bearer {{secret "tok"}}`, "X-Empty": ""},
			Body:    `{"n": {{json .inputs.f.content.n}}, "k": {{json (secret "api")}}}`}},
			"Sends: POST https://api.example.com/items/x%2Fy?key=[secret:api]&q=a+b%26c\nAuthorization: Bearer [secret:tok]\n" +
				`With the body: {"n": 2, "k": "[secret:api]"}`},
		{"command", catalog.Action{Command: &catalog.Command{Argv: []catalog.Template{"rm", "-r", "{{.args.q}}"}, Dir: "/tmp",
			Env: map[string]catalog.Template{"TOKEN": `{{secret "tok"}}`}, Stdin: "{{.args.id}}"}},
			"Runs: rm -r 'a b&c'\nIn the folder: /tmp\nWith TOKEN='[secret:tok]'\nIts input: x/y"},
		{"an answer runs nothing", catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "hi"}}}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Describe(tc.a, data)
			if err != nil || got != tc.want {
				t.Errorf("Describe = %q, %v;\nwant %q", got, err, tc.want)
			}
		})
	}
}

// TestDescribeWritesTheLineAsTheSystemReadsIt: an approval shows the
// command line in the quoting of the system it runs on: a POSIX shell's
// ('…') on Linux and macOS; on Windows the line the program is started
// with, cmd's arguments as written and any other program's in the C
// runtime's double quotes, never a POSIX shell's quotes.
func TestDescribeWritesTheLineAsTheSystemReadsIt(t *testing.T) {
	data := func(goos string) *Data {
		return &Data{OS: goos, Server: map[string]string{"home": `C:\users\Jane Doe`, "executable": `C:\users\Jane Doe\AppData\Local\Programs\mcptray\mcptray.exe`},
			Args: map[string]any{"days": 30, "q": `say "hi"`}}
	}
	// The starter's clean_downloads on Windows.
	clean := &catalog.Command{Argv: []catalog.Template{"{{.server.executable}}", "files", "clean", `{{.server.home}}\Downloads`, "--older-than-days", "{{.args.days}}"}}
	forfiles := &catalog.Command{Argv: []catalog.Template{"forfiles", "/p", `{{.server.home}}\Downloads`, "/d", "-{{.args.days}}",
		"/c", "cmd /d /c if @isdir==FALSE (echo @path& del /f /q @path)"}, Env: map[string]catalog.Template{"Q": "{{.args.q}}"}}
	cmd := &catalog.Command{Argv: []catalog.Template{`C:\Windows\System32\cmd.exe`, "/d", "/v:on", "/c", `type "!FILE!"`}}
	spaced := &catalog.Command{Argv: []catalog.Template{`{{.server.home}}\my tools\run it.exe`, ""}}
	for _, tc := range []struct {
		goos string
		c    *catalog.Command
		want string
	}{
		{"linux", forfiles, `Runs: forfiles /p 'C:\users\Jane Doe\Downloads' /d -30 /c 'cmd /d /c if @isdir==FALSE (echo @path& del /f /q @path)'` + "\n" + `With Q='say "hi"'`},
		{"windows", forfiles, `Runs: forfiles /p "C:\users\Jane Doe\Downloads" /d -30 /c "cmd /d /c if @isdir==FALSE (echo @path& del /f /q @path)"` + "\n" + `With Q="say \"hi\""`},
		{"linux", cmd, `Runs: 'C:\Windows\System32\cmd.exe' /d /v:on /c 'type "!FILE!"'`},
		{"windows", cmd, `Runs: C:\Windows\System32\cmd.exe /d /v:on /c type "!FILE!"`},
		{"windows", spaced, `Runs: "C:\users\Jane Doe\my tools\run it.exe" ""`},
		{"windows", clean, `Runs: "C:\users\Jane Doe\AppData\Local\Programs\mcptray\mcptray.exe" files clean "C:\users\Jane Doe\Downloads" --older-than-days 30`},
	} {
		got, err := Describe(catalog.Action{Command: tc.c}, data(tc.goos))
		if err != nil || got != tc.want {
			t.Errorf("on %s: Describe = %q, %v;\nwant %q", tc.goos, got, err, tc.want)
		}
	}
}

// TestShowCommandLineQuotesAsTheSystemReadsIt: a definition's line, its
// templates unfilled (the gallery's "Runs:"), is shown on Windows as the
// program is started there, never in a POSIX shell's quotes, each template
// whole; elsewhere as the editor writes it.
func TestShowCommandLineQuotesAsTheSystemReadsIt(t *testing.T) {
	clean := []catalog.Template{"{{.server.executable}}", "files", "clean", `{{.server.home}}\Downloads`, "--older-than-days", "{{.args.days}}"}
	forfiles := []catalog.Template{"forfiles", "/p", `{{.server.home}}\My Downloads`, "/c", `cmd /c echo "{{.args.x}}"`}
	for _, tc := range []struct {
		goos string
		argv []catalog.Template
		want string
	}{
		{"windows", clean, `{{.server.executable}} files clean {{.server.home}}\Downloads --older-than-days {{.args.days}}`},
		{"linux", clean, `{{.server.executable}} files clean '{{.server.home}}\Downloads' --older-than-days {{.args.days}}`},
		{"windows", forfiles, `forfiles /p "{{.server.home}}\My Downloads" /c "cmd /c echo \"{{.args.x}}\""`},
		{"windows", []catalog.Template{"cmd", "/d", "/v:on", "/c", `type "!FILE!"`}, `cmd /d /v:on /c type "!FILE!"`},
		{"windows", []catalog.Template{"tool", `--key={{secret "k"}}`, `{{.args.a}} {{.args.b}}`}, `tool --key={{secret "k"}} "{{.args.a}} {{.args.b}}"`},
	} {
		if got := ShowCommandLine(tc.goos, tc.argv); got != tc.want {
			t.Errorf("on %s: ShowCommandLine(%q) = %s\nwant %s", tc.goos, tc.argv, got, tc.want)
		}
	}
}

// TestWindowsQuoteAsTheCRuntimeReadsIt: the C runtime's rules for
// backslashes, which only matter before a double quote or the closing one.
func TestWindowsQuoteAsTheCRuntimeReadsIt(t *testing.T) {
	for in, want := range map[string]string{
		``: `""`, `plain`: `plain`, `C:\dir\`: `C:\dir\`, `a b\`: `"a b\\"`, `a"b`: `a\"b`,
		`a\"b`: `a\\\"b`, `a b\\"c`: `"a b\\\\\"c"`, "tab\there": "\"tab\there\"",
	} {
		if got := windowsQuote(in); got != want {
			t.Errorf("windowsQuote(%q) = %q, want %q", in, got, want)
		}
	}
}
