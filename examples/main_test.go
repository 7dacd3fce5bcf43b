package examples_test

import (
	"context"
	"os"
	"testing"

	"github.com/mcptray/mcptray/internal/cli"
)

// TestMain lets this test program stand in for mcptray on every system:
// the starter's search_notes and clean_downloads run {{.server.executable}}
// files …, which these tests fill in with this program (os.Executable), so
// it runs mcptray's own files command when started so. The real mcptray
// runs the same code (cli.Main), so what the tests see is what a person's
// AI app gets.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "files" {
		os.Exit(cli.Main(context.Background(), os.Args[1:], cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Version: "test"}))
	}
	os.Exit(m.Run())
}
