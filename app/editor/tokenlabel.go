package editor

import (
	"fmt"

	"github.com/mcptray/mcptray/app/tryit"
)

// InternalTokens are mcptray's own client tokens, by name, with what uses
// each: mcptray keeps them itself, so they are no person's to revoke.
var InternalTokens = map[string]string{
	tryit.TokenName: "Try it",
	ShimTokenName:   "AI apps over stdio",
}

// TokenLabel names a token for people: an internal one says what uses it.
func TokenLabel(name string) string {
	if what, ok := InternalTokens[name]; ok {
		return fmt.Sprintf("%s (%s)", name, what)
	}
	return name
}

// ShimTokenName is the stdio shim's client token: internal/daemon's
// ShimTokenName, which the app may not import (a test keeps them equal).
const ShimTokenName = "stdio-shim"
