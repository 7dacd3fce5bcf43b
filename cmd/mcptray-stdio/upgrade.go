package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcptray/mcptray/internal/upgrade"
)

// An upgrade replaces the mcptray program while an old mcptray still
// serves, and while the shim itself keeps running (Claude Desktop keeps
// its servers' processes for as long as it runs). Before it relays a
// request, the shim looks whether the program it would start (cfg.bin)
// is newer than the server the endpoint file names (upgrade.Outdated); if
// so, it starts the program, which takes over from the old server (serve
// and the app do: daemon.TakeOver, daemon.HandOver), and sends the request
// to the new one. Looking costs one stat of the program per request; the
// program is asked its version (`mcptray version`) only when its file
// changed, and once when the shim starts (unless the shim sits beside it,
// installed with it: then the program's version is the shim's).

// versionTimeout bounds `mcptray version`.
const versionTimeout = 5 * time.Second

// installed is what the shim last learned of the program at cfg.bin.
type installed struct {
	file os.FileInfo // nil: not looked at yet
	// version is what the program said (asked: it was asked; "" when it
	// could not tell).
	version string
	asked   bool
}

// same says whether fi is the file i was learned from: the same file,
// size and time (an upgrade writes a new file and renames it in place).
func (i installed) same(fi os.FileInfo) bool {
	return i.file != nil && os.SameFile(i.file, fi) && i.file.Size() == fi.Size() && i.file.ModTime().Equal(fi.ModTime())
}

// programChanged says whether the program at cfg.bin is no longer the file
// the shim last asked its version; the caller holds u.mu.
func (u *upstreamFinder) programChanged() bool {
	if u.cfg.bin == "" {
		return false
	}
	fi, err := os.Stat(u.cfg.bin)
	if err != nil {
		return false
	}
	if u.prog.file == nil {
		// The first look, as the shim starts: what the program is now is
		// what a change is measured against.
		u.prog.file = fi
		return false
	}
	return !u.prog.same(fi)
}

// programVersion is the version of the program at cfg.bin, asked again
// only when its file changed; the caller holds u.mu.
func (u *upstreamFinder) programVersion(ctx context.Context) string {
	if u.cfg.bin == "" {
		return ""
	}
	fi, err := os.Stat(u.cfg.bin)
	if err != nil {
		return ""
	}
	if u.prog.same(fi) && u.prog.asked {
		return u.prog.version
	}
	if !u.prog.asked && u.prog.same(fi) && besideMe(u.cfg.bin) {
		// The program installed with this shim, unchanged since the shim
		// started: its version is the shim's, and asking it would cost a
		// start of mcptray (0.2 s) on the shim's first request.
		u.prog = installed{file: fi, version: version, asked: true}
		return version
	}
	u.prog = installed{file: fi, version: askVersion(ctx, u.cfg.bin), asked: true}
	u.replacing = 0 // a new program: worth a new try
	return u.prog.version
}

// besideMe says whether bin is in the folder of this program: the two
// were installed together (the .deb, `make install`, the archive).
func besideMe(bin string) bool {
	me, err := os.Executable()
	if err != nil {
		return false
	}
	if real, err := filepath.EvalSymlinks(me); err == nil {
		me = real
	}
	return filepath.Dir(me) == filepath.Dir(bin)
}

// askVersion runs `bin version`, which prints "mcptray VERSION"; "" when
// it does not.
func askVersion(ctx context.Context, bin string) string {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "version")
	var out bytes.Buffer
	cmd.Stdout = &out
	if cmd.Run() != nil {
		return ""
	}
	name, v, ok := strings.Cut(strings.TrimSpace(out.String()), " ")
	if !ok || name != "mcptray" {
		return ""
	}
	return v
}

// outdated says whether ep's server should make way for the program at
// cfg.bin, and was not tried already; the caller holds u.mu.
func (u *upstreamFinder) outdated(ctx context.Context, ep endpoint) bool {
	v := u.programVersion(ctx)
	return v != "" && u.replacing != ep.PID && upgrade.Outdated(ep.Endpoint, v)
}
