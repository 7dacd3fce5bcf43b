package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"text/tabwriter"

	"github.com/mcptray/mcptray/clientconfig"
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
	for _, c := range clientconfig.Clients() {
		for _, path := range clientconfig.Paths(c, env) {
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
				if c.ID == "claude-code" {
					dir = filepath.Join(dir, ".claude") // ~/.claude.json sits in the home dir itself
				}
				if st, err := os.Stat(dir); err == nil && st.IsDir() && c.ID != "claude-code-project" {
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
func clientsCmd(_ context.Context, args []string, env Env) error {
	stdout := env.Stdout
	fs, _ := newFlags("clients")
	name := fs.String("name", "mcptray", "the server's name in the clients")
	all := fs.Bool("all", false, "also list clients that were not found")
	pos, err := parseFlags(fs, args, env.Stdout)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{"usage: mcptray clients [--all]"}
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
	fmt.Fprintln(stdout, "connect one with: mcptray config CLIENT --install")
	return nil
}
