package clientconfig

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcptray/mcptray/internal/atomicfile"
)

// Moving servers out of an app (`mcptray upstream import --move`): once
// mcptray fronts them, the app's file keeps only mcptray's entry in their
// place, and the servers the person did not pick. The file is first
// copied to a backup beside it named with the time, with a record of the
// move (what was moved, and what the file then held), so that UndoMove
// can put it back byte for byte — and refuses to when the file changed
// since, unless forced.

// moveMark names a move's backup and record: FILE.mcptray-move-TIME.bak
// and FILE.mcptray-move-TIME.json.
const moveMark = ".mcptray-move-"

// moveTime is how a move's time is written in its files' names: UTC,
// sorting as it reads, without the colons Windows refuses in names.
const moveTime = "20060102T150405.000Z"

// MovePlan is one file's move: the file's change, the app, and the
// entries it takes out.
type MovePlan struct {
	Plan
	Client Client
	Moved  []Source
	// AddsEntry says mcptray's entry is added (the file has none yet).
	AddsEntry bool
	// Hide are the values Preview shows as •••• in the lines that change:
	// the credentials the import takes to the secret store (PlanMoves).
	Hide []string
}

// Preview says what the move changes in the file, for people: the
// entries taken out, mcptray's entry added, where the backup goes, and
// the lines that change (Diff), credentials of Hide masked.
func (mp MovePlan) Preview() string {
	var names []string
	for _, s := range mp.Moved {
		names = append(names, s.Name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): take out %s", mp.Client.Name, mp.Path, strings.Join(names, ", "))
	switch {
	case mp.AddsEntry:
		b.WriteString(", and add mcptray's entry in their place")
	case mp.Note != "":
		b.WriteString("; " + mp.Note)
	default:
		b.WriteString("; mcptray's entry is there already")
	}
	if !mp.Changed {
		b.WriteString(".\nNothing changes in the file.\n")
		return b.String()
	}
	fmt.Fprintf(&b, ".\nThe file is kept first as %s%s….bak, which undo puts back.\n", filepath.Base(mp.Path), moveMark)
	d := Diff(mp.Old, mp.New)
	for _, h := range mp.Hide {
		if h != "" {
			d = strings.ReplaceAll(d, h, "••••")
		}
	}
	b.WriteString(d + "\n")
	return b.String()
}

// PlanMoves plans the move of every server of imp out of its app: one
// plan a file, each taking out the entries of that file — every server's
// own and those of its duplicates (Proposed.Also) — in the order the
// files were read. mcptray's entry gets form f and params p; the
// previews hide the credentials imp takes. It reads the files.
func PlanMoves(imp Import, f Form, p Params) ([]MovePlan, error) {
	var files []Source // the first entry read of each file
	var moved []Source
	for _, s := range imp.Servers {
		for _, src := range append([]Source{s.From}, s.Also...) {
			moved = append(moved, src)
			if !slices.ContainsFunc(files, func(f Source) bool { return f.File == src.File }) {
				files = append(files, src)
			}
		}
	}
	var out []MovePlan
	for _, file := range files {
		c, ok := Lookup(file.Client)
		if !ok {
			return nil, fmt.Errorf("%s: no app %q", file.File, file.Client)
		}
		mp, err := PlanMove(c, file.File, moved, f, p)
		if err != nil {
			return nil, err
		}
		mp.Hide = slices.Collect(maps.Values(imp.SecretValues()))
		out = append(out, mp)
	}
	return out, nil
}

// PlanMove computes the config file of c at path without the entries of
// moved that are in it, and with mcptray's entry (form f, params p)
// unless it has it already. Continue's files in its mcpServers folder are
// only emptied: mcptray's entry is in a file of its own there. A
// malformed file is an error and is never written. It reads the file.
func PlanMove(c Client, path string, moved []Source, f Form, p Params) (MovePlan, error) {
	c = ForFile(c, path)
	mp := MovePlan{Client: c}
	old, err := readConfig(path)
	if err != nil {
		return mp, err
	}
	if old == nil {
		return mp, fmt.Errorf("%s does not exist", path)
	}
	out := old
	for _, s := range moved {
		if s.File != path {
			continue
		}
		if out, err = removeServer(c, out, s); err != nil {
			return mp, fmt.Errorf("%s: taking out %s: %w", path, s.Name, err)
		}
		mp.Moved = append(mp.Moved, s)
	}
	mp.Plan = Plan{Path: path, Old: old}
	if c.OwnFile {
		mp.Note = "mcptray's entry is in a file of its own in the same folder (mcptray config " + c.ID + " --install)"
	} else if has, err := Configured(c, out, p.Name); err != nil {
		return mp, fmt.Errorf("%s: %w", path, err)
	} else if !has {
		if out, err = Merge(c, out, f, p); err != nil {
			return mp, fmt.Errorf("%s: %w", path, err)
		}
		mp.AddsEntry, mp.Private = true, f == HTTP && TokenInFile(c, p)
	}
	mp.New, mp.Changed = out, !bytes.Equal(old, out)
	return mp, nil
}

// errNotThere is why an entry read from a file cannot be taken out.
var errNotThere = errors.New("the file no longer has it, or writes it in a form mcptray does not rewrite (such as TOML dotted keys); " +
	"the file was left untouched — take it out by hand, or read the file again")

// removeServer is content without the server entry s.
func removeServer(c Client, content []byte, s Source) ([]byte, error) {
	if c.Format != JSON && c.Format != JSONC {
		out, found, err := Remove(c, content, s.Name)
		if err == nil && !found {
			err = errNotThere
		}
		return out, err
	}
	// Not Remove: it takes out VS Code's input of mcptray's own entry,
	// and knows only the file's own list, not a Claude Code project's.
	// Every member of the name goes: with the last one gone, an earlier
	// one would be the app's server of that name.
	out := content
	for found := false; ; found = true {
		d, root, err := newDoc(out)
		if err != nil {
			return nil, fmt.Errorf("the file is not valid JSON (%w); it was left untouched", err)
		}
		table := jsonServerTable(root, c.RootKey, s.Project)
		if table == nil || table.get(s.Name) == nil {
			if !found {
				return nil, errNotThere
			}
			return keepLineEnds(content, out), nil
		}
		d.deleteMember(table, s.Name)
		out = d.src
	}
}

// jsonServerTable is the object of a JSON file's servers: the root key's,
// or a Claude Code project's (projects[project].mcpServers); nil when the
// file has none.
func jsonServerTable(root *node, key, project string) *node {
	table := root
	if project != "" {
		if table = lastMember(root, "projects"); table != nil && table.kind == kindObject {
			table = lastMember(table, project)
		}
	}
	if table != nil && table.kind == kindObject {
		table = lastMember(table, key)
	}
	if table == nil || table.kind != kindObject {
		return nil
	}
	return table
}

// moveRecord is what a move's record file holds.
type moveRecord struct {
	Client string    `json:"client"`
	Moved  []string  `json:"moved"`
	At     time.Time `json:"at"`
	// Wrote is the SHA-256 of what the move wrote: the file must still
	// hold it for an undo.
	Wrote string `json:"wrote"`
	// Mode is the file's mode before the move, which made it readable
	// only by its owner if it got a token.
	Mode fs.FileMode `json:"mode"`
}

// Moved is what MoveOut did.
type Moved struct {
	Path   string
	Backup string // the file as it was: UndoMove puts it back
	Record string // what was moved, and what the file then held
}

// MoveOut writes the move (PlanMove): the file is first copied to
// FILE.mcptray-move-TIME.bak beside it (with the file's mode, or only the
// owner's when the file gets a token), with a record of the move in
// FILE.mcptray-move-TIME.json; then the new content replaces it
// atomically. The file must still hold what the plan read. It touches
// the file system.
func (mp MovePlan) MoveOut(now time.Time) (Moved, error) {
	if !mp.Changed {
		return Moved{Path: mp.Path}, nil
	}
	st, err := os.Stat(mp.Path)
	if err != nil || mp.Old == nil || mp.New == nil {
		return Moved{}, fmt.Errorf("%s: a move rewrites a file that exists", mp.Path)
	}
	stem := mp.Path + moveMark + now.UTC().Format(moveTime)
	done := Moved{Path: mp.Path, Backup: stem + ".bak", Record: stem + ".json"}
	rec := moveRecord{Client: mp.Client.ID, At: now.UTC(), Wrote: digest(mp.New), Mode: st.Mode().Perm()}
	for _, s := range mp.Moved {
		rec.Moved = append(rec.Moved, s.Name)
	}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return Moved{}, err
	}
	// The record first: a move cut short leaves a record an undo can
	// still use (forced: the file may hold either content).
	if err := atomicfile.WriteFile(done.Record, append(b, '\n'), 0o600); err != nil {
		return Moved{}, fmt.Errorf("recording the move of %s: %w", mp.Path, err)
	}
	if _, err := mp.apply(done.Backup); err != nil {
		_ = os.Remove(done.Record) // nothing was moved
		return Moved{}, err
	}
	return done, nil
}

// digest is the SHA-256 of b in hex.
func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Undone is what UndoMove did.
type Undone struct {
	Path string
	// Moved are the names of the entries that are back in the file.
	Moved []string
	// At is when they had been moved out.
	At time.Time
	// Saved is where the file's content before the undo was kept, when it
	// had changed since the move and the undo was forced; "" otherwise.
	Saved string
}

// UndoMove puts the file at path back as it was before its last move
// (MoveOut), byte for byte, from the move's backup; the backup and the
// record then go. It refuses when the file changed since the move (it no
// longer holds what the move wrote), unless force is set: the changed
// file is then kept in FILE.mcptray-undo-TIME.bak first. It touches the
// file system.
func UndoMove(path string, force bool, now time.Time) (Undone, error) {
	stem, err := lastMove(path)
	if err != nil {
		return Undone{}, err
	}
	b, err := os.ReadFile(stem + ".json")
	if err != nil {
		return Undone{}, fmt.Errorf("reading the record of the move: %w", err)
	}
	var rec moveRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return Undone{}, fmt.Errorf("%s.json is not a move's record: %w", stem, err)
	}
	old, err := os.ReadFile(stem + ".bak")
	if err != nil {
		return Undone{}, fmt.Errorf("reading the backup of %s: %w", path, err)
	}
	st, err := os.Stat(stem + ".bak")
	if err != nil {
		return Undone{}, fmt.Errorf("reading the backup of %s: %w", path, err)
	}
	done := Undone{Path: path, Moved: rec.Moved, At: rec.At}
	cur, err := readConfig(path)
	if err != nil {
		return Undone{}, err
	}
	if cur == nil || digest(cur) != rec.Wrote {
		if !force {
			return Undone{}, fmt.Errorf("%s changed since mcptray moved %s out of it on %s; nothing was put back. "+
				"Undo anyway (forced) to get the file as it was before the move, losing the changes made since (they are kept in a backup)",
				path, strings.Join(rec.Moved, ", "), rec.At.Local().Format("2 Jan 2006 15:04"))
		}
		if cur != nil {
			done.Saved = path + ".mcptray-undo-" + now.UTC().Format(moveTime) + ".bak"
			if err := atomicfile.WriteFile(done.Saved, cur, st.Mode().Perm()); err != nil {
				return Undone{}, fmt.Errorf("keeping %s before the undo: %w", path, err)
			}
		}
	}
	mode := st.Mode().Perm()
	if rec.Mode != 0 {
		mode = rec.Mode
	}
	if err := atomicfile.WriteFile(path, old, mode); err != nil {
		return Undone{}, fmt.Errorf("putting back %s: %w", path, err)
	}
	// The backup is the file again; the record would undo nothing more.
	for _, f := range []string{stem + ".json", stem + ".bak"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return done, fmt.Errorf("%s is back, but %s could not be removed: %w", path, f, err)
		}
	}
	return done, nil
}

// lastMove is the stem (FILE.mcptray-move-TIME) of the last move of
// path that has a record.
func lastMove(path string) (string, error) {
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		return "", fmt.Errorf("looking for the backup of %s: %w", path, err)
	}
	prefix := filepath.Base(path) + moveMark
	var stems []string
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, prefix) && strings.HasSuffix(n, ".json") {
			stems = append(stems, strings.TrimSuffix(n, ".json"))
		}
	}
	if len(stems) == 0 {
		return "", fmt.Errorf("mcptray has moved no server out of %s: there is nothing to undo", path)
	}
	slices.Sort(stems)
	return filepath.Join(filepath.Dir(path), stems[len(stems)-1]), nil
}
