package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mcptray/mcptray/internal/files"
)

// filesCmd runs `mcptray files search|clean`: the helpers the examples'
// Windows lines call through {{.server.executable}} (internal/files says
// why). They need no database.
func filesCmd(_ context.Context, args []string, env Env) error {
	if len(args) == 0 {
		return usageError{"usage: mcptray files search|clean …"}
	}
	switch args[0] {
	case "search":
		return filesSearchCmd(args[1:], env)
	case "clean":
		return filesCleanCmd(args[1:], env)
	}
	return usageError{fmt.Sprintf("unknown files command %q: search or clean", args[0])}
}

// filesFlags parses a files command's flags. What follows "--" is taken
// as it is, every argument of it: a query that starts with "-" (or reads
// "--in=C:\") is text to look for, never a flag, however a tool's
// template filled it in.
func filesFlags(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	var rest []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, rest = args[:i], args[i+1:]
	}
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return nil, err
	}
	return append(pos, rest...), nil
}

func filesSearchCmd(args []string, env Env) error {
	fs := flag.NewFlagSet("files search", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	in := fs.String("in", ".", "the folder to search, with its sub-folders")
	ext := fs.String("ext", "", "only files with these extensions, comma-separated (.md,.txt); default: every file")
	limit := fs.Int("max-per-file", 0, "at most this many lines of each file (0: all)")
	pos, err := filesFlags(fs, args, env.Stdout)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{"usage: mcptray files search [--in DIR] [--ext .md,.txt] [--max-per-file N] [--] QUERY"}
	}
	if *limit < 0 {
		return usageError{fmt.Sprintf("--max-per-file must be 0 (all) or more, not %d", *limit)}
	}
	var exts []string
	if *ext != "" {
		exts = strings.Split(*ext, ",")
	}
	found, err := files.Search(env.Stdout, *in, pos[0], files.SearchOptions{Exts: exts, MaxPerFile: *limit})
	for _, e := range found.Unreadable {
		fmt.Fprintf(env.Stderr, "mcptray: skipped: %v\n", e)
	}
	if err != nil {
		return fmt.Errorf("files search: %w", err)
	}
	if found.Lines == 0 {
		fmt.Fprintln(env.Stdout, files.NothingFound(*in, pos[0], exts))
	}
	return nil
}

func filesCleanCmd(args []string, env Env) error {
	fs := flag.NewFlagSet("files clean", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	days := fs.Int("older-than-days", 0, "delete the files last changed more than this many days ago (1 or more)")
	pos, err := filesFlags(fs, args, env.Stdout)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{"usage: mcptray files clean DIR --older-than-days N"}
	}
	if *days < 1 {
		return usageError{fmt.Sprintf("--older-than-days must be a whole number of days, 1 or more (not %d)", *days)}
	}
	n, err := files.Clean(env.Stdout, pos[0], *days, time.Now())
	if err != nil {
		return fmt.Errorf("files clean: %w", err)
	}
	if n == 0 {
		fmt.Fprintln(env.Stdout, files.NothingOld(pos[0], *days))
	}
	return nil
}
