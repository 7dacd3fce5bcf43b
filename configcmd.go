package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/app/clientconfig"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// tokenPlaceholder stands for the client's token until the user agrees to
// the change; the real token is created only then.
const tokenPlaceholder = "<new token, created when you confirm>"

// configCmd prints or installs mcptray's entry in an AI client's config.
func configCmd(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	fs, db := newFlags("config")
	httpForm := fs.Bool("http", false, "connect over HTTP with a client token instead of the stdio shim")
	printOnly := fs.Bool("print", false, "print the config (the default)")
	install := fs.Bool("install", false, "merge the entry into the client's config file (a backup is kept)")
	yes := fs.Bool("yes", false, "with --install: write without asking")
	name := fs.String("name", "mcptray", "the server's name in the client")
	shim := fs.String("shim", "", "path of mcptray-stdio (default: next to this program)")
	file := fs.String("file", "", "the client's config file (default: where the client keeps it)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{"usage: mcptray config CLIENT [--http] [--print|--install] [--yes]; CLIENT is one of " + strings.Join(clientconfig.IDs(), ", ")}
	}
	if *printOnly && *install {
		return usageError{"--print and --install exclude each other"}
	}
	c, ok := clientconfig.Lookup(pos[0])
	if !ok {
		return usageError{fmt.Sprintf("unknown client %q; known: %s", pos[0], strings.Join(clientconfig.IDs(), ", "))}
	}
	form := clientconfig.Stdio
	if *httpForm {
		form = clientconfig.HTTP
		if !c.HTTP {
			return fmt.Errorf("%s reads only stdio servers from its config file; leave out --http (the stdio shim needs no token in the file)", c.Name)
		}
	}
	p := clientconfig.Params{Name: *name}
	if form == clientconfig.Stdio {
		if p.ShimPath, err = shimPath(*shim); err != nil {
			return err
		}
	} else {
		p.URL = currentURL()
		p.Token = tokenPlaceholder
	}
	paths := []string{*file}
	if *file == "" {
		paths = clientconfig.Paths(c, clientconfig.LocalEnv(runtime.GOOS))
	}

	if !*install {
		snippet, err := clientconfig.Snippet(c, form, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "# %s (%s) — add this to %s\n", c.Name, form, strings.Join(paths, " and "))
		stdout.Write(snippet)
		fmt.Fprintf(stdout, "# or let mcptray merge it into the file: mcptray config %s%s --install\n", c.ID, map[bool]string{true: " --http"}[*httpForm])
		if form == clientconfig.HTTP {
			fmt.Fprintln(stdout, "# --install creates a dedicated client token for it (revocable with `mcptray token revoke "+c.ID+"`).")
		}
		return nil
	}

	var plans []clientconfig.Plan
	for _, path := range paths {
		pl, err := clientconfig.PlanInstall(c, path, form, p)
		if err != nil {
			return err
		}
		plans = append(plans, pl)
	}
	changed := slices.ContainsFunc(plans, func(pl clientconfig.Plan) bool { return pl.Changed })
	for _, pl := range plans {
		if !pl.Changed {
			fmt.Fprintf(stdout, "%s: mcptray is already configured there\n", pl.Path)
			continue
		}
		verb := "change"
		if pl.Old == nil {
			verb = "create"
		}
		fmt.Fprintf(stdout, "mcptray will %s %s:\n%s\n", verb, pl.Path, lineDiff(pl.Old, pl.New))
	}
	if !changed {
		return nil
	}
	if !*yes {
		fmt.Fprint(stdout, "Write this? [y/N] ")
		answer, _ := bufio.NewReader(stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			fmt.Fprintln(stdout, "nothing written")
			return nil
		}
	}

	st, _, err := openStore(*db)
	if err != nil {
		return err
	}
	defer st.Close()
	secret := ""
	if form == clientconfig.HTTP {
		if secret, err = rotateToken(ctx, st, c.ID); err != nil {
			return err
		}
		p.Token = secret
	} else if tf, err := defaultShimTokenFile(); err == nil {
		// The shim would do this on its first start; doing it now makes that start fast.
		if _, err := ensureShimToken(ctx, st, tf, false); err != nil {
			fmt.Fprintf(stdout, "note: the shim's token could not be prepared (%v); it will try on its first start\n", err)
		}
	}
	for _, path := range paths {
		pl, err := clientconfig.PlanInstall(c, path, form, p)
		if err != nil {
			return err
		}
		backup, err := pl.Apply()
		if err != nil {
			return err
		}
		switch {
		case !pl.Changed:
		case backup != "":
			fmt.Fprintf(stdout, "wrote %s (the previous version is in %s)\n", pl.Path, backup)
		default:
			fmt.Fprintf(stdout, "wrote %s\n", pl.Path)
		}
	}
	if form == clientconfig.HTTP {
		fmt.Fprintf(stdout, "created the client token %q (revoke it with `mcptray token revoke %s`)\n", c.ID, c.ID)
		switch {
		case c.TokenEnv != "":
			fmt.Fprintf(stdout, "%s reads the token from the environment; set it where you start it (shown only now):\n  export %s=%s\n", c.Name, c.TokenEnv, secret)
		case c.ID == "vscode":
			fmt.Fprintf(stdout, "VS Code asks for the token once and keeps it in its secret storage; paste this (shown only now):\n  %s\n", secret)
		}
	}
	if clientRunning(c.ID, runningProcesses()) {
		fmt.Fprintf(stdout, "%s is running with its old config: it reads the file only when it starts.\n", c.Name)
	}
	fmt.Fprintf(stdout, "Next: %s\n", c.Restart)
	return nil
}

// rotateToken creates the client's dedicated token, replacing an older one.
func rotateToken(ctx context.Context, st *storage.Store, name string) (string, error) {
	toks, err := st.ListTokens(ctx)
	if err != nil {
		return "", err
	}
	if slices.ContainsFunc(toks, func(t storage.TokenInfo) bool { return t.Name == name }) {
		if err := st.RevokeToken(ctx, name); err != nil && !errors.Is(err, storage.ErrNotFound) {
			return "", err
		}
	}
	return st.CreateToken(ctx, name, nil)
}

// shimPath finds mcptray-stdio next to this program, as an absolute path
// that stays valid (never a macOS App Translocation copy).
func shimPath(flagValue string) (string, error) {
	p := flagValue
	if p == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("finding mcptray's own path: %w", err)
		}
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		name := "mcptray-stdio"
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		p = filepath.Join(filepath.Dir(exe), name)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if strings.Contains(abs, "/AppTranslocation/") {
		return "", errors.New("mcptray runs from a temporary macOS location (App Translocation); move mcptray.app into /Applications, open it from there, and run this again")
	}
	if st, err := os.Stat(abs); err != nil || st.IsDir() {
		return "", fmt.Errorf("mcptray-stdio is not at %s (build it with `make build`, or pass --shim PATH)", abs)
	}
	return abs, nil
}

// currentURL is the running server's URL, else the default one.
func currentURL() string {
	if f, err := mcpcore.DefaultEndpointFile(); err == nil {
		if ep, err := mcpcore.ReadEndpoint(f); err == nil && processAlive(ep.PID) {
			return ep.URL
		}
	}
	return "http://" + defaultAddr + mcpcore.EndpointPath
}

// lineDiff shows what changes between two texts: the changed lines with
// two lines of context, so a large file (~/.claude.json) is not dumped.
func lineDiff(old, new []byte) string {
	a := strings.SplitAfter(string(old), "\n")
	b := strings.SplitAfter(string(new), "\n")
	if len(old) == 0 {
		a = nil
	}
	if len(a) > 0 && a[len(a)-1] == "" {
		a = a[:len(a)-1]
	}
	if len(b) > 0 && b[len(b)-1] == "" {
		b = b[:len(b)-1]
	}
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var sb strings.Builder
	line := func(mark, s string) {
		sb.WriteString(mark + strings.TrimSuffix(s, "\n") + "\n")
	}
	from := max(0, pre-2)
	if from > 0 {
		fmt.Fprintf(&sb, "  … (%d lines unchanged)\n", from)
	}
	for _, s := range a[from:pre] {
		line("  ", s)
	}
	for _, s := range a[pre : len(a)-suf] {
		line("- ", s)
	}
	for _, s := range b[pre : len(b)-suf] {
		line("+ ", s)
	}
	to := min(len(b), len(b)-suf+2)
	for _, s := range b[len(b)-suf : to] {
		line("  ", s)
	}
	if rest := len(b) - to; rest > 0 {
		fmt.Fprintf(&sb, "  … (%d lines unchanged)\n", rest)
	}
	return strings.TrimSuffix(sb.String(), "\n")
}
