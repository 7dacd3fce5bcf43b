package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"text/tabwriter"

	"github.com/mcptray/mcptray/clientconfig"
	"github.com/mcptray/mcptray/storage"
)

// clientStatus is what `mcptray clients` knows about one config file.
type clientStatus struct {
	Client     clientconfig.Client
	Path       string
	Found      bool // the file or its folder exists: the client is installed
	Configured bool
	Problem    string
}

// scanClients looks at every client's config files on env.
func scanClients(env clientconfig.Env, name string) []clientStatus {
	var out []clientStatus
	for _, client := range clientconfig.Clients() {
		for _, path := range clientconfig.Paths(client, env) {
			c := clientconfig.ForFile(client, path)
			s := clientStatus{Client: c, Path: path}
			b, err := os.ReadFile(path)
			switch {
			case err == nil:
				s.Found = true
				ok, err := clientconfig.Configured(c, b, name)
				s.Configured = ok
				if err != nil {
					s.Problem = "the file does not parse: " + err.Error()
				}
			case errors.Is(err, fs.ErrNotExist):
				dir := filepath.Dir(path)
				switch {
				case c.ID == "claude-code":
					dir = filepath.Join(dir, ".claude") // ~/.claude.json sits in the home dir itself
				case c.OwnFile:
					dir = filepath.Dir(dir) // mcptray's own file, in a folder it creates
				}
				// A file mcptray never creates is not where it would go.
				if st, err := os.Stat(dir); err == nil && st.IsDir() && c.ID != "claude-code-project" && c.ExistingOnly == "" {
					s.Found = true
				}
			default:
				s.Problem = err.Error()
			}
			out = append(out, s)
		}
	}
	return out
}

// clientsCmd lists the AI clients found here and whether they use mcptray.
func clientsCmd(ctx context.Context, args []string, env Env) error {
	stdout := env.Stdout
	fs, db := newFlags("clients")
	name := fs.String("name", "mcptray", "the server's name in the clients")
	all := fs.Bool("all", false, "also list clients that were not found")
	pos, err := parseFlags(fs, args, env.Stdout)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{"usage: mcptray clients [--all] [--name N]"}
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLIENT\tFOUND\tRUNNING\tMCPTRAY\tCONFIG FILE")
	shown := 0
	procs := clientconfig.RunningProcesses()
	for _, s := range scanClients(clientconfig.LocalEnv(runtime.GOOS), *name) {
		if !s.Found && !*all {
			continue
		}
		shown++
		found, conf := "no", "-"
		if s.Found {
			found, conf = "yes", "not configured"
		}
		if s.Configured {
			conf = "configured"
		}
		if s.Problem != "" {
			conf = s.Problem
		}
		running := "-"
		if r, known := clientconfig.Running(s.Client, procs); known {
			running = map[bool]string{true: "yes", false: "no"}[r]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Client.ID, found, running, conf, s.Path)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if shown == 0 {
		fmt.Fprintln(stdout, "no AI clients found (mcptray clients --all lists where it looked)")
	}
	if err := listEntries(ctx, stdout, *db); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "connect one with: mcptray config CLIENT --install; see whether it works with: mcptray config CLIENT --check")
	return nil
}

// listEntries lists the installed HTTP entries: the token each holds and
// the file it was written to.
func listEntries(ctx context.Context, out io.Writer, db string) error {
	return withExistingStore(db, func(st *storage.Store) error {
		if st == nil {
			return nil
		}
		entries, err := clientconfig.Entries(ctx, st)
		if err != nil || len(entries) == 0 {
			return err
		}
		fmt.Fprintln(out, "\nHTTP entries, each with a token of its own:")
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "TOKEN\tCLIENT\tNAME\tTOKEN KEPT IN\tWRITTEN TO")
		for _, e := range entries {
			kept := "the file"
			if e.EnvVar != "" {
				kept = "$" + e.EnvVar
			} else if e.Client == "vscode" {
				kept = "VS Code"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Token, e.Client, e.Name, kept, e.File)
		}
		return tw.Flush()
	})
}
