// Command mcptray serves the tools, resources and prompts a person defines
// to AI assistants over MCP. Without arguments it runs the app on the
// user's database; `mcptray serve` runs the same server headless.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mcptray/mcptray/internal/localefix"
)

// version is stamped at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

const usage = `mcptray — your own tools, resources and prompts for AI assistants, over MCP.

Usage:
  mcptray [--open] [--addr A]     run the desktop app (tray + manager window) on your
                                  default database; headless without a display
  mcptray serve [flags]           run the MCP server headless (see serve -h)
  mcptray token create NAME [--tools a,b]   create a client token (shown once)
  mcptray token list | revoke NAME
  mcptray import FILE [--merge]   import a catalog JSON (all or nothing)
  mcptray export [FILE]           export the catalog JSON (stdout by default)
  mcptray tool|prompt enable|disable|toggle NAME
  mcptray settings [set KEY=VALUE ...]   show or change settings
  mcptray secret set NAME         store a secret, its value read from stdin
  mcptray secret list | rename OLD NEW | delete NAME
  mcptray activity [--limit N] [--client X] [--tool X] [--outcome X] [--follow]
                                  show the activity log
  mcptray config CLIENT [--http] [--print|--install] [--yes]
                                  connect an AI client (claude-desktop, claude-code,
                                  cursor, vscode, windsurf, zed, codex, gemini)
  mcptray clients                 which AI clients are here and which use mcptray
  mcptray shim-token [--renew]    provision the token of mcptray-stdio (the stdio shim)
  mcptray version

Every command takes --db PATH (default: your config dir's mcptray/mcptray.db).
`

func main() {
	localefix.Restore()
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(os.Stderr, "mcptray: %v\n\n%s", err, usage)
			os.Exit(2)
		}
		fmt.Fprintf(os.Stderr, "mcptray: %v\n", err)
		os.Exit(1)
	}
}

// usageError is a mistake on the command line.
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

// run dispatches a command line; it is main without the process exits.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && args[0] != "-h" && args[0] != "--help" && args[0] != "--version" {
		// The desktop app on the user's database (headless without a display).
		return runApp(ctx, args, stderr)
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "serve":
		return serve(ctx, rest, stderr)
	case "token":
		return tokenCmd(ctx, rest, stdout)
	case "import":
		return importCmd(ctx, rest, stdout)
	case "export":
		return exportCmd(ctx, rest, stdout)
	case "settings":
		return settingsCmd(ctx, rest, stdout)
	case "secret":
		return secretCmd(ctx, rest, os.Stdin, stdout, stderr)
	case "activity":
		return activityCmd(ctx, rest, stdout)
	case "tool", "prompt":
		return toggleCmd(ctx, cmd, rest, stdout)
	case "shim-token":
		return shimTokenCmd(ctx, rest, stdout)
	case "config":
		return configCmd(ctx, rest, os.Stdin, stdout)
	case "clients":
		return clientsCmd(ctx, rest, stdout)
	case "version", "--version":
		fmt.Fprintln(stdout, "mcptray", version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		return usageError{fmt.Sprintf("unknown command %q", cmd)}
	}
}

// newFlags makes a command's flag set with the shared --db flag.
func newFlags(name string) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	db := fs.String("db", "", "database file (default: <config dir>/mcptray/mcptray.db)")
	return fs, db
}

// parseFlags parses flags that may come before or after positional args.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(os.Stdout)
				fs.PrintDefaults()
				return nil, err
			}
			return nil, usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
