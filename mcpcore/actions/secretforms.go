package actions

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// minDerivedSecret is the shortest text taken from inside a secret (the
// password of a Basic credential) that is redacted on its own: a shorter
// one would blank out ordinary words of the output.
const minDerivedSecret = 6

// encodedForms are the other ways a secret value reaches the outside, so
// that an API echoing the request back, in any of them, leaks nothing:
//   - as a query value or a form field (url.QueryEscape: "+" for space) and
//     as a path segment (url.PathEscape), both with the hex of their %XX in
//     upper case, as Go writes it, and in lower case, as some servers print
//     it back;
//   - inside a JSON string, as the json template function writes it (<, >
//     and & as \u003c…), without those escapes, with "/" as "\/", and with
//     \u escapes in upper case;
//   - as base64, and, when the value is itself the base64 of a Basic
//     credential (user:password), as that credential and its password.
func encodedForms(v string) []string {
	forms := []string{url.QueryEscape(v), url.PathEscape(v)}
	forms = append(forms, jsonForms(v)...)
	forms = append(forms, base64.StdEncoding.EncodeToString([]byte(v)))
	if dec, err := base64.StdEncoding.DecodeString(v); err == nil && utf8.Valid(dec) {
		if _, pass, ok := bytes.Cut(dec, []byte(":")); ok {
			forms = append(forms, string(dec))
			if len(pass) >= minDerivedSecret {
				forms = append(forms, string(pass))
			}
		}
	}
	for _, f := range forms {
		forms = append(forms, otherHexCase(f))
	}
	slices.Sort(forms)
	forms = slices.Compact(forms)
	return slices.DeleteFunc(forms, func(f string) bool { return f == v || f == "" })
}

// jsonForms are v inside a JSON string, without the quotes, as JSON
// encoders commonly write it.
func jsonForms(v string) []string {
	escaped, _ := json.Marshal(v)
	var plain bytes.Buffer
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	p := strings.TrimSuffix(plain.String(), "\n")
	unquote := func(s string) string { return strings.TrimSuffix(strings.TrimPrefix(s, `"`), `"`) }
	return []string{unquote(string(escaped)), unquote(p), strings.ReplaceAll(unquote(p), "/", `\/`)}
}

// hexEscape matches the hex digits of a %XX or \uXXXX escape.
var hexEscape = regexp.MustCompile(`%[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}`)

// otherHexCase is s with the hex of its escapes in the other case: %XX
// in lower case, \uXXXX in upper case (the case Go does not write).
func otherHexCase(s string) string {
	return hexEscape.ReplaceAllStringFunc(s, func(m string) string {
		if m[0] == '%' {
			return strings.ToLower(m)
		}
		return `\u` + strings.ToUpper(m[2:])
	})
}
