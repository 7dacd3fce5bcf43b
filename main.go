// Command mcptray serves the tools, resources and prompts a person defines
// to AI assistants over MCP. Without arguments it runs the desktop app on
// the user's database; `mcptray serve` runs the same server headless. The
// commands live in internal/cli; gui.go (left out by `-tags headless`)
// adds the desktop app.
package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcptray/mcptray/internal/cli"
	"github.com/mcptray/mcptray/internal/localefix"
)

// version is stamped at build time with -ldflags "-X main.version=…"
// (scripts/build.sh), from FyneApp.toml: the one place it is written. A
// build without the stamp (go build, go run) says it is "dev".
var version = "dev"

func main() {
	localefix.Restore()
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Version: version, Desktop: desktop(), Window: window()})
	stop()
	os.Exit(code)
}
