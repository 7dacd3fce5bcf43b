package actions

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"text/template/parse"

	"github.com/mcptray/mcptray/catalog"
)

// Sample is what an editor's preview fills a template with: sample
// arguments and answers instead of a call's, and what the definition
// declares, so that a name it does not declare is an error.
type Sample struct {
	Args   map[string]any
	Inputs map[string]any
	Server map[string]string
	// Params are the tool's parameters: .args.NAME of another name is an
	// error. Nil accepts any name (a hand-written input schema).
	Params []string
	// Steps are the keys of the input steps answered before the template
	// is rendered: .inputs.KEY of another key is an error.
	Steps []string
}

// TemplateError is a template that does not render, located in its text:
// Offset is the byte offset of the template ({{…}}) it is about, -1 when
// it is not known.
type TemplateError struct {
	Offset int
	Msg    string
}

func (e *TemplateError) Error() string { return e.Msg }

// Preview renders t with s, as a call would with those arguments and
// answers, running nothing: a secret shows as [secret:NAME], never its
// value. A template that could not render at call time — not closed,
// an unknown function or parameter or step, an error while rendering — is
// a *TemplateError.
func Preview(t catalog.Template, s Sample) (string, error) {
	src := string(t)
	if !strings.Contains(src, "{{") {
		return src, nil
	}
	spans, err := TemplateSpans(src)
	if ce, ok := err.(*CommandLineError); ok {
		return "", &TemplateError{Offset: len(string([]rune(src)[:ce.Column-1])), Msg: ce.Msg}
	}
	tmpl, err := (*TemplateCache)(nil).parse(src)
	if err != nil {
		return "", &TemplateError{Offset: -1, Msg: parseErrorText(err, src)}
	}
	if err := checkNames(tmpl.Tree.Root, s, spans); err != nil {
		return "", err
	}
	data := &Data{Args: s.Args, Inputs: s.Inputs, Server: s.Server,
		Secret: func(name string) (string, error) { return "[secret:" + name + "]", nil }}
	out, err := Render(t, data)
	if err != nil {
		return "", &TemplateError{Offset: -1, Msg: strings.TrimPrefix(parseErrorText(err, src), "template: ")}
	}
	return out, nil
}

// templateLine matches the location text/template puts before its
// messages: "template: :1: " or "template: :1:12: executing … at <…>: ".
var templateLine = regexp.MustCompile(`^(?:template: )?:(\d+)(?::\d+)?: (?:executing "" at <[^>]*>: )?`)

// parseErrorText is a text/template error without its template name, the
// line kept when the text has several.
func parseErrorText(err error, src string) string {
	msg := strings.TrimPrefix(err.Error(), "template: ")
	if m := templateLine.FindStringSubmatch(msg); m != nil {
		rest := msg[len(m[0]):]
		if strings.Contains(src, "\n") {
			return "line " + m[1] + ": " + rest
		}
		return rest
	}
	return msg
}

// serverNames are the fields of .server.
var serverNames = []string{"executable", "db", "home"}

// checkNames finds .args, .inputs and .server fields the definition does
// not have. Inside a with or range, "." is something else: those bodies
// are not checked.
func checkNames(root *parse.ListNode, s Sample, spans []TemplateSpan) error {
	var found error
	at := func(pos parse.Pos) int {
		for _, sp := range spans {
			if int(pos) >= sp.Start && int(pos) < sp.End {
				return sp.Start
			}
		}
		return -1
	}
	check := func(pos parse.Pos, ident []string) {
		if found != nil || len(ident) < 2 {
			return
		}
		switch ident[0] {
		case "args":
			if s.Params != nil && !slices.Contains(s.Params, ident[1]) {
				found = &TemplateError{Offset: at(pos), Msg: fmt.Sprintf("unknown parameter %q (%s)", ident[1], known("parameters", s.Params))}
			}
		case "inputs":
			if !slices.Contains(s.Steps, ident[1]) {
				found = &TemplateError{Offset: at(pos), Msg: fmt.Sprintf("no input step before this has the key %q (%s)", ident[1], known("keys", s.Steps))}
			}
		case "server":
			if !slices.Contains(serverNames, ident[1]) {
				found = &TemplateError{Offset: at(pos), Msg: fmt.Sprintf(".server has no %q (%s)", ident[1], known("fields", serverNames))}
			}
		}
	}
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
			for _, a := range x.Args {
				visit(a)
			}
		case *parse.FieldNode:
			check(x.Position(), x.Ident)
		case *parse.VariableNode:
			if len(x.Ident) > 0 && x.Ident[0] == "$" {
				check(x.Position(), x.Ident[1:])
			}
		case *parse.IfNode:
			visit(x.Pipe)
			visit(x.List)
			visit(x.ElseList)
		case *parse.WithNode:
			visit(x.Pipe)
			visit(x.ElseList)
		case *parse.RangeNode:
			visit(x.Pipe)
			visit(x.ElseList)
		}
	}
	visit(root)
	return found
}

// known lists what a definition has, for an error about a name it lacks.
func known(what string, names []string) string {
	if len(names) == 0 {
		return "there are no " + what
	}
	return what + ": " + strings.Join(names, ", ")
}
