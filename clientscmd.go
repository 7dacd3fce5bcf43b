package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/mcptray/mcptray/app/clientconfig"
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
func clientsCmd(_ context.Context, args []string, stdout io.Writer) error {
	fs, _ := newFlags("clients")
	name := fs.String("name", "mcptray", "the server's name in the clients")
	all := fs.Bool("all", false, "also list clients that were not found")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{"usage: mcptray clients [--all]"}
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLIENT\tFOUND\tRUNNING\tMCPTRAY\tCONFIG FILE")
	shown := 0
	procs := runningProcesses()
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
		if _, gui := clientProcesses[s.Client.ID]; gui {
			running = map[bool]string{true: "yes", false: "no"}[clientRunning(s.Client.ID, procs)]
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

// clientProcesses are the process names of the GUI clients that read their
// config only at start (compared without case and without ".exe").
var clientProcesses = map[string][]string{
	"claude-desktop": {"claude", "claude-desktop"},
	"cursor":         {"cursor"},
	"vscode":         {"code"},
	"windsurf":       {"windsurf"},
	"zed":            {"zed", "zed-editor"},
}

// runningProcesses lists the names of the running processes, best effort.
func runningProcesses() map[string]bool {
	names := map[string]bool{}
	add := func(n string) {
		n = strings.ToLower(strings.TrimSpace(strings.Trim(strings.TrimSpace(n), `"`)))
		n = strings.TrimSuffix(n, ".exe")
		if n != "" {
			names[n] = true
		}
	}
	switch runtime.GOOS {
	case "linux":
		files, _ := filepath.Glob("/proc/[0-9]*/comm")
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil {
				add(string(b))
			}
		}
	case "windows":
		out, _ := exec.Command("tasklist", "/fo", "csv", "/nh").Output()
		for _, l := range strings.Split(string(out), "\n") {
			first, _, _ := strings.Cut(l, ",")
			add(first)
		}
	default:
		out, _ := exec.Command("ps", "-axco", "comm=").Output()
		for _, l := range strings.Split(string(out), "\n") {
			add(l)
		}
	}
	return names
}

func clientRunning(id string, procs map[string]bool) bool {
	for _, n := range clientProcesses[id] {
		if procs[n] {
			return true
		}
	}
	return false
}
