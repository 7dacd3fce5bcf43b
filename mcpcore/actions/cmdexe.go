package actions

import (
	"fmt"
	"path"
	"strings"

	"github.com/mcptray/mcptray/catalog"
)

// This file holds what is special about Windows' command interpreter,
// cmd.exe. A program reads its arguments from one command line, which Go
// writes by the rules of Microsoft's C runtime: any value arrives as one
// argument. cmd reads its command line by other rules — & | < > ^ ( ) and
// %NAME% are commands, pipes and variables there, even inside the C
// runtime's quoting — and so does every batch file (.bat, .cmd), which
// Windows runs through cmd. Two rules follow:
//
//   - A value of the call (its arguments, the answers to its steps, a
//     secret) never reaches cmd's reading: an argument of cmd or of a batch
//     file may not hold one. The value goes in an environment variable
//     (Env: NAME={{.args.x}}), which the command reads as !NAME! with
//     `cmd /v:on`: such a variable is expanded after cmd has read the
//     line, so whatever it holds is text, never a command.
//   - What is left is text the person wrote, for cmd: mcptray passes cmd's
//     arguments as written, joined by spaces, rather than quoted for the C
//     runtime (whose \" cmd does not understand), so that
//     `cmd /d /c powershell -Command "Get-Date" || echo %DATE%` runs as
//     typed in a console.

// readByCmd says whether cmd.exe reads the command line of program (a
// name or a path): cmd itself, or a batch file.
func readByCmd(program string) bool {
	base := programBase(program)
	return isCmd(program) || strings.HasSuffix(base, ".bat") || strings.HasSuffix(base, ".cmd")
}

// isCmd says whether program is cmd.exe itself, whose arguments mcptray
// passes as written.
func isCmd(program string) bool {
	base := programBase(program)
	return base == "cmd" || base == "cmd.exe"
}

// programBase is the file name of program, a name or a Windows or Unix
// path, in lower case: Windows' file names ignore case.
func programBase(program string) string {
	return strings.ToLower(path.Base(strings.ReplaceAll(program, `\`, "/")))
}

// cmdValueMessage is why a value of the call may not be an argument of a
// program cmd reads.
const cmdValueMessage = "Windows' command interpreter (cmd) reads this argument as commands, so a value of the call (.args, .inputs, a secret) must not be in it: " +
	"put the value in a variable (More variables: NAME={{.args.x}}) and write !NAME! with cmd /v:on, which cmd expands after reading the line"

// cmdValueProblems lists the arguments of argv that put a value of the
// call before cmd when its program is cmd or a batch file, written as is.
func cmdValueProblems(field func(string) string, argv []catalog.Template) []Problem {
	if len(argv) == 0 || strings.Contains(string(argv[0]), "{{") || !readByCmd(string(argv[0])) {
		return nil
	}
	var ps []Problem
	for i, a := range argv[1:] {
		if dependsOnCall(a) {
			ps = append(ps, problemf(field(fmt.Sprintf("argv[%d]", i+1)), "%s", cmdValueMessage))
		}
	}
	return ps
}

// checkCmdValues refuses to run program — resolved, on Windows — when cmd
// would read a value of the call among its arguments: a definition from
// before the rule, or a program that only turns out to be a batch file
// once its name is filled in.
func checkCmdValues(program string, argv []catalog.Template) error {
	if !readByCmd(program) {
		return nil
	}
	for i, a := range argv[1:] {
		if dependsOnCall(a) {
			return fmt.Errorf("argv[%d]: not run: %s", i+1, cmdValueMessage)
		}
	}
	return nil
}

// cmdCommandLine is the command line cmd.exe is started with: its
// arguments as written, joined by spaces.
func cmdCommandLine(argv []string) string {
	prog := argv[0]
	if strings.ContainsAny(prog, " \t") {
		prog = `"` + prog + `"`
	}
	return strings.Join(append([]string{prog}, argv[1:]...), " ")
}
