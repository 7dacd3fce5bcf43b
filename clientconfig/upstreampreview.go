package clientconfig

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/catalog"
)

// Preview says in plain words what the import would do: each server with
// its command line or address (credentials masked: a secret shows as its
// {{secret "NAME"}}), what goes to the secret store, the fields kept but
// not used, the notes, and each entry left out with why. Grouped by the
// file the servers come from, in the order they were read.
func (imp Import) Preview() string {
	var b strings.Builder
	if len(imp.Servers) == 0 {
		b.WriteString("No server to import.\n")
	}
	file := ""
	for _, p := range imp.Servers {
		if p.From.File != file {
			file = p.From.File
			fmt.Fprintf(&b, "From %s (%s):\n", p.From.App, file)
		}
		previewServer(&b, p)
	}
	if s := imp.SecretValues(); len(s) > 0 {
		fmt.Fprintf(&b, "To the secret store (%s, values not shown):\n", count(len(s), "secret", "secrets"))
		for _, p := range imp.Servers {
			for _, s := range p.Secrets {
				fmt.Fprintf(&b, "  %s — %s of %s (%s)\n", s.Name, s.Where, p.Upstream.Name, count(len(s.Value), "character", "characters"))
			}
		}
	}
	if len(imp.Skipped) > 0 {
		b.WriteString("Left out:\n")
		for _, s := range imp.Skipped {
			fmt.Fprintf(&b, "  %s: %s\n", s.From, s.Why)
		}
	}
	return b.String()
}

// previewServer writes one server's lines.
func previewServer(b *strings.Builder, p Proposed) {
	u := p.Upstream
	state := ""
	if u.Disabled {
		state = " (turned off in the app: imported turned off)"
	}
	if p.From.Name != u.Name {
		state += fmt.Sprintf(" (%q in the app)", p.From.Name)
	}
	if p.From.Project != "" {
		state += " (for the project " + p.From.Project + ")"
	}
	if c := u.Command; c != nil {
		fmt.Fprintf(b, "  %s%s — starts the command: %s\n", u.Name, state, commandLine(mask(c.Argv)))
		if c.Dir != "" {
			fmt.Fprintf(b, "    in the folder %s\n", c.Dir)
		}
		previewValues(b, "environment variable", c.Env)
	} else {
		transport := "streamable HTTP"
		if u.Remote.Transport == catalog.UpstreamSSE {
			transport = "the older HTTP+SSE transport"
		}
		fmt.Fprintf(b, "  %s%s — connects to %s (%s)\n", u.Name, state, maskURL(u.Remote.URL), transport)
		previewValues(b, "header", u.Remote.Headers)
	}
	if len(p.Kept) > 0 {
		var names []string
		for _, f := range p.Kept {
			names = append(names, f.Name)
		}
		fmt.Fprintf(b, "    kept, not used: %s\n", strings.Join(names, ", "))
	}
	for _, n := range p.Notes {
		fmt.Fprintf(b, "    note: %s\n", n)
	}
}

// previewValues writes an environment's or headers' values, in order.
func previewValues(b *strings.Builder, what string, values map[string]catalog.Template) {
	for _, k := range sortedKeys(values) {
		fmt.Fprintf(b, "    %s %s = %s\n", what, k, values[k])
	}
}

// commandLine is argv as a person would type it: an argument with spaces
// or quotes is quoted.
func commandLine(argv []string) string {
	out := slices.Clone(argv)
	for i, a := range out {
		if a == "" || strings.ContainsAny(a, " \t\"'\\$") {
			out[i] = fmt.Sprintf("%q", a)
		}
	}
	return strings.Join(out, " ")
}
