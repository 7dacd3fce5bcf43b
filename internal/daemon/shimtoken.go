package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcptray/mcptray/internal/atomicfile"
	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/storage"
)

// ShimTokenName is the client token the stdio shim (mcptray-stdio) uses.
const ShimTokenName = "stdio-shim"

// EnsureShimToken keeps a valid stdio-shim token in the file at path: the
// token already there while the database still knows it (unless renew),
// else a new one replacing the old (0600). It reports whether it made one.
func EnsureShimToken(ctx context.Context, st *storage.Store, path string, renew bool) (bool, error) {
	// Several shims may ask at once (clients start servers twice): one at a
	// time, and whoever comes second finds the first one's token valid.
	unlock, err := lockFile(ctx, paths.LockFile(path), 10*time.Second)
	if err != nil {
		return false, err
	}
	defer unlock()
	if !renew {
		if b, err := os.ReadFile(path); err == nil {
			if p, err := st.VerifyToken(ctx, strings.TrimSpace(string(b))); err == nil && p.Token == ShimTokenName {
				return false, nil
			}
		}
	}
	secret, err := st.ReplaceToken(ctx, ShimTokenName)
	if err != nil {
		return false, fmt.Errorf("the stdio shim's token: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, fmt.Errorf("the stdio shim's token: %w", err)
	}
	if err := atomicfile.WriteFile(path, []byte(secret+"\n"), 0o600); err != nil {
		return false, fmt.Errorf("the stdio shim's token: %w", err)
	}
	return true, nil
}
