package clientconfig

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcptray/mcptray/catalog"
)

// How each app names the parts of a server entry, and how an entry's
// fields become a catalog.Upstream.

// dialect is how an app names a server's command, environment, address
// and headers.
type dialect struct {
	command, env, headers string
	// urls are the fields that may hold the address, each with the
	// transport the app uses for it when no type says.
	urls []urlField
}

type urlField struct{ field, transport string }

// dialectOf is the dialect of the app with the client ID.
func dialectOf(client string) dialect {
	d := dialect{command: "command", env: "env", headers: "headers", urls: []urlField{{"url", catalog.UpstreamStreamable}}}
	switch client {
	case "windsurf":
		d.urls = []urlField{{"serverUrl", catalog.UpstreamStreamable}, {"url", catalog.UpstreamStreamable}}
	case "gemini":
		// Gemini CLI reads url as the old SSE transport, httpUrl as the new.
		d.urls = []urlField{{"httpUrl", catalog.UpstreamStreamable}, {"url", catalog.UpstreamSSE}}
	case "cline":
		// Without a type Cline takes a URL for the old SSE transport.
		d.urls = []urlField{{"url", catalog.UpstreamSSE}}
	case "goose":
		d.command, d.env, d.urls = "cmd", "envs", []urlField{{"uri", catalog.UpstreamSSE}}
	case "codex":
		d.headers = "http_headers"
	}
	return d
}

// transports are the entries' type values that name a transport.
var transports = map[string]string{
	"stdio": "", "local": "",
	"sse":  catalog.UpstreamSSE,
	"http": catalog.UpstreamStreamable, "streamable-http": catalog.UpstreamStreamable,
	"streamablehttp": catalog.UpstreamStreamable, "streamable_http": catalog.UpstreamStreamable,
}

// notServers are Goose's extension types that are part of Goose rather
// than a server of their own.
var notServers = []string{"builtin", "platform", "frontend", "inline_python"}

// unusedNotes say what a kept field means for the server once mcptray
// runs it.
var unusedNotes = map[string]string{
	"envFile":              "reads environment variables from a file (envFile), which mcptray does not: give them as environment variables",
	"env_vars":             "passes on environment variables of Codex's own (env_vars), which mcptray does not: give them as environment variables",
	"bearer_token_env_var": "sends a token from an environment variable of Codex's (bearer_token_env_var), which mcptray does not: give it as an Authorization header",
	"env_http_headers":     "sends headers from environment variables of Codex's (env_http_headers), which mcptray does not: give them as headers",
	"env_keys":             "reads environment variables from Goose's keyring (env_keys), which mcptray does not: give them as environment variables",
}

// fields reads an entry's fields, remembering which were used.
type fields struct {
	m    map[string]any
	used map[string]bool
}

// str is the field k when it is a string, marked used.
func (f fields) str(k string) (string, bool) {
	s, ok := f.m[k].(string)
	if ok {
		f.used[k] = true
	}
	return s, ok
}

// list is the field k when it is a list of plain values (numbers and
// booleans written as text), marked used.
func (f fields) list(k string) ([]string, error) {
	v, there := f.m[k]
	if !there || v == nil {
		return nil, nil
	}
	items, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s is not a list", k)
	}
	var out []string
	for _, it := range items {
		s, err := scalar(it)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out = append(out, s)
	}
	f.used[k] = true
	return out, nil
}

// table is the field k when it is a mapping of plain values, marked used.
func (f fields) table(k string) (map[string]catalog.Template, error) {
	v, there := f.m[k]
	if !there || v == nil {
		return nil, nil
	}
	f.used[k] = true
	return tableOf(k, v)
}

// tableOf is v, a mapping of plain values, as templates (escaped later,
// in takeSecrets).
func tableOf(k string, v any) (map[string]catalog.Template, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is not a mapping", k)
	}
	out := map[string]catalog.Template{}
	for name, val := range m {
		s, err := scalar(val)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", k, name, err)
		}
		out[name] = catalog.Template(s)
	}
	return out, nil
}

// scalar is a plain value as text.
func scalar(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case nil:
		return "", nil
	case bool, float64, int, int64, uint64:
		return fmt.Sprint(v), nil
	}
	return "", fmt.Errorf("%v is not a plain value", v)
}

// convert makes an entry a proposed server with the fields it does not
// use and notes about them, or says why it cannot be one.
func convert(e Entry) (u catalog.Upstream, kept []Field, notes []string, why string) {
	d := dialectOf(e.Client)
	f := fields{m: e.Fields, used: map[string]bool{}}
	typ := ""
	for _, k := range []string{"type", "transport"} {
		if s, ok := f.str(k); ok {
			typ = strings.ToLower(s)
			break
		}
	}
	if e.Client == "goose" || e.Client == "continue" {
		f.str("name") // the entry's name, already its key
	}
	if b, ok := f.m["disabled"].(bool); ok {
		u.Disabled, f.used["disabled"] = b, true
	}
	if b, ok := f.m["enabled"].(bool); ok {
		u.Disabled, f.used["enabled"] = !b, true
	}
	cmd, err := command(f, d)
	if err != nil {
		return u, nil, nil, err.Error()
	}
	var remote *catalog.UpstreamRemote
	for _, uf := range d.urls {
		if s, ok := f.str(uf.field); ok && s != "" {
			remote = &catalog.UpstreamRemote{URL: s, Transport: uf.transport}
			break
		}
	}
	if remote != nil {
		if remote.Headers, err = headers(f, d); err != nil {
			return u, nil, nil, err.Error()
		}
	}
	t, known := transports[typ]
	switch {
	case slices.Contains(notServers, typ):
		return u, nil, nil, fmt.Sprintf("it is part of %s (type %s), not a server of its own", e.App, typ)
	case typ != "" && !known:
		return u, nil, nil, fmt.Sprintf("its type is %q, which mcptray does not know", typ)
	case cmd != nil && (typ == "" || t == ""):
		u.Command = cmd
		unuse(f, append([]string{d.headers, "requestOptions", "apiKey"}, urlNames(d)...)...)
	case remote != nil && (typ == "" || t != ""):
		if t != "" {
			remote.Transport = t
		}
		u.Remote = remote
		unuse(f, d.command, "args", d.env, "cwd")
	case typ == "" || t == "":
		return u, nil, nil, "it has no command to start"
	default:
		return u, nil, nil, "it has no address (url) to reach"
	}
	for _, k := range e.Keys {
		if !f.used[k] {
			kept = append(kept, Field{Name: k, Value: f.m[k]})
			if n, ok := unusedNotes[k]; ok {
				notes = append(notes, "in "+e.App+" it "+n)
			}
		}
	}
	for k, v := range f.m {
		if !f.used[k] && !slices.Contains(e.Keys, k) {
			kept = append(kept, Field{Name: k, Value: v})
		}
	}
	sortFields(kept, e.Keys)
	return u, kept, notes, ""
}

// urlNames are the fields of d that may hold the address.
func urlNames(d dialect) []string {
	var out []string
	for _, uf := range d.urls {
		out = append(out, uf.field)
	}
	return out
}

// unuse marks fields as not used: they belong to the other kind of server
// and are kept.
func unuse(f fields, keys ...string) {
	for _, k := range keys {
		delete(f.used, k)
	}
}

// command reads the command line, its environment and folder; nil when
// the entry has no command. Zed once wrote the command as an object
// (path, args, env).
func command(f fields, d dialect) (*catalog.UpstreamCommand, error) {
	in := f
	if m, ok := f.m[d.command].(map[string]any); ok {
		f.used[d.command] = true
		in = fields{m: m, used: map[string]bool{}}
		if p, ok := m["path"].(string); ok {
			in.m = map[string]any{"command": p, "args": m["args"], "env": m["env"]}
		}
		d = dialect{command: "command", env: "env"}
	}
	prog, ok := in.str(d.command)
	if !ok || strings.TrimSpace(prog) == "" {
		delete(in.used, d.command)
		return nil, nil
	}
	args, err := in.list("args")
	if err != nil {
		return nil, fmt.Errorf("its %w", err)
	}
	env, err := in.table(d.env)
	if err != nil {
		return nil, fmt.Errorf("its %w", err)
	}
	dir, _ := in.str("cwd")
	return &catalog.UpstreamCommand{Argv: append([]string{prog}, args...), Env: env, Dir: dir}, nil
}

// headers reads a remote server's headers: the headers field, or
// Continue's requestOptions.headers and apiKey.
func headers(f fields, d dialect) (map[string]catalog.Template, error) {
	h, err := f.table(d.headers)
	if err != nil {
		return nil, fmt.Errorf("its %w", err)
	}
	if opts, ok := f.m["requestOptions"].(map[string]any); ok && opts["headers"] != nil {
		more, err := tableOf("requestOptions.headers", opts["headers"])
		if err != nil {
			return nil, fmt.Errorf("its %w", err)
		}
		// Kept when it holds more than the headers.
		f.used["requestOptions"] = len(opts) == 1
		if h == nil {
			h = map[string]catalog.Template{}
		}
		for k, v := range more {
			h[k] = v
		}
	}
	if key, ok := f.str("apiKey"); ok && key != "" {
		if h == nil {
			h = map[string]catalog.Template{}
		}
		h["Authorization"] = catalog.Template("Bearer " + key)
	}
	return h, nil
}
