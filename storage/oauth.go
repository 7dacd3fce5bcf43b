package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// oauthPrefix starts the entry of mcptray's sign-in to a remote server
// behind OAuth, "oauth:" + the server's name: a ':' no secret name has.
const oauthPrefix = "oauth:"

// LoadSignIn returns what mcptray keeps of its sign-in to the named
// upstream server (its tokens and client registration, as upstream
// encodes them); nil, nil when it keeps none. With SaveSignIn it is
// upstream.TokenStore.
func (x *Secrets) LoadSignIn(ctx context.Context, server string) ([]byte, error) {
	v, err := x.lookup(ctx, oauthPrefix+server)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the sign-in to %s: %w", server, err)
	}
	return []byte(v), nil
}

// SaveSignIn replaces what mcptray keeps of its sign-in to the named
// upstream server, in the secret store beside the person's secrets, not
// listed among them.
func (x *Secrets) SaveSignIn(ctx context.Context, server string, data []byte) error {
	if len(data) == 0 || len(data) > MaxSecretSize {
		return fmt.Errorf("the sign-in to %s: %d bytes (1 to %d allowed)", server, len(data), MaxSecretSize)
	}
	return x.changeSignIn(ctx, server, "keeping", func(user string) error { return x.backend.set(ctx, user, string(data)) })
}

// DeleteSignIn forgets the sign-in to the named upstream server (signed
// out, or the server removed); none kept is not an error.
func (x *Secrets) DeleteSignIn(ctx context.Context, server string) error {
	return x.changeSignIn(ctx, server, "forgetting", func(user string) error { return x.backend.del(ctx, user) })
}

// changeSignIn runs change on the server's entry under the database's
// write lock, as every change of the secret store (the fallback file is
// rewritten whole), then drops a stale copy from the file.
func (x *Secrets) changeSignIn(ctx context.Context, server, doing string, change func(user string) error) error {
	user := oauthPrefix + server
	err := x.st.writeQuiet(ctx, func(*sql.Tx) error {
		if err := change(user); err != nil {
			return err
		}
		x.dropLeftover(ctx, user)
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s the sign-in to %s: %w", doing, server, err)
	}
	return nil
}
