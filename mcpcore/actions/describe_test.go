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
		return &Data{OS: goos, Server: map[string]string{"home": `C:\users\Jane Doe`}, Args: map[string]any{"days": 30, "q": `say "hi"`}}
	}
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
	} {
		got, err := Describe(catalog.Action{Command: tc.c}, data(tc.goos))
		if err != nil || got != tc.want {
			t.Errorf("on %s: Describe = %q, %v;\nwant %q", tc.goos, got, err, tc.want)
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
