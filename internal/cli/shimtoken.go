package cli

import (
	"context"
	"fmt"

	"github.com/mcptray/mcptray/internal/daemon"
	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/storage"
)

// shimTokenCmd makes sure the stdio shim has a working token: it keeps the
// one in the token file while the database still knows it, and otherwise
// creates a new "stdio-shim" token and writes it to the file (0600). The
// secret is never printed. The shim runs this itself when it has no token.
func shimTokenCmd(ctx context.Context, args []string, env Env) error {
	fs, db := newFlags("shim-token")
	file := fs.String("file", "", "token file (default: <config dir>/mcptray/shim-token)")
	renew := fs.Bool("renew", false, "replace the token even when the current one still works")
	quiet := fs.Bool("quiet", false, "print nothing on success")
	pos, err := parseFlags(fs, args, env.Stdout)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{"usage: mcptray shim-token [--file PATH] [--renew] [--quiet]"}
	}
	path := *file
	if path == "" {
		if path, err = paths.ShimTokenFile(); err != nil {
			return err
		}
	}
	return withStore(*db, func(st *storage.Store) error {
		created, err := daemon.EnsureShimToken(ctx, st, path, *renew)
		if err != nil {
			return err
		}
		switch {
		case *quiet:
		case created:
			fmt.Fprintf(env.Stdout, "created the stdio shim's token %q in %s\n", daemon.ShimTokenName, path)
		default:
			fmt.Fprintf(env.Stdout, "the stdio shim's token in %s is valid\n", path)
		}
		return nil
	})
}
