package actions

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"
	"text/template"
	"text/template/parse"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/memo"
)

// Data is what templates see: {{.args.name}}, {{.inputs.key.content.field}},
// {{.server.executable}}. Keys are lower-case so definitions read naturally.
type Data struct {
	// Args are the call's arguments (tool arguments, prompt arguments, or
	// URI template variables).
	Args map[string]any
	// Inputs are the answers to the definition's input steps, by step key.
	Inputs map[string]any
	// Server describes the running mcptray: "executable" (its binary),
	// "db" (its database file) and "home" (the user's home folder).
	Server map[string]string
	// Templates, when set, keeps parsed templates across calls.
	Templates *TemplateCache
	// Secret resolves {{secret "name"}}; nil means no secrets are available.
	Secret func(name string) (string, error)
	// OS is the operating system whose command line a command runs (a
	// GOOS name, see catalog.Command.OS); empty means the one this runs
	// on. Tests set it to see another system's command line.
	OS string
	// Processes, when set, records the process group of each command the
	// call runs, so that the next start of mcptray kills what a crash left.
	Processes ProcessGroups
	// Upstreams, when set, calls the tools of the servers mcptray fronts.
	Upstreams UpstreamCaller
	// Round is the AI client's side of a server's input rounds for a
	// call of an upstream tool; nil for any other.
	Round *UpstreamRound

	mu sync.Mutex
	// used maps each secret value the call's templates resolved, and each
	// of its encoded forms, to the secret's name, for Redact;
	// longestFirst are its keys, longest first, so that a form holding
	// another is replaced whole.
	used         map[string]string
	longestFirst []string
}

// secret resolves a secret for a template and remembers its value, so that
// everything the call produces can be redacted.
func (d *Data) secret(name string) (string, error) {
	if d == nil || d.Secret == nil {
		return "", &secretError{fmt.Errorf("secret %q: no secret store is available", name)}
	}
	v, err := d.Secret(name)
	if err != nil {
		return "", &secretError{err}
	}
	if v != "" {
		d.mu.Lock()
		if d.used == nil {
			d.used = map[string]string{}
		}
		if _, known := d.used[v]; !known {
			d.used[v] = name
			for _, f := range encodedForms(v) {
				if _, taken := d.used[f]; !taken {
					d.used[f] = name
				}
			}
			d.longestFirst = slices.SortedFunc(maps.Keys(d.used), func(a, b string) int { return cmp.Compare(len(b), len(a)) })
		}
		d.mu.Unlock()
	}
	return v, nil
}

// secretError is a secret a template could not resolve. Render reports it
// as it is, without text/template's wrapping, so the person reads what to
// do (the store's errors name the secret and how to set it).
type secretError struct{ err error }

func (e *secretError) Error() string { return e.err.Error() }
func (e *secretError) Unwrap() error { return e.err }

// Redact replaces every secret value this call's templates resolved, in
// each form mcptray encodes it (encodedForms), with "[secret:NAME]", so a program that echoes a secret does not leak it into
// results, logs or errors.
func (d *Data) Redact(s string) string {
	if d == nil {
		return s
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, v := range d.longestFirst {
		s = strings.ReplaceAll(s, v, "[secret:"+d.used[v]+"]")
	}
	return s
}

// TemplateCache keeps parsed templates by source, so a definition's
// templates are parsed once rather than on every call. It is safe for
// concurrent use; whoever owns it drops it when the definitions change.
type TemplateCache struct {
	m sync.Map // source -> *template.Template
}

func (c *TemplateCache) parse(src string) (*template.Template, error) {
	if c != nil {
		if t, ok := c.m.Load(src); ok {
			return t.(*template.Template), nil
		}
	}
	t, err := template.New("").Funcs(funcs).Option("missingkey=zero").Parse(src)
	if err != nil {
		return nil, err
	}
	blankMissing(t)
	if c != nil {
		c.m.Store(src, t)
	}
	return t, nil
}

func (d *Data) view() map[string]any {
	v := map[string]any{"args": map[string]any{}, "inputs": map[string]any{}, "server": map[string]string{}}
	if d == nil {
		return v
	}
	if d.Args != nil {
		v["args"] = d.Args
	}
	if d.Inputs != nil {
		v["inputs"] = d.Inputs
	}
	if d.Server != nil {
		v["server"] = d.Server
	}
	return v
}

var funcs = template.FuncMap{
	// secret is bound to the call's Data when a template uses it.
	"secret": func(string) (string, error) { return "", fmt.Errorf("secret: not available here") },
	// json renders a value as compact JSON, for structured text.
	"json": func(v any) (string, error) {
		b, err := json.Marshal(v)
		return string(b), err
	},
	// default returns def when v is empty: {{default "anon" .args.name}}.
	"default": func(def, v any) any {
		if v == nil || v == "" {
			return def
		}
		return v
	},
	"upper": strings.ToUpper,
	"lower": strings.ToLower,
	"trim":  strings.TrimSpace,

	// pathescape escapes a value for one URL path segment ("/" too):
	// https://api/x/{{pathescape .args.name}}. For query values, use an
	// http action's query map or the built-in urlquery.
	"pathescape": url.PathEscape,

	// shown ends every printing action (see blankMissing); not for
	// definitions to call.
	shownFunc: func(v any) any {
		if v == nil {
			return ""
		}
		return v
	},
}

// shownFunc is the function blankMissing appends to printing actions.
const shownFunc = "_mcptray_shown"

// blankMissing makes every action that prints end with shownFunc, so that a
// missing key or a null prints nothing rather than text/template's
// "<no value>" — without touching a value that holds that text.
func blankMissing(t *template.Template) {
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			blankMissingIn(tt.Tree, tt.Tree.Root)
		}
	}
}

func blankMissingIn(tree *parse.Tree, n parse.Node) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			blankMissingIn(tree, c)
		}
	case *parse.ActionNode:
		if len(n.Pipe.Decl) == 0 { // an assignment prints nothing
			id := parse.NewIdentifier(shownFunc).SetTree(tree).SetPos(n.Pos)
			n.Pipe.Cmds = append(n.Pipe.Cmds, &parse.CommandNode{NodeType: parse.NodeCommand, Pos: n.Pos, Args: []parse.Node{id}})
		}
	case *parse.IfNode:
		blankMissingIn(tree, n.List)
		blankMissingIn(tree, n.ElseList)
	case *parse.RangeNode:
		blankMissingIn(tree, n.List)
		blankMissingIn(tree, n.ElseList)
	case *parse.WithNode:
		blankMissingIn(tree, n.List)
		blankMissingIn(tree, n.ElseList)
	}
}

// Check parses the template and reports a syntax error.
func CheckTemplate(t catalog.Template) error {
	if !strings.Contains(string(t), "{{") {
		return nil
	}
	_, err := (*TemplateCache)(nil).parse(string(t))
	return err
}

// TemplateChecks remembers what CheckTemplate found, by template text,
// across one check of many definitions: an imported API's tools repeat
// their headers and request bodies (a resource's create and replace send
// the same body, and a generated API's resources often all do), and
// parsing a body of a few KB takes a third of a millisecond. It holds no
// parsed template, only the error. Safe for concurrent use; nil checks
// every template anew.
type TemplateChecks struct {
	found *memo.Memo[catalog.Template, error]
}

// NewTemplateChecks returns an empty TemplateChecks.
func NewTemplateChecks() *TemplateChecks {
	return &TemplateChecks{found: memo.New[catalog.Template, error]()}
}

// check is CheckTemplate(t), or what it said of the same text before.
func (tc *TemplateChecks) check(t catalog.Template) error {
	if tc == nil || !strings.Contains(string(t), "{{") {
		return CheckTemplate(t)
	}
	return tc.found.Get(t, func() error { return CheckTemplate(t) })
}

// Render executes the template over data. A missing key renders as empty,
// never as "<no value>".
func Render(t catalog.Template, data *Data) (string, error) {
	s := string(t)
	if !strings.Contains(s, "{{") {
		return s, nil
	}
	var cache *TemplateCache
	if data != nil {
		cache = data.Templates
	}
	tmpl, err := cache.parse(s)
	if err != nil {
		return "", fmt.Errorf("template: %w", err)
	}
	if strings.Contains(s, "secret") {
		// Parsed templates are shared; bind this call's secrets to a copy.
		if tmpl, err = tmpl.Clone(); err != nil {
			return "", fmt.Errorf("template: %w", err)
		}
		tmpl.Funcs(template.FuncMap{"secret": data.secret})
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, data.view()); err != nil {
		var se *secretError
		if errors.As(err, &se) {
			return "", se
		}
		return "", fmt.Errorf("template: %w", err)
	}
	return b.String(), nil
}

// renderJSON renders every string leaf of a JSON value as a template,
// keeping the value's shape, so structured output can be written as JSON.
func renderJSON(raw json.RawMessage, data *Data) (any, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("structured: %w", err)
	}
	return renderValue(v, data)
}

func renderValue(v any, data *Data) (any, error) {
	switch x := v.(type) {
	case string:
		return Render(catalog.Template(x), data)
	case []any:
		for i := range x {
			r, err := renderValue(x[i], data)
			if err != nil {
				return nil, err
			}
			x[i] = r
		}
	case map[string]any:
		for k := range x {
			r, err := renderValue(x[k], data)
			if err != nil {
				return nil, err
			}
			x[k] = r
		}
	}
	return v, nil
}

// checkJSONTemplates reports the first template syntax error among the
// string leaves of a JSON value.
func checkJSONTemplates(v any, tc *TemplateChecks) error {
	switch x := v.(type) {
	case string:
		return tc.check(catalog.Template(x))
	case []any:
		for _, e := range x {
			if err := checkJSONTemplates(e, tc); err != nil {
				return err
			}
		}
	case map[string]any:
		for _, e := range x {
			if err := checkJSONTemplates(e, tc); err != nil {
				return err
			}
		}
	}
	return nil
}
