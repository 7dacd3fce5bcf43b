package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/clientconfig"
	"github.com/mcptray/mcptray/internal/daemon"
	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/internal/process"
	"github.com/mcptray/mcptray/internal/upgrade"
	"github.com/mcptray/mcptray/storage"
)

// configUsage is the config command's synopsis.
var configUsage = "usage: mcptray config CLIENT [--http] [--print|--install|--remove|--check] [--yes] [--name N] [--file F]; CLIENT is one of " +
	strings.Join(clientconfig.IDs(), ", ")

// configJob is one config command: the client, the files, the entry.
type configJob struct {
	c     clientconfig.Client
	env   clientconfig.Env
	files []string
	name  string
	db    string
	out   io.Writer
	// version is this mcptray's: --check says when an older one answers.
	version string
	// same are the flags given that pick this entry (--name, --file,
	// --db): the commands a person is told to run next repeat them.
	same []string
}

// command is the mcptray command line that does flags to the entry of j:
// with the flags that picked it, lest it act on another entry.
func (j configJob) command(flags ...string) string {
	words := append(append([]string{"mcptray", "config", j.c.ID}, flags...), j.same...)
	for i, w := range words {
		words[i] = shellWord(w)
	}
	return strings.Join(words, " ")
}

// plainWord matches what a shell reads as one word without quotes.
var plainWord = regexp.MustCompile(`^[\p{L}\p{N}_@%+=:,./-]+$`)

// shellWord is s as one word for a POSIX shell: quoted when it holds a
// space or anything else a shell would read.
func shellWord(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// configCmd prints, installs, removes or checks mcptray's entry in an AI
// client's config.
func configCmd(ctx context.Context, args []string, env Env) error {
	fs, db := newFlags("config")
	httpForm := fs.Bool("http", false, "connect over HTTP with a token of the entry's own instead of the stdio shim")
	printOnly := fs.Bool("print", false, "print the entry (the default)")
	install := fs.Bool("install", false, "merge the entry into the client's config file (a backup is kept)")
	remove := fs.Bool("remove", false, "take mcptray's entry out of the client's config file and revoke its token")
	check := fs.Bool("check", false, "run the installed entry as the client would, and say whether it works")
	yes := fs.Bool("yes", false, "with --install or --remove: write without asking")
	name := fs.String("name", clientconfig.DefaultName, "the server's name in the client")
	shim := fs.String("shim", "", "path of mcptray-stdio (default: next to this program)")
	file := fs.String("file", "", "the client's config file (default: where the client keeps it)")
	pos, err := parseFlags(fs, args, env.Stdout)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{configUsage}
	}
	if n := countTrue(*printOnly, *install, *remove, *check); n > 1 {
		return usageError{"--print, --install, --remove and --check exclude each other"}
	}
	c, ok := clientconfig.Lookup(pos[0])
	if !ok {
		return usageError{fmt.Sprintf("unknown client %q; known: %s", pos[0], strings.Join(clientconfig.IDs(), ", "))}
	}
	if *name == "" {
		return usageError{"--name must not be empty"}
	}
	j := configJob{c: c, env: clientconfig.LocalEnv(runtime.GOOS), name: *name, db: *db, out: env.Stdout, version: env.Version}
	if *name != clientconfig.DefaultName {
		j.same = append(j.same, "--name", *name)
	}
	if *file != "" {
		abs, err := filepath.Abs(*file)
		if err != nil {
			return fmt.Errorf("--file %q: %w", *file, err)
		}
		j.files = []string{abs}
		j.same = append(j.same, "--file", abs)
	} else {
		j.files = clientconfig.Paths(c, j.env)
	}
	if *db != "" {
		j.same = append(j.same, "--db", *db)
	}
	switch {
	case *check:
		return j.check(ctx)
	case *remove:
		return j.remove(ctx, env.Stdin, *yes)
	}
	form := clientconfig.Stdio
	if *httpForm {
		form = clientconfig.HTTP
		if !c.HTTP {
			return fmt.Errorf("%s reads only stdio servers from its config file; leave out --http (the stdio shim needs no token in the file)", c.Name)
		}
	}
	p := clientconfig.Params{Name: *name, Shared: clientconfig.InProject(c, j.env, j.files[0])}
	if form == clientconfig.Stdio {
		if p.ShimPath, err = clientconfig.ShimPath(*shim); err != nil {
			return err
		}
		if clientconfig.Shared(c, p) {
			note, warn := clientconfig.SharedShimNote(p.ShimPath)
			fmt.Fprintf(env.Stdout, "%s: %s\n", map[bool]string{false: "note", true: "warning"}[warn], note)
		} else if checkout, ok := clientconfig.BuildFolder(p.ShimPath); ok {
			// A shared file names no folder, so only the person's own
			// file would point into the checkout.
			fmt.Fprintf(env.Stdout, "note: %s\n", clientconfig.BuildFolderWarning(checkout))
		}
	} else {
		if p.URL, err = serverURL(ctx, *db); err != nil {
			return err
		}
		p.Token = clientconfig.TokenPlaceholder
	}
	if !*install {
		return j.print(form, p)
	}
	return j.install(ctx, env.Stdin, *yes, form, p)
}

// clientList is the clients' IDs, comma separated, in lines of at most
// width characters indented by indent spaces.
func clientList(indent, width int) string {
	var b strings.Builder
	line := strings.Repeat(" ", indent)
	for i, id := range clientconfig.IDs() {
		word := id
		if i < len(clientconfig.IDs())-1 {
			word += ","
		}
		if len(line)+1+len(word) > width && strings.TrimSpace(line) != "" {
			b.WriteString(line + "\n")
			line = strings.Repeat(" ", indent)
		}
		if strings.TrimSpace(line) != "" {
			line += " "
		}
		line += word
	}
	b.WriteString(line)
	return b.String()
}

func countTrue(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// print shows the entry and where it goes.
func (j configJob) print(form clientconfig.Form, p clientconfig.Params) error {
	// Files of one syntax share a snippet; Continue has two syntaxes.
	for i := 0; i < len(j.files); {
		c := clientconfig.ForFile(j.c, j.files[i])
		n := i + 1
		for n < len(j.files) && clientconfig.ForFile(j.c, j.files[n]).Format == c.Format {
			n++
		}
		snippet, err := clientconfig.Snippet(c, form, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(j.out, "# %s (%s) — add this to %s\n", j.c.Name, form, strings.Join(j.files[i:n], " and "))
		if c.ExistingOnly != "" {
			fmt.Fprintf(j.out, "# (if it exists: %s)\n", c.ExistingOnly)
		}
		j.out.Write(snippet)
		i = n
	}
	install := []string{"--install"}
	if form == clientconfig.HTTP {
		install = []string{"--http", "--install"}
	}
	fmt.Fprintf(j.out, "# or let mcptray merge it into the file: %s\n", j.command(install...))
	if form == clientconfig.HTTP {
		fmt.Fprintf(j.out, "# --install creates a token for this entry (%q), revoked by --remove.\n", j.tokenName(j.files[0]))
	}
	return nil
}

// tokenName is the token of the entry in file.
func (j configJob) tokenName(file string) string {
	return clientconfig.TokenName(j.c, j.env, file, j.name)
}

// confirm asks before writing, unless yes.
func confirm(in io.Reader, out io.Writer, yes bool) bool {
	if yes {
		return true
	}
	fmt.Fprint(out, "Write this? [y/N] ")
	answer, _ := bufio.NewReader(in).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(answer)); a == "y" || a == "yes" {
		return true
	}
	fmt.Fprintln(out, "nothing written")
	return false
}

// showPlans prints each file's change; it reports whether any.
func (j configJob) showPlans(plans []clientconfig.Plan, none string) bool {
	changed := false
	for _, pl := range plans {
		if !pl.Changed {
			if pl.Note != "" {
				fmt.Fprintf(j.out, "%s: left alone: %s\n", pl.Path, pl.Note)
			} else {
				fmt.Fprintf(j.out, "%s: %s\n", pl.Path, none)
			}
			continue
		}
		changed = true
		verb := "change"
		switch {
		case pl.Old == nil:
			verb = "create"
		case pl.New == nil:
			verb = "delete"
		}
		fmt.Fprintf(j.out, "mcptray will %s %s:\n%s\n", verb, pl.Path, clientconfig.Diff(pl.Old, pl.New))
		if pl.Private {
			fmt.Fprintln(j.out, "(it will hold the entry's token, so it is written readable only by you)")
		}
	}
	return changed
}

// reportFiles says what was written, and which file was made private.
func (j configJob) reportFiles(files []clientconfig.Applied) {
	for _, w := range files {
		switch {
		case w.Deleted:
			fmt.Fprintf(j.out, "deleted %s (it held mcptray's entry only; the previous version is in %s)\n", w.Path, w.Backup)
		case w.Backup != "":
			fmt.Fprintf(j.out, "wrote %s (the previous version is in %s)\n", w.Path, w.Backup)
		default:
			fmt.Fprintf(j.out, "wrote %s\n", w.Path)
		}
		if w.WasMode != 0 {
			fmt.Fprintf(j.out, "made %s readable only by you (it was %04o): it holds a token now\n", w.Path, w.WasMode)
		}
	}
}

func (j configJob) install(ctx context.Context, in io.Reader, yes bool, form clientconfig.Form, p clientconfig.Params) error {
	var plans []clientconfig.Plan
	for _, path := range j.files {
		pl, err := clientconfig.PlanInstall(j.c, path, form, p)
		if err != nil {
			return err
		}
		plans = append(plans, pl)
	}
	if !j.showPlans(plans, "mcptray is already configured there") || !confirm(in, j.out, yes) {
		return nil
	}
	var done clientconfig.Installed
	err := withStore(j.db, func(st *storage.Store) error {
		if form == clientconfig.Stdio {
			if tf, err := paths.ShimTokenFile(); err == nil {
				// The shim would do this on its first start; doing it now makes that start fast.
				if _, err := daemon.EnsureShimToken(ctx, st, tf, false); err != nil {
					fmt.Fprintf(j.out, "note: the shim's token could not be prepared (%v); it will try on its first start\n", err)
				}
			}
		}
		var err error
		done, err = clientconfig.Install(ctx, st, j.c, form, p, plans, j.tokenName(plans[0].Path))
		return err
	})
	if err != nil {
		return err
	}
	j.reportFiles(done.Files)
	if done.Token != "" {
		fmt.Fprintf(j.out, "created the token %q for this entry (`%s` takes the entry out and revokes it)\n", done.TokenName, j.command("--remove"))
		if how := clientconfig.TokenInstructions(j.c, p, done.Token); how != "" {
			fmt.Fprintln(j.out, how)
		}
	}
	if running, _ := clientconfig.Running(j.c, clientconfig.RunningProcesses()); running {
		fmt.Fprintf(j.out, "%s is running with its old config: it reads the file only when it starts.\n", j.c.Name)
	}
	fmt.Fprintf(j.out, "Next: %s\nThen: %s runs the entry as %s would.\n", j.c.Restart, j.command("--check"), j.c.Name)
	return nil
}

func (j configJob) remove(ctx context.Context, in io.Reader, yes bool) error {
	var plans []clientconfig.Plan
	for _, path := range j.files {
		pl, err := clientconfig.PlanRemove(j.c, path, j.name)
		if err != nil {
			return err
		}
		plans = append(plans, pl)
	}
	changed := j.showPlans(plans, fmt.Sprintf("no entry named %q", j.name))
	if changed && !confirm(in, j.out, yes) {
		return nil
	}
	token := j.tokenName(plans[0].Path)
	var done []clientconfig.Applied
	// Even with no entry left to take out, its token goes: the entry may
	// have been deleted by hand.
	err := withExistingStore(j.db, func(st *storage.Store) error {
		var tokens clientconfig.Tokens // none without a database: a nil *Store is not a nil interface
		if st != nil {
			tokens = st
		}
		var err error
		done, err = clientconfig.Uninstall(ctx, tokens, plans, token)
		return err
	})
	if err != nil {
		return err
	}
	j.reportFiles(done)
	if changed {
		fmt.Fprintf(j.out, "Next: %s\n", j.c.Restart)
	}
	return nil
}

// check runs the entry in each file as the client would: every file
// that exists (Claude Desktop on Windows may have two, Continue has two),
// or the first. A file mcptray never creates is said to be missing.
func (j configJob) check(ctx context.Context) error {
	var files []string
	for _, path := range j.files {
		if _, err := os.Stat(path); err == nil {
			files = append(files, path)
		} else if why := clientconfig.ForFile(j.c, path).ExistingOnly; why != "" {
			fmt.Fprintf(j.out, "not checked: %s — it does not exist, and %s.\n", path, why)
		}
	}
	if len(files) == 0 {
		files = j.files[:1]
	}
	failed := 0
	for _, path := range files {
		got, err := clientconfig.Check(ctx, j.c, path, j.name, os.Environ())
		var ce *clientconfig.CheckError
		switch {
		case err == nil && upgrade.Older(got.Version, j.version):
			// It answers, with the program an update replaced: what the
			// person installed is not what the client gets.
			failed++
			fmt.Fprintf(j.out, "FAILED: %s — %s, but that mcptray is version %s, older than the installed %s: it was started before mcptray was updated, and still runs the old program\n"+
				"  fix: Start mcptray again (from your applications menu, or `mcptray`): %s takes over from the old one once no question waits for an answer there. If the old one stays, quit it from its tray menu first.\n",
				path, got, got.Version, j.version, j.version)
		case err == nil:
			fmt.Fprintf(j.out, "OK: %s — %s\n", path, got)
		case errors.As(err, &ce):
			failed++
			fmt.Fprintf(j.out, "FAILED: %s — %s\n  fix: %s\n", path, ce.Problem, ce.Fix)
		default:
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("the %s entry does not work (see above)", j.c.Name)
	}
	return nil
}

// withExistingStore is withStore for a database that may not exist: none
// is no error and fn gets nil (there is nothing to revoke in it).
func withExistingStore(db string, fn func(st *storage.Store) error) error {
	path, err := dbPath(db)
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return fn(nil)
	}
	return withStore(path, fn)
}

// serverURL is where the server of db answers: the running server's URL
// when it serves db, else the URL the port setting gives (without
// creating a database that does not exist yet). A running server on
// another database is refused — a token made in db would be refused there
// — and so is one on a port of this run only.
func serverURL(ctx context.Context, db string) (string, error) {
	path, err := dbPath(db)
	if err != nil {
		return "", err
	}
	set := catalog.DefaultSettings()
	if _, err := os.Stat(path); err == nil {
		if err := withStore(path, func(st *storage.Store) error {
			set, err = st.Settings(ctx)
			return err
		}); err != nil {
			return "", err
		}
	}
	f, err := paths.EndpointFile()
	if err != nil {
		return set.ListenURL(), nil
	}
	ep, err := paths.ReadEndpoint(f)
	if err != nil || !process.Alive(ep.PID) {
		return set.ListenURL(), nil
	}
	if ep.DB != "" && ep.DB != path {
		return "", fmt.Errorf("the mcptray running at %s serves the database %s, not %s: a token made in %s would be refused there — "+
			"stop that mcptray first, or install for its database with --db %s", ep.URL, ep.DB, path, path, ep.DB)
	}
	if err := clientconfig.StableURL(ep.URL, set.ListenPort()); err != nil {
		return "", err
	}
	return ep.URL, nil
}
