package importer

import (
	"strconv"
	"strings"
	"unicode"
)

// MaxNameLen is the longest tool, parameter and secret name mcptray
// accepts (catalog.CheckName).
const MaxNameLen = 64

// safeName makes a name catalog.CheckName accepts from s: each run of
// other characters becomes one "_", leading and trailing ones go, and the
// result is cut to at most max characters. It is "" when s has no letter
// or digit.
func safeName(s string, max int) string {
	var b strings.Builder
	under := false
	for _, r := range s {
		if r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '.') {
			b.WriteRune(r)
			under = false
		} else if !under {
			b.WriteByte('_')
			under = true
		}
	}
	out := strings.Trim(b.String(), "_.-")
	if len(out) > max {
		out = strings.TrimRight(out[:max], "_.-")
	}
	return out
}

// slug is the letters and digits of s in lower case, each run of other
// characters one "_", at most max characters: the part of a secret name
// that comes from an API's title or a scheme's name.
func slug(s string, max int) string {
	return safeName(strings.NewReplacer("-", " ", ".", " ").Replace(strings.ToLower(s)), max)
}

// tmpl is template text the importer wrote itself. Text it copies from
// its input (a spec's names and paths, a curl line's URL, headers and
// body) becomes part of one only through literal, and the names it makes
// (parameters, secrets) only through quoted, inside its own actions: so
// no action of the input's ever runs. A string cannot be added to a tmpl
// without one of them, which the compiler checks.
type tmpl string

// literal is text placed in a template as it is: a "{{" in it would start
// a template action, so it is written as the action that prints "{{"; so
// is a "{" at its end, which an action after it would make a "{{{".
func literal(s string) tmpl {
	s = strings.ReplaceAll(s, "{{", `{{"{{"}}`)
	if strings.HasSuffix(s, "{") {
		s = s[:len(s)-1] + `{{"{"}}`
	}
	return tmpl(s)
}

// quoted is s as a string inside a template action.
func quoted(s string) tmpl {
	return tmpl(strconv.Quote(s))
}

// argRef is the template expression of the parameter name: .args.name when
// the name can follow a dot, else (index .args "name") — a name may hold
// "-" and ".", which a template reads as operators.
func argRef(name string) tmpl {
	ident := name != ""
	for i, r := range name {
		if !(r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			ident = false
		}
	}
	if ident {
		return tmpl(".args." + name)
	}
	return "(index .args " + quoted(name) + ")"
}

// secretCall is the template expression that reads the named secret.
func secretCall(name string) tmpl {
	return "(secret " + quoted(name) + ")"
}

// secretRef is the template that prints the named secret.
func secretRef(name string) tmpl {
	return "{{secret " + quoted(name) + "}}"
}

// joinTmpl joins templates with sep between them.
func joinTmpl(ts []tmpl, sep tmpl) tmpl {
	var b strings.Builder
	for i, t := range ts {
		if i > 0 {
			b.WriteString(string(sep))
		}
		b.WriteString(string(t))
	}
	return tmpl(b.String())
}

// titleOf is a title made from a tool's name, for the lists to show in
// words: "list_items" is "List items", "get-user.v2" "Get user v2".
func titleOf(name string) string {
	words := strings.Fields(strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' {
			return ' '
		}
		return r
	}, name))
	t := strings.Join(words, " ")
	if t == "" {
		return ""
	}
	return strings.ToUpper(t[:1]) + t[1:]
}
