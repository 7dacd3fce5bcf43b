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
	Path string
	Old  []byte // nil when the file does not exist
	New  []byte // nil when the file is to be deleted
	// Changed says the file is to be written (or deleted).
	Changed bool
	// Private says the file will hold a live token: it is written readable
	// only by its owner, whatever its mode was.
	Private bool
	// Note says why a file is left alone: one mcptray does not create
	// (Client.ExistingOnly) does not exist.
	Note string
}

// PlanInstall reads path and computes the merged content. A malformed file
// is an error and is never written.
func PlanInstall(c Client, path string, f Form, p Params) (Plan, error) {
	c = ForFile(c, path)
	old, err := readConfig(path)
	if err != nil {
		return Plan{}, err
	}
	if old == nil && c.ExistingOnly != "" {
		return Plan{Path: path, Note: "it does not exist, and " + c.ExistingOnly + "."}, nil
	}
	out, err := Merge(c, old, f, p)
	if err != nil {
		return Plan{}, fmt.Errorf("%s: %w", path, err)
	}
	return Plan{Path: path, Old: old, New: out, Changed: !bytes.Equal(old, out),
		Private: f == HTTP && TokenInFile(c, p)}, nil
}

// PlanRemove reads path and computes its content without the entry
// named name; Changed is false when the file has no such entry.
func PlanRemove(c Client, path, name string) (Plan, error) {
	c = ForFile(c, path)
	old, err := readConfig(path)
	if err != nil {
		return Plan{}, err
	}
	out, found, err := Remove(c, old, name)
	if err != nil {
		return Plan{}, fmt.Errorf("%s: %w", path, err)
	}
	if !found {
		return Plan{Path: path, Old: old, New: old}, nil
	}
	return Plan{Path: path, Old: old, New: out, Changed: true}, nil
}

// readConfig reads a config file; a missing one is nil, no error.
func readConfig(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return b, nil
}

// Applied is what Apply did to one file.
type Applied struct {
	Path string
	// Backup is the path of the copy of the file's previous content; ""
	// when the file is new.
	Backup string
	// WasMode is the mode of a file that was readable by others and is
	// now readable only by its owner because it holds a token; 0 when it
	// was not changed.
	WasMode fs.FileMode
	// Deleted says the file was removed (it held mcptray's entry only).
	Deleted bool
}

// Apply writes a plan: the old file is first copied to PATH.bak, then the
// new content replaces it atomically, keeping its permissions — except
// that a file holding a live token (Private) is made readable only by its
// owner, backup included, and new files are created so anyway. The file
// must still hold what the plan read.
func (pl Plan) Apply() (Applied, error) {
	return pl.apply(pl.Path + ".bak")
}

// apply writes a plan, the old file copied to backup first (Apply).
func (pl Plan) apply(backup string) (Applied, error) {
	done := Applied{Path: pl.Path}
	if !pl.Changed {
		return done, nil
	}
	mode := fs.FileMode(0o600)
	if st, err := os.Stat(pl.Path); err == nil {
		mode = st.Mode().Perm()
		cur, err := os.ReadFile(pl.Path)
		if err != nil {
			return done, fmt.Errorf("reading %s: %w", pl.Path, err)
		}
		if !bytes.Equal(cur, pl.Old) {
			return done, fmt.Errorf("%s changed since it was read; nothing was written — run the command again", pl.Path)
		}
		if pl.Private && mode&0o077 != 0 {
			done.WasMode, mode = mode, mode&0o700
		}
		// The backup may hold a token too: it gets the new file's mode.
		done.Backup = backup
		if err := atomicfile.WriteFile(done.Backup, cur, mode); err != nil {
			return done, fmt.Errorf("backing up %s: %w", pl.Path, err)
		}
	} else if err := os.MkdirAll(filepath.Dir(pl.Path), 0o755); err != nil {
		return done, fmt.Errorf("creating the folder of %s: %w", pl.Path, err)
	}
	if pl.New == nil {
		if err := os.Remove(pl.Path); err != nil {
			return done, fmt.Errorf("removing %s: %w", pl.Path, err)
		}
		done.Deleted = true
		return done, nil
	}
	return done, atomicfile.WriteFile(pl.Path, pl.New, mode)
}
