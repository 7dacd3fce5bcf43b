package clientconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcptray/mcptray/internal/atomicfile"
)

// Plan is one file's change: what it holds now and what it will hold.
type Plan struct {
	Path    string
	Old     []byte // nil when the file does not exist
	New     []byte
	Changed bool
}

// PlanInstall reads path and computes the merged content. A malformed file
// is an error and is never written.
func PlanInstall(c Client, path string, f Form, p Params) (Plan, error) {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Plan{}, err
	}
	out, err := Merge(c, old, f, p)
	if err != nil {
		return Plan{}, fmt.Errorf("%s: %w", path, err)
	}
	return Plan{Path: path, Old: old, New: out, Changed: !bytes.Equal(old, out)}, nil
}

// Apply writes a plan: the old file is first copied to PATH.bak, then the
// new content replaces it atomically, keeping its permissions (new files are
// readable only by the user, since an HTTP entry may hold a token). It
// returns the backup's path ("" when there was no file).
func (pl Plan) Apply() (string, error) {
	if !pl.Changed {
		return "", nil
	}
	mode := fs.FileMode(0o600)
	backup := ""
	if st, err := os.Stat(pl.Path); err == nil {
		mode = st.Mode().Perm()
		// The file must still be what was shown.
		cur, err := os.ReadFile(pl.Path)
		if err != nil {
			return "", err
		}
		if !bytes.Equal(cur, pl.Old) {
			return "", fmt.Errorf("%s changed since it was read; run the command again", pl.Path)
		}
		backup = pl.Path + ".bak"
		if err := os.WriteFile(backup, cur, mode); err != nil {
			return "", fmt.Errorf("backing up %s: %w", pl.Path, err)
		}
	} else if err := os.MkdirAll(filepath.Dir(pl.Path), 0o755); err != nil {
		return "", err
	}
	if err := atomicfile.WriteFile(pl.Path, pl.New, mode); err != nil {
		return "", err
	}
	return backup, nil
}
