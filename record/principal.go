package record

import "errors"

// Principal is who a request is from: a client token (by name), or nobody
// when auth is off.
type Principal struct {
	// Token is the client token's name; empty when auth is off.
	Token string
	// Tools, when non-nil, is the only tools this principal may list and call.
	Tools []string
}

// ErrUnknownToken is what a TokenVerifier returns for a token it does not know.
var ErrUnknownToken = errors.New("unknown or revoked token")
