package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/clientconfig"
	"github.com/mcptray/mcptray/internal/daemon"
	"github.com/mcptray/mcptray/internal/paths"
	"github.com/mcptray/mcptray/internal/process"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// configCmd prints or installs mcptray's entry in an AI client's config.
func configCmd(ctx context.Context, args []string, env Env) error {
	stdout := env.Stdout
	fs, db := newFlags("config")
	httpForm := fs.Bool("http", false, "connect over HTTP with a client token instead of the stdio shim")
	printOnly := fs.Bool("print", false, "print the config (the default)")
	install := fs.Bool("install", false, "merge the entry into the client's config file (a backup is kept)")
	yes := fs.Bool("yes", false, "with --install: write without asking")
	name := fs.String("name", "mcptray", "the server's name in the client")
	shim := fs.String("shim", "", "path of mcptray-stdio (default: next to this program)")
	file := fs.String("file", "", "the client's config file (default: where the client keeps it)")
	pos, err := parseFlags(fs, args, env.Stdout)
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
		if p.ShimPath, err = clientconfig.ShimPath(*shim); err != nil {
			return err
		}
	} else {
		p.URL = currentURL(ctx, *db)
		p.Token = clientconfig.TokenPlaceholder
	}
	files := []string{*file}
	if *file == "" {
		files = clientconfig.Paths(c, clientconfig.LocalEnv(runtime.GOOS))
	}

	if !*install {
		snippet, err := clientconfig.Snippet(c, form, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "# %s (%s) — add this to %s\n", c.Name, form, strings.Join(files, " and "))
		stdout.Write(snippet)
		fmt.Fprintf(stdout, "# or let mcptray merge it into the file: mcptray config %s%s --install\n", c.ID, map[bool]string{true: " --http"}[*httpForm])
		if form == clientconfig.HTTP {
			fmt.Fprintln(stdout, "# --install creates a dedicated client token for it (revocable with `mcptray token revoke "+c.ID+"`).")
		}
		return nil
	}

	var plans []clientconfig.Plan
	for _, path := range files {
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
		fmt.Fprintf(stdout, "mcptray will %s %s:\n%s\n", verb, pl.Path, clientconfig.Diff(pl.Old, pl.New))
	}
	if !changed {
		return nil
	}
	if !*yes {
		fmt.Fprint(stdout, "Write this? [y/N] ")
		answer, _ := bufio.NewReader(env.Stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			fmt.Fprintln(stdout, "nothing written")
			return nil
		}
	}

	var done clientconfig.Installed
	err = withStore(*db, func(st *storage.Store) error {
		if form == clientconfig.Stdio {
			if tf, err := paths.ShimTokenFile(); err == nil {
				// The shim would do this on its first start; doing it now makes that start fast.
				if _, err := daemon.EnsureShimToken(ctx, st, tf, false); err != nil {
					fmt.Fprintf(stdout, "note: the shim's token could not be prepared (%v); it will try on its first start\n", err)
				}
			}
		}
		var err error
		done, err = clientconfig.Install(ctx, st, c, form, p, plans)
		return err
	})
	if err != nil {
		return err
	}
	for _, w := range done.Files {
		if w.Backup != "" {
			fmt.Fprintf(stdout, "wrote %s (the previous version is in %s)\n", w.Path, w.Backup)
		} else {
			fmt.Fprintf(stdout, "wrote %s\n", w.Path)
		}
	}
	if form == clientconfig.HTTP {
		fmt.Fprintf(stdout, "created the client token %q (revoke it with `mcptray token revoke %s`)\n", c.ID, c.ID)
		if how := clientconfig.TokenInstructions(c, done.Token); how != "" {
			fmt.Fprintln(stdout, how)
		}
	}
	if running, _ := clientconfig.Running(c, clientconfig.RunningProcesses()); running {
		fmt.Fprintf(stdout, "%s is running with its old config: it reads the file only when it starts.\n", c.Name)
	}
	fmt.Fprintf(stdout, "Next: %s\n", c.Restart)
	return nil
}

// currentURL is the running server's URL, else the one the port setting
// gives (without creating a database that does not exist yet).
func currentURL(ctx context.Context, db string) string {
	if f, err := paths.EndpointFile(); err == nil {
		if ep, err := paths.ReadEndpoint(f); err == nil && process.Alive(ep.PID) {
			return ep.URL
		}
	}
	set := mcpcore.DefaultSettings()
	if path, err := dbPath(db); err == nil {
		if _, err := os.Stat(path); err == nil {
			_ = withStore(path, func(st *storage.Store) error {
				if s, err := st.Settings(ctx); err == nil {
					set = s
				}
				return nil
			})
		}
	}
	return set.ListenURL()
}
