package catalog

import "strings"

// credentialParts are what a variable or header name usually holds when
// its value is a credential.
var credentialParts = []string{"TOKEN", "KEY", "SECRET", "PASSWORD", "PASSWD", "AUTH", "CREDENTIAL", "COOKIE"}

// LooksLikeCredential says whether a server's environment variable or
// header name usually carries a credential (GITHUB_TOKEN, X-Api-Key,
// Authorization): its value belongs in the secret store, read through
// {{secret "NAME"}}, not in the database and the catalog's export.
// `mcptray upstream add` refuses such a value typed as it is; the window's
// Add a server puts it in the secret store.
func LooksLikeCredential(name string) bool {
	n := strings.ToUpper(name)
	for _, w := range credentialParts {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
