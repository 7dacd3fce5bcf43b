package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// errHelp is a -h answered with the command's flags: not a failure.
var errHelp = errors.New("help shown")

// newFlags makes a command's flag set with the shared --db flag.
func newFlags(name string) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	db := fs.String("db", "", "database file (default: <config dir>/mcptray/mcptray.db)")
	return fs, db
}

// parseFlags parses flags that may come before or after positional args;
// -h prints the flags on stdout.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(stdout)
				fs.PrintDefaults()
				return nil, errHelp
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

// dbPath is the database --db names, absolute, or the default one.
func dbPath(flagValue string) (string, error) {
	if flagValue == "" {
		return paths.DefaultDB()
	}
	abs, err := filepath.Abs(flagValue)
	if err != nil {
		return "", fmt.Errorf("database path: %w", err)
	}
	return abs, nil
}

// withStore opens the database --db names (or the default one), runs fn
// on it and closes it: the opening every store command shares.
func withStore(dbFlag string, fn func(st *storage.Store) error) error {
	path, err := dbPath(dbFlag)
	if err != nil {
		return err
	}
	st, err := storage.Open(path, mcpcore.Validator{})
	if err != nil {
		return err
	}
	err = fn(st)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	return err
}
