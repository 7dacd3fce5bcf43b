package mcpcore

import (
	"fmt"
	"maps"
	"slices"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore/actions"
)

func upstreamEntry(name string) string { return fmt.Sprintf("server %q", name) }

// ValidateUpstream lists the problems of one upstream server's definition:
// catalog.Upstream's own rules, and templates in its environment and
// headers that do not parse.
func ValidateUpstream(u catalog.Upstream) []catalog.Problem {
	p := &problems{entry: upstreamEntry(u.Name)}
	for _, m := range u.Problems() {
		p.add("", "%s", m)
	}
	var values map[string]catalog.Template
	field := ""
	switch {
	case u.Command != nil:
		values, field = u.Command.Env, "command.env"
	case u.Remote != nil:
		values, field = u.Remote.Headers, "remote.headers"
	}
	for _, k := range slices.Sorted(maps.Keys(values)) {
		if err := actions.CheckTemplate(values[k]); err != nil {
			p.add(field+"."+k, "%v", err)
		}
	}
	return p.list
}

// UpstreamSecrets names the secrets an upstream's environment or headers
// read, sorted, each once.
func UpstreamSecrets(u catalog.Upstream) []string {
	var names []string
	for _, m := range []map[string]catalog.Template{commandEnv(u), remoteHeaders(u)} {
		for _, v := range m {
			names = append(names, actions.SecretsUsed(v)...)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func commandEnv(u catalog.Upstream) map[string]catalog.Template {
	if u.Command == nil {
		return nil
	}
	return u.Command.Env
}

func remoteHeaders(u catalog.Upstream) map[string]catalog.Template {
	if u.Remote == nil {
		return nil
	}
	return u.Remote.Headers
}

// upstreamLinks lists the tools whose upstream action names a server the
// catalog does not hold.
func upstreamLinks(c *catalog.Catalog) []catalog.Problem {
	known := map[string]bool{}
	for _, u := range c.Upstreams {
		known[u.Name] = true
	}
	var ps []catalog.Problem
	for _, t := range c.Tools {
		if up := t.Action.Upstream; up != nil && up.Server != "" && !known[up.Server] {
			ps = append(ps, catalog.Problem{Entry: toolEntry(t.Name), Field: "action.upstream.server",
				Message: fmt.Sprintf("no server named %q: add it first (mcptray upstream add)", up.Server)})
		}
	}
	return ps
}
