package clientconfig

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
)

// Tokens keeps the client tokens an HTTP entry holds and the records of
// the entries installed; storage.Store is the one mcptray uses. Writing a
// client's file needs none of it, so this package never opens a database.
type Tokens interface {
	// ReplaceToken gives the named token a new secret, creating it.
	ReplaceToken(ctx context.Context, name string) (string, error)
	// ForgetToken revokes the named token; none is no error.
	ForgetToken(ctx context.Context, name string) error
	SetState(ctx context.Context, key string, v any) error
	DeleteState(ctx context.Context, key string) error
	StatesWithPrefix(ctx context.Context, prefix string) (map[string]json.RawMessage, error)
}

// TokenPlaceholder stands for the client's token in a preview of the HTTP
// form: the real token is created only when the person confirms, and shown
// once then.
const TokenPlaceholder = "<new token, created when you confirm>"

// entryState starts the state keys of the installed HTTP entries.
const entryState = "clientEntry."

// TokenName is the name of the token an HTTP entry holds: one token per
// installed entry — client, file and server name — so installing another
// entry never revokes this one's. The entry in the client's usual file
// under the default name is named after the client alone, as earlier
// mcptray versions named it; another name or file adds itself, a file by a
// short hash of its path (project files always, since every project has
// one).
func TokenName(c Client, e Env, path, name string) string {
	n := c.ID
	if name != "" && name != DefaultName {
		var b strings.Builder
		for _, r := range name {
			if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				b.WriteRune(r)
			} else {
				b.WriteByte('_')
			}
		}
		n += "." + b.String()[:min(b.Len(), 24)]
	}
	if c.Project || !slices.Contains(Paths(c, e), path) {
		sum := sha256.Sum256([]byte(filepath.Clean(path)))
		n += "." + hex.EncodeToString(sum[:4])
	}
	return n
}

// EntryRecord is what mcptray records about an installed HTTP entry: the
// token it holds and where it was written.
type EntryRecord struct {
	Token  string `json:"token"`
	Client string `json:"client"`
	File   string `json:"file"`
	Name   string `json:"name"`
	// EnvVar is the environment variable the client reads the token from,
	// when the file does not hold it.
	EnvVar string `json:"envVar,omitempty"`
}

// Entries lists the installed HTTP entries recorded in st, by token name.
func Entries(ctx context.Context, st Tokens) ([]EntryRecord, error) {
	raw, err := st.StatesWithPrefix(ctx, entryState)
	if err != nil {
		return nil, err
	}
	var out []EntryRecord
	for _, v := range raw {
		var r EntryRecord
		if json.Unmarshal(v, &r) == nil {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Token < out[j].Token })
	return out, nil
}

// RotateToken gives the token name a new secret (creating the token when
// there is none) and returns it: whoever still sends the old secret is
// refused from now on.
func RotateToken(ctx context.Context, st Tokens, name string) (string, error) {
	if st == nil {
		return "", errors.New("no database to keep the client token in")
	}
	secret, err := st.ReplaceToken(ctx, name)
	if err != nil {
		return "", fmt.Errorf("the client token %q: %w", name, err)
	}
	return secret, nil
}

// Installed is what Install did.
type Installed struct {
	Files []Applied
	// Token is the HTTP form's new secret ("" for the stdio form), shown
	// to the person once where they must put it (TokenInstructions).
	Token string
	// TokenName names the entry's token ("" for the stdio form).
	TokenName string
}

// Install writes the plans a person confirmed (computed by PlanInstall,
// with TokenPlaceholder as the HTTP form's token). Every file must still
// hold what the preview read, else nothing is written and no token is
// made; then, for the HTTP form, the entry's token tokenName (TokenName)
// gets a new secret, the entry is written with it and where it went is
// recorded. The stdio form revokes the token an HTTP entry of the same
// name in the same file held. Files already configured are left alone.
func Install(ctx context.Context, st Tokens, c Client, f Form, p Params, previews []Plan, tokenName string) (Installed, error) {
	var out Installed
	if err := unchanged(previews); err != nil {
		return out, err
	}
	if f == HTTP {
		secret, err := RotateToken(ctx, st, tokenName)
		if err != nil {
			return out, err
		}
		p.Token, out.Token, out.TokenName = secret, secret, tokenName
	}
	for _, prev := range previews {
		if !prev.Changed {
			continue
		}
		pl, err := PlanInstall(c, prev.Path, f, p)
		if err != nil {
			return out, err
		}
		done, err := pl.Apply()
		if err != nil {
			return out, err
		}
		out.Files = append(out.Files, done)
	}
	if f == HTTP {
		rec := EntryRecord{Token: tokenName, Client: c.ID, File: previews[0].Path, Name: p.name()}
		if TokenInEnv(c, p) {
			rec.EnvVar = TokenEnvName(p.name())
		}
		return out, st.SetState(ctx, entryState+tokenName, rec)
	}
	return out, forgetToken(ctx, st, tokenName)
}

// Uninstall writes the plans of PlanRemove a person confirmed and revokes
// the entry's token tokenName, if it has one.
func Uninstall(ctx context.Context, st Tokens, plans []Plan, tokenName string) ([]Applied, error) {
	if err := unchanged(plans); err != nil {
		return nil, err
	}
	var out []Applied
	for _, pl := range plans {
		done, err := pl.Apply()
		if err != nil {
			return out, err
		}
		if pl.Changed {
			out = append(out, done)
		}
	}
	return out, forgetToken(ctx, st, tokenName)
}

// forgetToken revokes an entry's token and its record; none is no error.
func forgetToken(ctx context.Context, st Tokens, tokenName string) error {
	if st == nil {
		return nil
	}
	if err := st.ForgetToken(ctx, tokenName); err != nil {
		return fmt.Errorf("revoking the token %q: %w", tokenName, err)
	}
	return st.DeleteState(ctx, entryState+tokenName)
}

// unchanged checks that every file still holds what its plan read.
func unchanged(plans []Plan) error {
	for _, pl := range plans {
		cur, err := readConfig(pl.Path)
		if err != nil {
			return err
		}
		if !bytes.Equal(cur, pl.Old) || (cur == nil) != (pl.Old == nil) {
			return fmt.Errorf("%s changed since the preview; nothing was written — look at it again and confirm", pl.Path)
		}
	}
	return nil
}

// TokenInstructions says what to do with the HTTP form's new token for a
// client that does not read it from its config file (shown only now), or
// "" when the file holds it.
func TokenInstructions(c Client, p Params, token string) string {
	switch {
	case c.ID == "vscode":
		return fmt.Sprintf("VS Code asks for the token once and keeps it in its secret storage; paste this (shown only now):\n  %s", token)
	case TokenInEnv(c, p):
		why := c.Name + " reads the token from the environment"
		if Shared(c, p) {
			why = "The file is meant to be shared, so it names an environment variable instead of holding the token"
		}
		return fmt.Sprintf("%s; set it where you start %s (in your shell's profile, say; shown only now):\n  %s", why, c.Name, setEnvCommand(TokenEnvName(p.name()), token))
	}
	return ""
}

// setEnvCommand is the command that sets an environment variable for the
// programs a person starts from now on.
func setEnvCommand(name, value string) string {
	if runtime.GOOS == "windows" {
		// setx reaches the programs started after it, the client included.
		return fmt.Sprintf("setx %s %s", name, value)
	}
	return fmt.Sprintf("export %s=%s", name, value)
}
