package clientconfig

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/mcptray/mcptray/storage"
)

// TokenPlaceholder stands for the client's token in a preview of the HTTP
// form: the real token is created only when the person confirms, and shown
// once then.
const TokenPlaceholder = "<new token, created when you confirm>"

// RotateToken creates the client's dedicated token, named after it (its
// ID), revoking an older one of that name: clients that still send the old
// one are refused from now on.
func RotateToken(ctx context.Context, st *storage.Store, name string) (string, error) {
	if st == nil {
		return "", errors.New("no database to keep the client token in")
	}
	secret, err := st.ReplaceToken(ctx, name)
	if err != nil {
		return "", fmt.Errorf("the client token %q: %w", name, err)
	}
	return secret, nil
}

// Written is one file Install wrote.
type Written struct {
	Path string
	// Backup is the path of the copy of the file's previous content; ""
	// when the file is new.
	Backup string
}

// Installed is what Install did.
type Installed struct {
	Files []Written
	// Token is the HTTP form's new client token ("" for the stdio form):
	// shown to the person once, for clients that keep it outside the file.
	Token string
}

// Install writes the plans a person confirmed (computed by PlanInstall,
// with TokenPlaceholder as the HTTP form's token). Every file must still
// hold what the preview read, else nothing is written and no token is
// made; then, for the HTTP form, the client's token is rotated
// (RotateToken, named after c.ID) and the entry written with it. Files
// already configured are left alone.
func Install(ctx context.Context, st *storage.Store, c Client, f Form, p Params, previews []Plan) (Installed, error) {
	var out Installed
	for _, pl := range previews {
		cur, err := os.ReadFile(pl.Path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return out, fmt.Errorf("reading %s: %w", pl.Path, err)
		}
		if !bytes.Equal(cur, pl.Old) || (cur == nil) != (pl.Old == nil) {
			return out, fmt.Errorf("%s changed since the preview; nothing was written — look at it again and confirm", pl.Path)
		}
	}
	if f == HTTP {
		secret, err := RotateToken(ctx, st, c.ID)
		if err != nil {
			return out, err
		}
		p.Token, out.Token = secret, secret
	}
	for _, prev := range previews {
		if !prev.Changed {
			continue
		}
		pl, err := PlanInstall(c, prev.Path, f, p)
		if err != nil {
			return out, err
		}
		if !bytes.Equal(pl.Old, prev.Old) {
			return out, fmt.Errorf("%s changed since the preview; it was not written — look at it again and confirm", pl.Path)
		}
		backup, err := pl.Apply()
		if err != nil {
			return out, err
		}
		out.Files = append(out.Files, Written{Path: pl.Path, Backup: backup})
	}
	return out, nil
}

// TokenInstructions says what to do with the HTTP form's new token for a
// client that does not read it from its config file (shown only now), or
// "" when the file holds it.
func TokenInstructions(c Client, token string) string {
	switch {
	case c.TokenEnv != "":
		return fmt.Sprintf("%s reads the token from the environment; set it where you start it (shown only now):\n  export %s=%s", c.Name, c.TokenEnv, token)
	case c.ID == "vscode":
		return fmt.Sprintf("VS Code asks for the token once and keeps it in its secret storage; paste this (shown only now):\n  %s", token)
	}
	return ""
}
