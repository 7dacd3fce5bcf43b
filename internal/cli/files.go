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

// filesCmd runs `mcptray files search|clean`: the helpers the starter's
// search_notes and clean_downloads call through {{.server.executable}} on
// every system (internal/files says why). They need no database.
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

// filesArg parses a files command's flags, defined on fs, and returns its
// one argument (usage says what it is otherwise). What follows "--" is
// taken as it is: a query that starts with "-" (or reads "--in=C:\") is
// text to look for, never a flag, however a tool's template filled it in.
func filesArg(fs *flag.FlagSet, args []string, stdout io.Writer, usage string) (string, error) {
	var rest []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, rest = args[:i], args[i+1:]
	}
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return "", err
	}
	if pos = append(pos, rest...); len(pos) != 1 {
		return "", usageError{"usage: " + usage}
	}
	return pos[0], nil
}

// filesFlags is a files command's flag set: no --db, which it needs not.
func filesFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

func filesSearchCmd(args []string, env Env) error {
	fs := filesFlags("files search")
	in := fs.String("in", ".", "the folder to search, with its sub-folders")
	ext := fs.String("ext", "", "only files with these extensions, comma-separated (.md,.txt); default: every file")
	limit := fs.Int("max-per-file", 0, "at most this many lines of each file (0: all)")
	query, err := filesArg(fs, args, env.Stdout, "mcptray files search [--in DIR] [--ext .md,.txt] [--max-per-file N] [--] QUERY")
	if err != nil {
		return err
	}
	if *limit < 0 {
		return usageError{fmt.Sprintf("--max-per-file must be 0 (all) or more, not %d", *limit)}
	}
	var exts []string
	if *ext != "" {
		exts = strings.Split(*ext, ",")
	}
	found, err := files.Search(env.Stdout, *in, query, files.SearchOptions{Exts: exts, MaxPerFile: *limit})
	for _, e := range found.Unreadable {
		fmt.Fprintf(env.Stderr, "mcptray: skipped: %v\n", e)
	}
	if err != nil {
		return fmt.Errorf("files search: %w", err)
	}
	if found.Lines == 0 {
		fmt.Fprintln(env.Stdout, files.NothingFound(*in, query, exts))
	}
	return nil
}

func filesCleanCmd(args []string, env Env) error {
	fs := filesFlags("files clean")
	days := fs.Int("older-than-days", 0, "delete the files last changed more than this many days ago (1 or more)")
	dir, err := filesArg(fs, args, env.Stdout, "mcptray files clean DIR --older-than-days N")
	if err != nil {
		return err
	}
	if *days < 1 {
		return usageError{fmt.Sprintf("--older-than-days must be a whole number of days, 1 or more (not %d)", *days)}
	}
	n, err := files.Clean(env.Stdout, dir, *days, time.Now())
	if err != nil {
		return fmt.Errorf("files clean: %w", err)
	}
	if n == 0 {
		fmt.Fprintln(env.Stdout, files.NothingOld(dir, *days))
	}
	return nil
}
