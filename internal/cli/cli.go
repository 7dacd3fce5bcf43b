// Package cli is the mcptray command line: one file per command, each
// parsing its flags, opening what it needs (the store, through openStore;
// the server, through the daemon package) and printing for people. Main is
// what the mcptray program runs; the desktop app is handed in as a
// Desktop, so that a headless build has every command but no GUI.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcptray/mcptray/internal/daemon"
)

// Env is what a command reads and writes, and how the program was built.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Version is mcptray's version, stamped at build time.
	Version string
	// Desktop runs the desktop app; nil in the headless build, where
	// `mcptray` with no command serves headless.
	Desktop Desktop
	// Window runs the manager window's own process (WindowCommand); nil
	// in the headless build.
	Window Window
}

// WindowCommand is the command the desktop app starts its manager window
// with, in a process of its own linked by stdin and stdout. It is no
// command for people, so the usage leaves it out.
const WindowCommand = "window"

// Window runs the manager window's own process on env's stdin and stdout
// until the window closes.
type Window func(ctx context.Context, env Env) error

// Desktop runs the desktop app on the server cfg describes until the
// person quits it or ctx ends.
type Desktop func(ctx context.Context, cfg DesktopConfig) error

// DesktopConfig is what the desktop app is started with.
type DesktopConfig struct {
	// Daemon assembles the server the app serves.
	Daemon daemon.Config
	// ShowManager opens the manager window at start.
	ShowManager bool
	// Stderr receives what a person starting the app must read.
	Stderr io.Writer
}

// usage lists the commands; the AI clients come from clientconfig, so
// none is left out.
var usage = fmt.Sprintf(usageText, clientList(34, 90))

const usageText = `mcptray — your own tools, resources and prompts for AI assistants, over MCP.

Usage:
  mcptray [--open] [--addr A]     run the desktop app (tray + manager window) on your
                                  default database; headless without a display
  mcptray serve [flags]           run the MCP server headless (see serve -h)
  mcptray token create NAME [--tools a,b]   create a client token (shown once)
  mcptray token list | revoke NAME
  mcptray import FILE [--merge]   import a catalog JSON (all or nothing)
  mcptray import-openapi SPEC [--base-url URL] [--only ID,...] [--prefix P] [--replace] [--list]
                                  add a tool per operation of an OpenAPI 3.0/3.1 or
                                  Swagger 2.0 file or URL (all or nothing)
  mcptray export [FILE]           export the catalog JSON (stdout by default)
  mcptray tool|prompt enable|disable|toggle NAME
  mcptray tool from-curl NAME [--secret-name N] [--param ID[=NAME]] [--yes] -
                                  make an http tool of a curl command read from stdin;
                                  its credentials become secrets
  mcptray upstream add NAME -- COMMAND [ARG...] | add NAME URL
                                  serve another MCP server's tools through mcptray's
                                  tokens, approvals and activity log (see upstream -h)
  mcptray upstream list | tools NAME | changes [NAME] | approve NAME [TOOL...]
  mcptray settings [set KEY=VALUE ...]   show or change settings
  mcptray secret set NAME         store a secret, its value read from stdin
  mcptray secret list | rename OLD NEW | delete NAME
  mcptray activity [--limit N] [--client X] [--tool X] [--outcome X] [--follow]
                                  show the activity log
  mcptray config CLIENT [--http] [--print|--install|--remove|--check] [--yes]
                  [--name N] [--file F]
                                  connect an AI client, take mcptray out of it again, or
                                  run its entry as the client would; CLIENT is one of
%s
  mcptray clients                 which AI clients are here, which use mcptray, and the
                                  HTTP entries with their tokens
  mcptray shim-token [--renew]    provision the token of mcptray-stdio (the stdio shim)
  mcptray files search [--in DIR] [--ext .md,.txt] [--max-per-file N] [--] QUERY
                                  the lines of the files in DIR and its folders that
                                  mention QUERY, in any case, as PATH:LINE:TEXT
  mcptray files clean DIR --older-than-days N
                                  delete the files in DIR (not in its folders) last
                                  changed more than N days ago, each path printed
  mcptray version

Every command but files takes --db PATH (default: your config dir's mcptray/mcptray.db).
`

// usageError is a mistake on the command line: Main prints the usage
// after it and exits 2.
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

// Main runs the command line args and returns the process's exit status,
// having printed any error on env.Stderr.
func Main(ctx context.Context, args []string, env Env) int {
	err := Run(ctx, args, env)
	if err == nil {
		return 0
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(env.Stderr, "mcptray: %v\n\n%s", err, usage)
		return 2
	}
	if errors.Is(err, errHelp) {
		return 0
	}
	fmt.Fprintf(env.Stderr, "mcptray: %v\n", err)
	return 1
}

// Run dispatches a command line.
func Run(ctx context.Context, args []string, env Env) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && args[0] != "-h" && args[0] != "--help" && args[0] != "--version" {
		return appCmd(ctx, args, env)
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return serveCmd(ctx, rest, env)
	case "token":
		return tokenCmd(ctx, rest, env)
	case "upstream":
		return upstreamCmd(ctx, rest, env)
	case "import":
		return importCmd(ctx, rest, env)
	case "import-openapi":
		return importOpenAPICmd(ctx, rest, env)
	case "export":
		return exportCmd(ctx, rest, env)
	case "settings":
		return settingsCmd(ctx, rest, env)
	case "secret":
		return secretCmd(ctx, rest, env)
	case "activity":
		return activityCmd(ctx, rest, env)
	case "tool", "prompt":
		if cmd == "tool" && len(rest) > 0 && rest[0] == "from-curl" {
			return fromCurlCmd(ctx, rest[1:], env)
		}
		return toggleCmd(ctx, cmd, rest, env)
	case "shim-token":
		return shimTokenCmd(ctx, rest, env)
	case "config":
		return configCmd(ctx, rest, env)
	case "clients":
		return clientsCmd(ctx, rest, env)
	case "files":
		return filesCmd(ctx, rest, env)
	case WindowCommand:
		if env.Window == nil {
			return errors.New("this mcptray is built without the desktop app (headless): it has no window")
		}
		if len(rest) > 0 {
			return usageError{fmt.Sprintf("%s takes no arguments: the desktop app starts it", WindowCommand)}
		}
		return env.Window(ctx, env)
	case "version", "--version":
		fmt.Fprintln(env.Stdout, "mcptray", env.Version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(env.Stdout, usage)
		return nil
	}
	return usageError{fmt.Sprintf("unknown command %q", cmd)}
}
