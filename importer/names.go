package importer

import (
	"fmt"
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

// uniqueName is name, or name_2, name_3… when taken says it is used,
// always at most MaxNameLen characters.
func uniqueName(name string, taken func(string) bool) string {
	if !taken(name) {
		return name
	}
	for i := 2; ; i++ {
		suffix := "_" + strconv.Itoa(i)
		base := name
		if len(base)+len(suffix) > MaxNameLen {
			base = base[:MaxNameLen-len(suffix)]
		}
		if c := base + suffix; !taken(c) {
			return c
		}
	}
}

// argRef is the template expression of the parameter name: .args.name when
// the name can follow a dot, else (index .args "name") — a name may hold
// "-" and ".", which a template reads as operators.
func argRef(name string) string {
	ident := name != ""
	for i, r := range name {
		if !(r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			ident = false
		}
	}
	if ident {
		return ".args." + name
	}
	return fmt.Sprintf("(index .args %q)", name)
}

// literal is text placed in a template as it is: a "{{" in it would start
// a template action, so it is written as the action that prints "{{".
func literal(s string) string {
	return strings.ReplaceAll(s, "{{", `{{"{{"}}`)
}

// secretRef is the template that reads the named secret.
func secretRef(name string) string {
	return fmt.Sprintf("{{secret %q}}", name)
}
