package actions

import (
	"encoding/json"
	"slices"
	"strings"
	"text/template/parse"

	"github.com/mcptray/mcptray/catalog"
)

// ToolSecrets are the names of the secrets a tool's templates read with
// {{secret "NAME"}} — in its action and its input steps, wherever they
// are — sorted, each once. A name computed as the call runs cannot be
// known and is left out; so are templates that do not parse.
func ToolSecrets(t catalog.Tool) []string {
	var names []string
	for _, part := range []any{t.Action, t.Steps} {
		b, err := json.Marshal(part)
		if err != nil {
			continue
		}
		var v any
		if json.Unmarshal(b, &v) != nil {
			continue
		}
		eachString(v, func(s string) {
			if strings.Contains(s, "{{") && strings.Contains(s, "secret") {
				names = append(names, SecretsUsed(catalog.Template(s))...)
			}
		})
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// eachString calls f with every string in a JSON value: the templates of
// a tool's parts, whatever field holds them.
func eachString(v any, f func(string)) {
	switch x := v.(type) {
	case string:
		f(x)
	case []any:
		for _, e := range x {
			eachString(e, f)
		}
	case map[string]any:
		for _, e := range x {
			eachString(e, f)
		}
	}
}

// SecretsUsed are the names a template reads with {{secret "NAME"}}, in
// the order they appear (a name may come twice).
func SecretsUsed(t catalog.Template) []string {
	src := string(t)
	if !strings.Contains(src, "{{") {
		return nil
	}
	tmpl, err := (*TemplateCache)(nil).parse(src)
	if err != nil || tmpl.Tree == nil {
		return nil
	}
	var names []string
	var visit func(n parse.Node)
	visit = func(n parse.Node) {
		switch x := n.(type) {
		case *parse.ListNode:
			if x != nil {
				for _, c := range x.Nodes {
					visit(c)
				}
			}
		case *parse.ActionNode:
			visit(x.Pipe)
		case *parse.PipeNode:
			if x != nil {
				for _, c := range x.Cmds {
					visit(c)
				}
			}
		case *parse.CommandNode:
			if len(x.Args) == 2 {
				if id, ok := x.Args[0].(*parse.IdentifierNode); ok && id.Ident == "secret" {
					if s, ok := x.Args[1].(*parse.StringNode); ok {
						names = append(names, s.Text)
					}
				}
			}
			for _, a := range x.Args {
				visit(a)
			}
		case *parse.IfNode:
			visit(x.Pipe)
			visit(x.List)
			visit(x.ElseList)
		case *parse.WithNode:
			visit(x.Pipe)
			visit(x.List)
			visit(x.ElseList)
		case *parse.RangeNode:
			visit(x.Pipe)
			visit(x.List)
			visit(x.ElseList)
		}
	}
	visit(tmpl.Tree.Root)
	return names
}
