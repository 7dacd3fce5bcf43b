// Package atomicfile writes files so that a reader sees the old content or
// the new, never a mix or a truncated file: the data goes to a temporary
// file in the same folder, which then replaces the target in one rename.
// (github.com/google/renameio does the same but does not build on Windows,
// where most of mcptray's users are.)
package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile writes data to path with the permission bits perm, replacing
// any file there at once. The folder must exist. A crash leaves either the
// old file or the new one, and at worst a stray hidden temporary file.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	// The temporary file is hidden and named after its target, so a
	// leftover says where it came from. CreateTemp makes it 0600: nobody
	// else can read it before its mode is set.
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing left to remove
	_, err = tmp.Write(data)
	if err == nil {
		// Without the sync, a power cut after the rename can leave an
		// empty file under the target's name on some file systems.
		err = tmp.Sync()
	}
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	// Make the rename itself durable. Windows cannot open a folder this
	// way; its renames are durable once MoveFileEx returns.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
