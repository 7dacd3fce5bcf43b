package actions

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcptray/mcptray/catalog"
	"mvdan.cc/sh/v3/syntax"
)

// This file reads a command as a person types it — one line, `git -C
// {{.args.repo}} log -5 --oneline` — into the argv a command action
// stores, and writes an argv back as such a line. The line is split with
// the POSIX shell's quoting rules (mvdan.cc/sh's parser), but it never
// runs through a shell: what only a shell does (pipes, several commands,
// redirections, variables, command substitution, wildcards, ~) is refused
// with what to do instead, rather than passed on as literal text that
// would fail, or surprise, at call time. Templates ({{…}}) are kept whole
// whatever they hold (spaces, quotes, a |), and each is always part of
// one argument.

// CommandLineError is a command line that cannot be read into arguments,
// with a message for the person who typed it.
type CommandLineError struct {
	// Column is where the problem starts, counted in characters from 1; 0
	// when it is about the whole line.
	Column int
	Msg    string
}

func (e *CommandLineError) Error() string {
	if e.Column > 0 {
		return fmt.Sprintf("column %d: %s", e.Column, e.Msg)
	}
	return e.Msg
}

// runAScript is the advice every refusal of shell syntax ends with.
const runAScript = "mcptray runs one program with its arguments, never through a shell; to use a shell's features, put the commands in a script file and run the script here (e.g. /home/me/bin/report.sh {{.args.name}})"

// TemplateSpan is where a template ({{…}}) is in a text: text[Start:End].
type TemplateSpan struct{ Start, End int }

// TemplateSpans finds the templates of text, in order. A "}}" inside a
// quoted string of the template does not end it. A "{{" that is never
// closed is an error naming where it starts.
func TemplateSpans(text string) ([]TemplateSpan, error) {
	var out []TemplateSpan
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], "{{")
		if j < 0 {
			break
		}
		start := i + j
		end := templateEnd(text, start+2)
		if end < 0 {
			return out, &CommandLineError{Column: columnOf(text, start), Msg: `"{{" is not closed by "}}"`}
		}
		out = append(out, TemplateSpan{start, end})
		i = end
	}
	return out, nil
}

// templateEnd is the index just past the "}}" that closes a template whose
// body starts at i, skipping Go string and character literals; -1 when
// there is none.
func templateEnd(text string, i int) int {
	for i < len(text) {
		switch c := text[i]; c {
		case '"', '\'':
			i++
			for i < len(text) && text[i] != c {
				if text[i] == '\\' {
					i++
				}
				i++
			}
			i++
		case '`':
			k := strings.IndexByte(text[i+1:], '`')
			if k < 0 {
				return -1
			}
			i += k + 2
		case '}':
			if strings.HasPrefix(text[i:], "}}") {
				return i + 2
			}
			i++
		default:
			i++
		}
	}
	return -1
}

// columnOf is the character column (from 1) of byte offset off in s.
func columnOf(s string, off int) int { return len([]rune(s[:min(off, len(s))])) + 1 }

// Placeholders stand for the templates while the line is parsed: runes of
// Unicode's private use area, which a person does not type and the shell
// parser reads as plain word characters.
const (
	phOpen  = '\uE000'
	phClose = '\uE001'
)

var placeholderRE = regexp.MustCompile("\uE000([0-9]+)\uE001")

// protect replaces each template of line with a placeholder; restore puts
// them back.
func protect(line string) (string, []string, error) {
	if strings.ContainsAny(line, string([]rune{phOpen, phClose})) {
		return "", nil, &CommandLineError{Msg: "the line holds characters of Unicode's private use area (U+E000, U+E001), which mcptray keeps for itself"}
	}
	spans, err := TemplateSpans(line)
	if err != nil {
		return "", nil, err
	}
	var b strings.Builder
	var tmpls []string
	last := 0
	for i, sp := range spans {
		b.WriteString(line[last:sp.Start])
		b.WriteString(string(phOpen) + strconv.Itoa(i) + string(phClose))
		tmpls = append(tmpls, line[sp.Start:sp.End])
		last = sp.End
	}
	b.WriteString(line[last:])
	return b.String(), tmpls, nil
}

func restore(s string, tmpls []string) string {
	return placeholderRE.ReplaceAllStringFunc(s, func(m string) string {
		i, err := strconv.Atoi(m[len(string(phOpen)) : len(m)-len(string(phClose))])
		if err != nil || i >= len(tmpls) {
			return m
		}
		return tmpls[i]
	})
}

// SplitCommandLine reads a command line into argv: the program, then its
// arguments, split at unquoted blanks, with quotes and backslashes
// removed as a POSIX shell removes them. Templates stay whole and unsplit.
// An empty line gives no arguments. Shell syntax that would need a shell
// to run is a *CommandLineError saying what it is and what to do instead.
func SplitCommandLine(line string) ([]catalog.Template, error) {
	if strings.ContainsRune(line, '\n') {
		return nil, &CommandLineError{Msg: "a command is one line: a new line would start a second command, which needs a shell; " + runAScript}
	}
	safe, tmpls, err := protect(line)
	if err != nil {
		return nil, err
	}
	col := func(p syntax.Pos) int {
		// The parser counts bytes of the protected line.
		off := int(p.Offset())
		if off > len(safe) {
			off = len(safe)
		}
		return columnOf(line, len(restore(safe[:off], tmpls)))
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX), syntax.KeepComments(true)).Parse(strings.NewReader(safe), "")
	if err != nil {
		var pe syntax.ParseError
		if errors.As(err, &pe) {
			return nil, &CommandLineError{Column: col(pe.Pos), Msg: parseMessage(pe.Text)}
		}
		return nil, &CommandLineError{Msg: err.Error()}
	}
	if len(f.Last) > 0 {
		return nil, &CommandLineError{Column: col(f.Last[0].Hash), Msg: `"#" starts a comment in a command line, which would drop the rest of it; quote it ('#') to pass it as an argument`}
	}
	switch {
	case len(f.Stmts) == 0:
		return nil, nil
	case len(f.Stmts) > 1:
		return nil, &CommandLineError{Column: col(f.Stmts[0].Semicolon), Msg: `";" runs a second command, which needs a shell; ` + runAScript}
	}
	st := f.Stmts[0]
	if len(st.Comments) > 0 {
		return nil, &CommandLineError{Column: col(st.Comments[0].Hash), Msg: `"#" starts a comment in a command line, which would drop the rest of it; quote it ('#') to pass it as an argument`}
	}
	switch {
	case st.Background:
		return nil, &CommandLineError{Column: col(st.Semicolon), Msg: `"&" runs a command in the background, which needs a shell; ` + runAScript}
	case st.Negated:
		return nil, &CommandLineError{Column: col(st.Position), Msg: `"!" negates a command's status, which needs a shell; ` + runAScript}
	case len(st.Redirs) > 0:
		return nil, &CommandLineError{Column: col(st.Redirs[0].OpPos), Msg: fmt.Sprintf("%q redirects input or output, which needs a shell (the program's output is what the tool returns; its input is the Standard input field); ", st.Redirs[0].Op.String()) + runAScript}
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok {
		at := st.Cmd.Pos()
		if b, ok := st.Cmd.(*syntax.BinaryCmd); ok {
			at = b.OpPos
		}
		return nil, &CommandLineError{Column: col(at), Msg: commandMessage(st.Cmd)}
	}
	if len(call.Assigns) > 0 {
		a := call.Assigns[0]
		return nil, &CommandLineError{Column: col(a.Pos()), Msg: fmt.Sprintf("%s=… sets an environment variable, which a shell does: set it under Environment instead", a.Name.Value)}
	}
	argv := make([]catalog.Template, 0, len(call.Args))
	for _, w := range call.Args {
		if err := checkWord(w, col); err != nil {
			return nil, err
		}
		argv = append(argv, catalog.Template(restore(wordText(w), tmpls)))
	}
	return argv, nil
}

// parseMessage words a parser error for people.
func parseMessage(text string) string {
	switch {
	case strings.Contains(text, "without closing quote"):
		return "a quote is not closed: " + text
	case strings.Contains(text, "must be followed by"), strings.Contains(text, "can only immediately follow"):
		return text + " (pipes and && need a shell; " + runAScript + ")"
	}
	return text
}

// commandMessage says why a statement that is no simple command needs a
// shell.
func commandMessage(c syntax.Command) string {
	if b, ok := c.(*syntax.BinaryCmd); ok {
		switch b.Op {
		case syntax.Pipe, syntax.PipeAll:
			return `"|" pipes one program's output into another, which needs a shell; ` + runAScript
		case syntax.AndStmt:
			return `"&&" runs a second command after the first, which needs a shell; ` + runAScript
		case syntax.OrStmt:
			return `"||" runs a second command when the first fails, which needs a shell; ` + runAScript
		}
	}
	return "this is shell code (a group, a loop, a condition or a function), which needs a shell; " + runAScript
}

// checkWord refuses what a shell would expand in a word: variables,
// command and arithmetic substitution, wildcards and a leading ~.
func checkWord(w *syntax.Word, col func(syntax.Pos) int) error {
	var err error
	refuse := func(p syntax.Pos, msg string) {
		if err == nil {
			err = &CommandLineError{Column: col(p), Msg: msg}
		}
	}
	if lit, ok := w.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "~") {
		refuse(lit.Pos(), `"~" stands for your home folder only in a shell: write {{.server.home}} instead (e.g. {{.server.home}}/Notes)`)
	}
	for _, part := range w.Parts {
		if lit, ok := part.(*syntax.Lit); ok {
			if i := unquotedWildcard(lit.Value); i >= 0 {
				refuse(lit.Pos(), fmt.Sprintf("%q is a wildcard, which only a shell expands into file names: quote the argument ('%s') to pass it as it is; ", lit.Value[i:i+1], lit.Value)+runAScript)
			}
		}
	}
	syntax.Walk(w, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			what := "$(…)"
			if x.Backquotes {
				what = "`…`"
			}
			refuse(x.Pos(), fmt.Sprintf("%s runs a command and inserts its output, which needs a shell; ", what)+runAScript)
		case *syntax.ParamExp:
			refuse(x.Pos(), fmt.Sprintf("$%s is a shell variable, which mcptray does not expand: use a template instead — {{.args.NAME}} for a parameter, {{.server.home}} for your home folder — or quote it ('$%[1]s') to pass it as it is", paramName(x)))
		case *syntax.ArithmExp:
			refuse(x.Pos(), "$((…)) is shell arithmetic, which needs a shell; "+runAScript)
		case *syntax.ProcSubst, *syntax.ExtGlob, *syntax.BraceExp:
			refuse(n.Pos(), "this is shell syntax, which needs a shell; "+runAScript)
		}
		return err == nil
	})
	return err
}

func paramName(p *syntax.ParamExp) string {
	if p.Param != nil {
		return p.Param.Value
	}
	return "…"
}

// wordText is a word without its quotes and backslashes, as a POSIX
// shell removes them; checkWord has refused whatever it would expand.
func wordText(w *syntax.Word) string {
	var b strings.Builder
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(x.Value, ""))
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, in := range x.Parts {
				if lit, ok := in.(*syntax.Lit); ok {
					// Inside double quotes a backslash escapes only these.
					b.WriteString(unescape(lit.Value, "$`\"\\\n"))
				}
			}
		}
	}
	return b.String()
}

// unescape removes the backslashes of s that escape a character: any
// character when only is "", else one of only. A backslash before a new
// line joins the lines.
func unescape(s, only string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (only == "" || strings.IndexByte(only, s[i+1]) >= 0) {
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unquotedWildcard is the index of the first unescaped *, ? or [ of an
// unquoted literal as written (backslashes still in it), -1 when none.
func unquotedWildcard(raw string) int {
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return i
		}
	}
	return -1
}

// plainWord matches an argument that a POSIX shell reads as it is, without
// quotes (templates aside).
var plainWord = regexp.MustCompile(`^[\p{L}\p{N}_@%+=:,./^-]+$`)

// JoinCommandLine writes argv as one command line that SplitCommandLine
// reads back to the same argv: an argument that needs quotes gets single
// quotes (a single quote inside it is ended, escaped with a backslash and
// reopened, the POSIX way); templates are written as they are.
func JoinCommandLine(argv []catalog.Template) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = quoteArg(string(a))
		if i == 0 && words[0] == string(a) && strings.Contains(words[0], "=") {
			// NAME=value first would set a variable.
			words[0] = "'" + words[0] + "'"
		}
	}
	return strings.Join(words, " ")
}

func quoteArg(s string) string {
	safe, tmpls, err := protect(s)
	if err != nil {
		// Not readable as a line (an unclosed "{{"): quoted whole, the
		// person sees it and SplitCommandLine names the problem.
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	bare := placeholderRE.ReplaceAllString(safe, "")
	switch {
	case s == "":
		return "''"
	case bare == "" || plainWord.MatchString(bare) && !strings.HasPrefix(bare, "~") && !strings.HasPrefix(safe, "~"):
		return s
	}
	return restore("'"+strings.ReplaceAll(safe, "'", `'\''`)+"'", tmpls)
}

// LocateProgram checks, before any call, that the program of the command
// line this system runs (the command's own, or its line for this system) can
// be found: on the PATH the command will see, or at its path (relative to
// the working folder). server is the template data of .server. It says
// nothing (known false) when the program or the folder depends on the
// call — its arguments, answers or a secret.
func LocateProgram(c *catalog.Command, server map[string]string) (path string, known bool, err error) {
	data := &Data{Server: server}
	here := c.On(data.goos())
	c = &here
	if len(c.Argv) == 0 || dependsOnCall(c.Argv[0]) || dependsOnCall(c.Dir) {
		return "", false, nil
	}
	prog, err := Render(c.Argv[0], data)
	if err != nil || prog == "" {
		return "", false, nil
	}
	dir, err := Render(c.Dir, data)
	if err != nil {
		return "", false, nil
	}
	// Only PATH of the extra variables matters here, and the others may
	// hold secrets this check cannot read.
	probe := catalog.Command{InheritEnv: c.InheritEnv}
	if p, ok := c.Env["PATH"]; ok {
		if dependsOnCall(p) {
			return "", false, nil
		}
		probe.Env = map[string]catalog.Template{"PATH": p}
	}
	env, err := commandEnviron(&probe, data)
	if err != nil {
		return "", false, nil
	}
	path, err = findProgram(prog, dir, env)
	return path, true, err
}

// dependsOnCall says whether a template reads what only a call has: its
// arguments, the answers to its steps, or a secret.
func dependsOnCall(t catalog.Template) bool {
	s := string(t)
	return strings.Contains(s, "{{") && (strings.Contains(s, ".args") || strings.Contains(s, ".inputs") || strings.Contains(s, "secret"))
}
