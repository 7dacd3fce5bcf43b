// Package credential decides what counts as a credential in what a person
// pastes or already has: a curl command's headers and fields (package
// importer), an AI app's server entries with their environment and headers
// (package clientconfig). A value judged to be one goes to the secret
// store rather than into the catalog. Standard library only.
package credential

import (
	"net/url"
	"slices"
	"strings"
)

// credentialWords are the words of a name that make its value a credential.
var credentialWords = []string{"token", "secret", "password", "passwd", "pwd", "apikey", "key", "auth",
	"authorization", "session", "sessionid", "cookie", "credential", "credentials", "signature", "sig", "accesskey"}

// notCredentials are names with such a word whose values are no secret.
var notCredentials = []string{"idempotency-key", "key-id", "keyid", "sort-key"}

// Name says whether a header, query parameter, form or body field, or
// environment variable named name holds a credential: its name has one of
// credentialWords as a word (X-Api-Key, access_token, GITHUB_TOKEN,
// DB_PASSWORD), holds "apikey" or ends in "token", "password", "passwd" or
// "secret" written as one word (PGPASSWORD).
func Name(name string) bool {
	lower := strings.ToLower(name)
	if slices.Contains(notCredentials, strings.ReplaceAll(lower, "_", "-")) {
		return false
	}
	words := strings.FieldsFunc(lower, func(r rune) bool { return r == '-' || r == '_' || r == '.' || r == '[' || r == ']' })
	for _, w := range words {
		if slices.Contains(credentialWords, w) {
			return true
		}
	}
	// "apikey", "accesstoken" or "pgpassword" written as one word
	joined := strings.Join(words, "")
	return strings.Contains(joined, "apikey") || slices.ContainsFunc(oneWordEnds, func(end string) bool { return strings.HasSuffix(joined, end) })
}

// oneWordEnds end a name written as one word that holds a credential.
var oneWordEnds = []string{"token", "password", "passwd", "secret"}

// secretHeaders carry credentials whatever their value.
var secretHeaders = []string{"authorization", "proxy-authorization", "cookie"}

// Header says whether the HTTP header named name carries a credential:
// Authorization, Proxy-Authorization and Cookie always, others by Name.
func Header(name string) bool {
	return slices.Contains(secretHeaders, strings.ToLower(name)) || Name(name)
}

// SplitScheme cuts an authentication scheme off a header's value ("Bearer
// abc" is "Bearer " and "abc"): the scheme stays where the value was
// written, the credential goes to the secret store. ok is false when the
// value starts with no scheme word.
func SplitScheme(value string) (scheme, cred string, ok bool) {
	s, c, found := strings.Cut(value, " ")
	if !found || !isScheme(s) {
		return "", value, false
	}
	return s + " ", strings.TrimSpace(c), true
}

// isScheme reports an authentication scheme word (Bearer, Basic, token).
func isScheme(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-') {
			return false
		}
	}
	return true
}

// tokenPrefixes start the tokens of well-known services: GitHub, GitLab,
// Slack, OpenAI, Anthropic, Stripe, Google, AWS access key ids, npm,
// Hugging Face.
var tokenPrefixes = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xoxb-", "xoxp-", "xoxa-", "xoxs-",
	"sk-", "sk_live_", "sk_test_", "rk_live_", "AIza", "AKIA", "ASIA", "npm_", "hf_"}

// Value says whether a value looks like a token whatever its name holds:
// it starts as a well-known service's tokens do, is a JSON Web Token, is
// an address with a password in it (postgres://me:pw@host/db), or is one
// long word of letters and digits mixed (32 characters or more, no path
// or address), as generated keys are.
func Value(v string) bool {
	if strings.ContainsAny(v, " \t\n") {
		return false
	}
	if u, err := url.Parse(v); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			return true
		}
	}
	for _, p := range tokenPrefixes {
		if strings.HasPrefix(v, p) && len(v) >= len(p)+16 {
			return true
		}
	}
	if strings.HasPrefix(v, "eyJ") && strings.Count(v, ".") == 2 && len(v) > 40 {
		return true
	}
	if len(v) < 32 || strings.ContainsAny(v, "/\\:@.") {
		return false
	}
	var letters, digits int
	for _, r := range v {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			letters++
		case r == '-' || r == '_' || r == '+' || r == '=':
		default:
			return false
		}
	}
	return letters >= 8 && digits >= 4
}
