package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// shimTokenName is the client token the stdio shim uses.
const shimTokenName = "stdio-shim"

// defaultShimTokenFile is where mcptray-stdio reads its token.
func defaultShimTokenFile() (string, error) {
	d, err := mcpcore.ConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "shim-token"), nil
}

// shimTokenCmd makes sure the stdio shim has a working token: it keeps the
// one in the token file while the database still knows it, and otherwise
// creates a new "stdio-shim" token and writes it to the file (0600). The
// secret is never printed.
func shimTokenCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs, db := newFlags("shim-token")
	file := fs.String("file", "", "token file (default: <config dir>/mcptray/shim-token)")
	renew := fs.Bool("renew", false, "replace the token even when the current one still works")
	quiet := fs.Bool("quiet", false, "print nothing on success")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{"usage: mcptray shim-token [--file PATH] [--renew]"}
	}
	st, _, err := openStore(*db)
	if err != nil {
		return err
	}
	defer st.Close()
	path := *file
	if path == "" {
		if path, err = defaultShimTokenFile(); err != nil {
			return err
		}
	}
	created, err := ensureShimToken(ctx, st, path, *renew)
	if err != nil {
		return err
	}
	if !*quiet {
		if created {
			fmt.Fprintf(stdout, "created the stdio shim's token %q in %s\n", shimTokenName, path)
		} else {
			fmt.Fprintf(stdout, "the stdio shim's token in %s is valid\n", path)
		}
	}
	return nil
}

// ensureShimToken keeps a valid token in path, creating one when needed;
// it reports whether it created one.
func ensureShimToken(ctx context.Context, st *storage.Store, path string, renew bool) (bool, error) {
	// Several shims may ask at once (clients start servers twice): one at a
	// time, and whoever comes second finds the first one's token valid.
	unlock, err := lockFile(ctx, path+".lock")
	if err != nil {
		return false, err
	}
	defer unlock()
	if !renew {
		if b, err := os.ReadFile(path); err == nil {
			if p, err := st.VerifyToken(ctx, strings.TrimSpace(string(b))); err == nil && p.Token == shimTokenName {
				return false, nil
			}
		}
	}
	secret, err := st.ReplaceToken(ctx, shimTokenName)
	if err != nil {
		return false, err
	}
	if err := writePrivateFile(path, []byte(secret+"\n")); err != nil {
		return false, err
	}
	return true, nil
}

// writePrivateFile writes data atomically to path, readable only by the user.
func writePrivateFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o600)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// lockFile takes an exclusive lock by creating path, waiting up to 10 s
// for another holder; a lock older than 30 s is considered abandoned.
func lockFile(ctx context.Context, path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if st, err := os.Stat(path); err == nil && time.Since(st.ModTime()) > 30*time.Second {
			os.Remove(path)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s is held by another mcptray; remove it if no mcptray is running", path)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
