package actions

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/examples"
)

func TestSplitCommandLine(t *testing.T) {
	for line, want := range map[string][]catalog.Template{
		"date -R": {"date", "-R"},
		"  git -C {{.args.repo}} log -5 --oneline ": {"git", "-C", "{{.args.repo}}", "log", "-5", "--oneline"},
		// A template is one piece, whatever it holds: spaces, quotes, a
		// pipe, a "}}" in a string.
		`echo {{default "anon" .args.name}}`:                     {"echo", `{{default "anon" .args.name}}`},
		`grep -e {{ .args.q | upper }} .`:                        {"grep", "-e", "{{ .args.q | upper }}", "."},
		`echo "Hello, {{.args.who}}!" '{{ "}}" }}'`:              {"echo", "Hello, {{.args.who}}!", `{{ "}}" }}`},
		"find {{.server.home}}/Downloads -mtime +{{.args.days}}": {"find", "{{.server.home}}/Downloads", "-mtime", "+{{.args.days}}"},
		// Quotes and backslashes as a POSIX shell reads them.
		`date '+%A %Y-%m-%d %H:%M'`:           {"date", "+%A %Y-%m-%d %H:%M"},
		`printf 'it'\''s' a\ b "c\"d" '*.md'`: {"printf", "it's", "a b", `c"d`, "*.md"},
		`grep "--include=*.md" x\*`:           {"grep", "--include=*.md", "x*"},
		"":                                    nil,
		"   ":                                 nil,
	} {
		got, err := SplitCommandLine(line)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("SplitCommandLine(%q) = %q, %v; want %q", line, got, err, want)
		}
	}
}

func TestSplitCommandLineRefusesShellSyntax(t *testing.T) {
	for line, want := range map[string]string{
		"git log | wc -l":      `column 9: "|" pipes`,
		"make && make install": `"&&" runs a second command`,
		"false || echo no":     `"||"`,
		"cd /tmp; ls":          `";" runs a second command`,
		"sort < in.txt":        `"<" redirects`,
		"ls > out.txt":         `">" redirects`,
		"sleep 5 &":            `"&" runs a command in the background`,
		"echo $(date)":         "$(…) runs a command",
		"echo `date`":          "`…` runs a command",
		"echo $HOME":           "$HOME is a shell variable",
		"echo $((1+2))":        "shell arithmetic",
		"ls *.txt":             `"*" is a wildcard`,
		"ls file?.txt":         `"?" is a wildcard`,
		"cat ~/notes.md":       `write {{.server.home}} instead`,
		"LANG=C sort":          "set it under Environment",
		"echo 'unclosed":       "a quote is not closed",
		"echo {{.args.x":       `column 6: "{{" is not closed`,
		"grep x # the rest":    `"#" starts a comment`,
		"if true; then ls; fi": "needs a shell",
		"date\nls":             "a command is one line",
		"echo \uE000":          "private use area",
	} {
		_, err := SplitCommandLine(line)
		var ce *CommandLineError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), want) {
			t.Errorf("SplitCommandLine(%q) = %v; want an error containing %q", line, err, want)
		}
	}
	// Each refusal of shell syntax says how to do it instead.
	_, err := SplitCommandLine("ls | wc")
	if !strings.Contains(err.Error(), "put the commands in a script file") {
		t.Errorf("no advice: %v", err)
	}
}

// TestJoinCommandLineReadsBack: every argv written as a line reads back to
// the same argv, those of the starter catalog among them.
func TestJoinCommandLineReadsBack(t *testing.T) {
	argvs := [][]catalog.Template{
		{"date", "+%A %Y-%m-%d %H:%M:%S %Z"},
		{"A=b", "c=d"},
		{"grep", "-rniI", "--max-count=5", "--include=*.md", "-e", "{{.args.query}}", "."},
		{"echo", "", "a b", "it's", "#x", "~x", "$HOME", "a\\b", "*", "x{{.args.a}} 'y'", `{{default "a b" .args.x}}`, "ü"},
	}
	var starter struct {
		Tools []struct {
			Action catalog.Action `json:"action"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(examples.Starter, &starter); err != nil {
		t.Fatal(err)
	}
	for _, tool := range starter.Tools {
		if c := tool.Action.Command; c != nil {
			argvs = append(argvs, c.Argv)
		}
	}
	for _, argv := range argvs {
		line := JoinCommandLine(argv)
		got, err := SplitCommandLine(line)
		if err != nil || !slices.Equal(got, argv) {
			t.Errorf("%q written as %s reads back as %q, %v", argv, line, got, err)
		}
	}
	if got := JoinCommandLine([]catalog.Template{"git", "-C", "{{.args.repo}}", "log", "-5"}); got != "git -C {{.args.repo}} log -5" {
		t.Errorf("a plain command is written %s", got)
	}
	if got := JoinCommandLine([]catalog.Template{"date", "+%A %d"}); got != "date '+%A %d'" {
		t.Errorf("an argument with a space is written %s", got)
	}
}

func TestLocateProgram(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	server := map[string]string{"home": dir}
	for _, c := range []struct {
		cmd   catalog.Command
		known bool
		found bool
	}{
		{catalog.Command{Argv: []catalog.Template{"sh", "-c", "true"}}, true, true},
		{catalog.Command{Argv: []catalog.Template{"no-such-program-mcptray"}}, true, false},
		{catalog.Command{Argv: []catalog.Template{"{{.server.home}}/run.sh"}}, true, true},
		{catalog.Command{Argv: []catalog.Template{"./run.sh"}, Dir: "{{.server.home}}"}, true, true},
		{catalog.Command{Argv: []catalog.Template{"{{.server.home}}/missing.sh"}}, true, false},
		// Known only at call time.
		{catalog.Command{Argv: []catalog.Template{"{{.server.home}}/{{.args.script}}"}}, false, false},
		{catalog.Command{Argv: []catalog.Template{"ls"}, Dir: "{{.args.dir}}"}, false, false},
		// The PATH the command sets is the one searched.
		{catalog.Command{Argv: []catalog.Template{"run.sh"}, Env: map[string]catalog.Template{"PATH": catalog.Template(dir), "TOKEN": `{{secret "t"}}`}}, true, true},
	} {
		_, known, err := LocateProgram(&c.cmd, server)
		if known != c.known || c.known && (err == nil) != c.found {
			t.Errorf("%q in %q: known %v, err %v", c.cmd.Argv, c.cmd.Dir, known, err)
		}
		if err != nil && !errors.Is(err, ErrProgramNotFound) {
			t.Errorf("%q: %v is not ErrProgramNotFound", c.cmd.Argv, err)
		}
	}
}
