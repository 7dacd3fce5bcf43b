package mcpcore

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// KeyStore keeps the server's own secret keys (e.g. the request-state key),
// creating one of the given size on first use.
type KeyStore interface {
	Key(ctx context.Context, name string, size int) ([]byte, error)
}

// requestStateKeyName is the KeyStore name of the AEAD key that seals
// requestState; persisting it lets a round survive a restart.
const requestStateKeyName = "request-state"

// stateVersion prefixes every sealed state so the format can evolve.
const stateVersion = "v1."

// roundState is what a sealed requestState carries between rounds: the
// answers collected so far (which also say how far the flow has come).
type roundState struct {
	Answers map[string]json.RawMessage `json:"a,omitempty"`
	// Upstream is set once an upstream tool's server asks for input: the
	// request's inputResponses are then the server's, and UpstreamState
	// the requestState the server sent with its questions.
	Upstream      bool   `json:"u,omitempty"`
	UpstreamState string `json:"us,omitempty"`
	// Desk are the answers the person gave on the desktop in an upstream
	// call's first request, good for the next request only if it holds
	// Pass (deskpass.go).
	Desk    map[string]json.RawMessage `json:"d,omitempty"`
	Pass    string                     `json:"p,omitempty"`
	Expires int64                      `json:"e"`
}

// sealer seals and opens requestState with AES-256-GCM. The additional data
// binds a state to the request it was minted for — method, name, canonical
// arguments and the principal — so it cannot be replayed on another tool,
// with other arguments, or by another client token.
type sealer struct {
	aead cipher.AEAD
	now  func() time.Time
}

func newSealer(key []byte) (*sealer, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("request state key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("request state key: %w", err)
	}
	return &sealer{aead: aead, now: time.Now}, nil
}

// binding identifies the request a state belongs to.
type binding struct {
	Method    string
	Name      string
	Arguments any
	Principal string
}

func (b binding) digest() ([]byte, error) {
	// json.Marshal sorts map keys, which makes equal arguments encode equally.
	args, err := json.Marshal(b.Arguments)
	if err != nil {
		return nil, fmt.Errorf("encoding arguments: %w", err)
	}
	h := sha256.New()
	for _, part := range [][]byte{[]byte(b.Method), []byte(b.Name), args, []byte(b.Principal)} {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	return h.Sum(nil), nil
}

func (s *sealer) seal(b binding, st roundState, ttl time.Duration) (string, error) {
	ad, err := b.digest()
	if err != nil {
		return "", err
	}
	st.Expires = s.now().Add(ttl).Unix()
	plain, err := json.Marshal(st)
	if err != nil {
		return "", fmt.Errorf("encoding request state: %w", err)
	}
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("request state nonce: %w", err)
	}
	sealed := s.aead.Seal(nonce, nonce, plain, ad)
	return stateVersion + base64.RawURLEncoding.EncodeToString(sealed), nil
}

// errBadState is the reason every rejected state gives: a client learns
// nothing about why beyond "not valid for this request".
var errBadState = errors.New("requestState is not valid for this request (tampered, replayed on another request, or not issued by this server)")

// errExpiredState tells the client to start over.
var errExpiredState = errors.New("requestState has expired; call again without it")

func (s *sealer) open(b binding, token string) (roundState, error) {
	var st roundState
	if len(token) < len(stateVersion) || token[:len(stateVersion)] != stateVersion {
		return st, errBadState
	}
	raw, err := base64.RawURLEncoding.DecodeString(token[len(stateVersion):])
	if err != nil || len(raw) < s.aead.NonceSize() {
		return st, errBadState
	}
	ad, err := b.digest()
	if err != nil {
		return st, err
	}
	plain, err := s.aead.Open(nil, raw[:s.aead.NonceSize()], raw[s.aead.NonceSize():], ad)
	if err != nil {
		return st, errBadState
	}
	if err := json.Unmarshal(plain, &st); err != nil {
		return st, errBadState
	}
	if s.now().Unix() > st.Expires {
		return st, errExpiredState
	}
	return st, nil
}

// openRoundState opens the requestState a 2026-07-28 request carries back,
// or says why it cannot be used, as the -32602 error the client gets.
func (e *Engine) openRoundState(b binding, token string) (roundState, error) {
	st, err := e.sealer().open(b, token)
	if err != nil {
		return st, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error(), Data: json.RawMessage(`{"reason":"invalid_request_state"}`)}
	}
	if st.Answers == nil {
		st.Answers = map[string]json.RawMessage{}
	}
	return st, nil
}

// sealRoundState seals the answers so far for the next round, valid for
// the request-state lifetime in force.
func (e *Engine) sealRoundState(b binding, st roundState) (string, error) {
	return e.sealer().seal(b, st, e.currentSettings().RequestStateTTL())
}
