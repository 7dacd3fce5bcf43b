package clientconfig

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/credential"
)

// This file turns the server entries of AI apps' config files (servers.go)
// into the servers mcptray would front for them (catalog.Upstream): what
// `mcptray upstream import` and File ▸ Import servers from an app… show
// and add. Credentials found in an entry's environment and headers go to
// the secret store, the entry holding {{secret "NAME"}} instead; fields
// mcptray has no use for are kept and listed; mcptray's own entry is
// skipped; the same server in several apps becomes one.

// ImportOptions says what an import takes and what it must not clash with.
type ImportOptions struct {
	// Only names the servers to import (by their name in the app, or the
	// name proposed for mcptray); none means all.
	Only []string
	// ShimPath and URL are mcptray's own stdio shim and endpoint: an entry
	// starting that program (or any program named mcptray-stdio), or
	// reaching that address, is mcptray itself and is skipped.
	ShimPath, URL string
	// UpstreamTaken and SecretTaken say a name is used already (by the
	// catalog's servers, the secret store); nil means none is.
	UpstreamTaken, SecretTaken func(name string) bool
}

// Import is what an import would add: the servers proposed, and the
// entries it leaves out and why.
type Import struct {
	Servers []Proposed
	Skipped []Skipped
}

// Proposed is one server to import.
type Proposed struct {
	// From is the entry it is made of; Also the same server (the same
	// command line or address) in other files or apps, merged into it.
	From Source
	Also []Source
	// Upstream is the server as mcptray would keep it: a credential of its
	// environment or headers is a {{secret "NAME"}} template, its value in
	// Secrets.
	Upstream catalog.Upstream
	Secrets  []Secret
	// Kept are the entry's fields mcptray does not use (alwaysAllow,
	// timeout…), their values as the app wrote them: nothing of the entry
	// is lost, and the caller can keep them with the server.
	Kept []Field
	// Notes say what a person should know about the server: a value left
	// as a reference the app fills in (${env:X}, ${input:x}), a
	// credential in an argument, a name changed, a duplicate merged.
	Notes []string
}

// Secret is a credential taken out of an entry for the secret store.
type Secret struct {
	Name  string // the secret's name: the Upstream reads {{secret "Name"}}
	Value string
	Where string // where the entry had it, for people: `environment variable GITHUB_TOKEN`
}

// Field is one field of an entry, as written.
type Field struct {
	Name  string
	Value any
}

// Skipped is an entry an import leaves out.
type Skipped struct {
	From Source
	Why  string
}

// SecretValues are the secrets of every server proposed, by name: what
// the caller puts in the secret store.
func (imp Import) SecretValues() map[string]string {
	out := map[string]string{}
	for _, p := range imp.Servers {
		for _, s := range p.Secrets {
			out[s.Name] = s.Value
		}
	}
	return out
}

// ReadImport reads the files and proposes their servers (Propose). A file
// that cannot be read or parsed is an error naming it, and its line. It
// touches the file system.
func ReadImport(files []AppFile, o ImportOptions) (Import, error) {
	var entries []Entry
	for _, f := range files {
		content, err := os.ReadFile(f.Path)
		if err != nil {
			return Import{}, fmt.Errorf("reading the servers of %s: %w", f.Client.Name, err)
		}
		es, err := ReadServers(f.Client, f.Path, content)
		if err != nil {
			return Import{}, fmt.Errorf("reading the servers of %s: %w", f.Client.Name, err)
		}
		entries = append(entries, es...)
	}
	return Propose(entries, o)
}

// Propose turns entries into the servers to import. A name of o.Only no
// entry has is an error listing the names there are. It is pure.
func Propose(entries []Entry, o ImportOptions) (Import, error) {
	var imp Import
	picked := map[string]bool{}
	names := map[string]bool{}   // upstream names given
	secrets := map[string]bool{} // secret names given
	byKey := map[string]int{}    // a server's command line or address → its index
	envs := map[int]string{}     // what each server's environment and headers were, to compare
	for _, e := range entries {
		u, kept, notes, why := convert(e)
		if why == "" && isMcptray(u, o) {
			why = "it is mcptray itself"
		}
		if why != "" {
			// Picked or not, it is left out, and the preview says why.
			if slices.Contains(o.Only, e.Name) {
				picked[e.Name] = true
			}
			imp.Skipped = append(imp.Skipped, Skipped{From: e.Source, Why: why})
			continue
		}
		name := upstreamName(e.Name, func(n string) bool { return names[n] || o.UpstreamTaken != nil && o.UpstreamTaken(n) })
		if len(o.Only) > 0 {
			hit := ""
			for _, n := range o.Only {
				if n == e.Name || n == name {
					hit = n
				}
			}
			if hit == "" {
				imp.Skipped = append(imp.Skipped, Skipped{From: e.Source, Why: "not picked: it stays as it is"})
				continue
			}
			picked[hit] = true
		}
		key, values := identity(u)
		if i, dup := byKey[key]; dup {
			p := &imp.Servers[i]
			p.Also = append(p.Also, e.Source)
			note := "also in " + e.Source.String()
			if envs[i] != values {
				note += ", with other environment variables or headers there: these are used"
			}
			p.Notes = append(p.Notes, note)
			continue
		}
		names[name] = true
		switch {
		case name == e.Name:
		case upstreamName(e.Name, func(string) bool { return false }) != e.Name:
			notes = append(notes, fmt.Sprintf("named %s: a server's name holds only letters, digits, _ and - (at most %d)", name, maxUpstreamName))
		default:
			notes = append(notes, fmt.Sprintf("named %s: another server has the name %s", name, e.Name))
		}
		u.Name = name
		p := Proposed{From: e.Source, Upstream: u, Kept: kept, Notes: notes}
		p.takeSecrets(func(n string) bool { return secrets[n] || o.SecretTaken != nil && o.SecretTaken(n) }, e.Inputs)
		for _, s := range p.Secrets {
			secrets[s.Name] = true
		}
		byKey[key], envs[len(imp.Servers)] = len(imp.Servers), values
		imp.Servers = append(imp.Servers, p)
	}
	var missing []string
	for _, n := range o.Only {
		if !picked[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		var there []string
		for _, e := range entries {
			there = append(there, e.Name)
		}
		return Import{}, fmt.Errorf("no server named %s in the files read (they have: %s)", strings.Join(missing, ", "), orNone(there))
	}
	return imp, nil
}

// orNone is the names joined, or "none".
func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// identity is what makes two entries the same server (its command line
// and folder, or its address), and what its environment and headers are.
func identity(u catalog.Upstream) (key, values string) {
	if u.Command != nil {
		return "command\x00" + strings.Join(u.Command.Argv, "\x00") + "\x00" + u.Command.Dir, fmt.Sprint(u.Command.Env)
	}
	return "remote\x00" + u.Remote.URL, fmt.Sprint(u.Remote.Headers)
}

// isMcptray says whether u is mcptray's own entry: its shim, or its
// address.
func isMcptray(u catalog.Upstream, o ImportOptions) bool {
	if u.Command != nil {
		prog := u.Command.Argv[0]
		base := strings.TrimSuffix(strings.ToLower(filepath.Base(filepath.ToSlash(strings.ReplaceAll(prog, `\`, "/")))), ".exe")
		return base == ShimName || o.ShimPath != "" && prog == o.ShimPath
	}
	return o.URL != "" && strings.TrimSuffix(u.Remote.URL, "/") == strings.TrimSuffix(o.URL, "/")
}

// nameRun is a run of characters an upstream's name cannot hold: its
// tools are served as name_tool, which allows no ".".
var nameRun = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// maxUpstreamName keeps the default prefix (name + "_") within the 32
// characters a prefix may have.
const maxUpstreamName = 31

// upstreamName is the app's name for a server made a name mcptray takes,
// and not taken (name_2, name_3…).
func upstreamName(app string, taken func(string) bool) string {
	base := strings.Trim(nameRun.ReplaceAllString(app, "_"), "_-")
	if len(base) > maxUpstreamName {
		base = strings.TrimRight(base[:maxUpstreamName], "_-")
	}
	if base == "" {
		base = "server"
	}
	return catalog.UniqueName(base, maxUpstreamName, taken)
}

// secretName is the name of the secret holding the value of what (an
// environment variable's or header's name) for the server: github_GITHUB_TOKEN.
func secretName(server, what string, taken func(string) bool) string {
	name := server + "_" + strings.Trim(nameRun.ReplaceAllString(what, "_"), "_")
	const max = 64 // catalog.CheckName's limit
	if len(name) > max {
		name = name[:max]
	}
	return catalog.UniqueName(name, max, taken)
}

// reference matches a value an app fills in itself when it starts the
// server: an environment variable (${VAR}, ${env:VAR}, {env:VAR}, $VAR)
// or one of VS Code's inputs (${input:id}).
var reference = regexp.MustCompile(`\$\{[^}]+\}|\{env:[A-Za-z_][A-Za-z0-9_]*\}|^\$[A-Za-z_][A-Za-z0-9_]*$`)

// takeSecrets moves the credentials of p's environment and headers to
// p.Secrets, leaving {{secret "NAME"}} in their place, and notes values
// left as references the app fills in and credentials in the arguments or
// the address, which cannot become secrets.
func (p *Proposed) takeSecrets(taken func(string) bool, inputs map[string]string) {
	u := &p.Upstream
	if c := u.Command; c != nil {
		p.secure(c.Env, "environment variable", credential.Name, taken, inputs)
		for i := 1; i < len(c.Argv); i++ {
			if argCredential(c.Argv, i) {
				p.Notes = append(p.Notes, fmt.Sprintf("argument %d looks like a credential: mcptray keeps a command line as it is written, "+
					"so it stays there; move it to an environment variable if the server reads one", i))
			}
		}
		return
	}
	p.secure(u.Remote.Headers, "header", credential.Header, taken, inputs)
	if urlCredential(u.Remote.URL) {
		p.Notes = append(p.Notes, "the address holds a credential in its query: mcptray keeps an address as it is written; use a header if the server takes one")
	}
}

// secure makes each value of values (an environment's or headers', what
// says which) a template: a credential — by its name (named) or by its
// value — becomes {{secret "NAME"}} (after a header's scheme: Bearer
// {{secret …}}), its value added to p.Secrets; a reference the app fills
// in stays as it is, noted (with what VS Code asks for it, from inputs);
// any other value is text.
func (p *Proposed) secure(values map[string]catalog.Template, what string, named, taken func(string) bool, inputs map[string]string) {
	for _, k := range sortedKeys(values) {
		v := string(values[k])
		where := what + " " + k
		switch {
		case reference.MatchString(v):
			p.Notes = append(p.Notes, fmt.Sprintf("%s is %q, which %s when it starts the server and mcptray does not: "+
				"give mcptray the value (a secret) after the import", where, v, fillsIn(p.From.App, v, inputs)))
			values[k] = literal(v)
		case v != "" && (named(k) || credential.Value(v)):
			scheme, cred := "", v
			if what == "header" && !strings.EqualFold(k, "cookie") {
				scheme, cred, _ = credential.SplitScheme(v)
			}
			name := secretName(p.Upstream.Name, k, func(n string) bool {
				return taken(n) || slices.ContainsFunc(p.Secrets, func(s Secret) bool { return s.Name == n })
			})
			p.Secrets = append(p.Secrets, Secret{Name: name, Value: cred, Where: where})
			values[k] = literal(scheme) + catalog.Template(`{{secret `+strconv.Quote(name)+`}}`)
		default:
			values[k] = literal(v)
		}
	}
}

// inputRef matches a reference to one of VS Code's inputs.
var inputRef = regexp.MustCompile(`\$\{input:([^}]+)\}`)

// fillsIn says who fills in the reference v: the app, and for one of VS
// Code's inputs what it asks.
func fillsIn(app, v string, inputs map[string]string) string {
	if m := inputRef.FindStringSubmatch(v); m != nil && inputs[m[1]] != "" {
		return fmt.Sprintf("%s asks for (%q)", app, inputs[m[1]])
	}
	return app + " fills in"
}

// sortedKeys are m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// literal is text placed in a template as it is: a "{{" in it would start
// a template action, so it is written as the action that prints "{{".
func literal(s string) catalog.Template {
	return catalog.Template(strings.ReplaceAll(s, "{{", `{{"{{"}}`))
}

// argCredential says whether argument i of argv is a credential: it looks
// like a token, or is the value of an option named like one (--api-key
// VALUE, --token=VALUE).
func argCredential(argv []string, i int) bool {
	a := argv[i]
	if opt, val, ok := strings.Cut(a, "="); ok && strings.HasPrefix(opt, "-") {
		return credential.Name(strings.TrimLeft(opt, "-")) || credential.Value(val)
	}
	if credential.Value(a) {
		return true
	}
	prev := ""
	if i > 1 {
		prev = argv[i-1]
	}
	return strings.HasPrefix(prev, "-") && !strings.HasPrefix(a, "-") && credential.Name(strings.TrimLeft(prev, "-"))
}

// urlCredential says whether an address's query holds a credential.
func urlCredential(u string) bool {
	_, q, ok := strings.Cut(u, "?")
	if !ok {
		return false
	}
	for _, kv := range strings.Split(q, "&") {
		k, _, _ := strings.Cut(kv, "=")
		if credential.Name(k) {
			return true
		}
	}
	return false
}

// mask is a command line with its credentials shown as ••••.
func mask(argv []string) []string {
	out := slices.Clone(argv)
	for i, a := range out {
		if i == 0 || !argCredential(argv, i) {
			continue
		}
		if opt, _, ok := strings.Cut(a, "="); ok && strings.HasPrefix(opt, "-") {
			out[i] = opt + "=••••"
		} else {
			out[i] = "••••"
		}
	}
	return out
}

// maskURL is an address with the values of its query's credentials shown
// as ••••.
func maskURL(u string) string {
	base, q, ok := strings.Cut(u, "?")
	if !ok {
		return u
	}
	parts := strings.Split(q, "&")
	for i, kv := range parts {
		if k, _, ok := strings.Cut(kv, "="); ok && credential.Name(k) {
			parts[i] = k + "=••••"
		}
	}
	return base + "?" + strings.Join(parts, "&")
}

// sortFields orders fields as keys lists them, the rest after by name.
func sortFields(fields []Field, keys []string) {
	pos := func(n string) int {
		if i := slices.Index(keys, n); i >= 0 {
			return i
		}
		return len(keys)
	}
	sort.SliceStable(fields, func(i, j int) bool {
		pi, pj := pos(fields[i].Name), pos(fields[j].Name)
		if pi != pj {
			return pi < pj
		}
		return fields[i].Name < fields[j].Name
	})
}
