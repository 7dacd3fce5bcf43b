package mcpcore

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func testSealer(t *testing.T) *sealer {
	t.Helper()
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	s, err := newSealer(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSealerRoundTripAndBinding(t *testing.T) {
	s := testSealer(t)
	b := binding{Method: "tools/call", Name: "greet", Arguments: map[string]any{"x": 1.0, "y": "z"}, Principal: "cursor"}
	st := roundState{Answers: map[string]json.RawMessage{"k": json.RawMessage(`{"action":"accept"}`)}}
	tok, err := s.seal(b, st, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.open(b, tok)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	if !bytes.Equal(got.Answers["k"], st.Answers["k"]) {
		t.Errorf("round trip lost data: %+v", got)
	}
	// Map key order must not matter: the arguments are canonicalized.
	same := b
	same.Arguments = map[string]any{"y": "z", "x": 1.0}
	if _, err := s.open(same, tok); err != nil {
		t.Errorf("equal arguments rejected: %v", err)
	}
	for name, other := range map[string]binding{
		"other tool":      {Method: b.Method, Name: "other", Arguments: b.Arguments, Principal: b.Principal},
		"other method":    {Method: "prompts/get", Name: b.Name, Arguments: b.Arguments, Principal: b.Principal},
		"other arguments": {Method: b.Method, Name: b.Name, Arguments: map[string]any{"x": 2.0, "y": "z"}, Principal: b.Principal},
		"other principal": {Method: b.Method, Name: b.Name, Arguments: b.Arguments, Principal: "evil"},
	} {
		if _, err := s.open(other, tok); !errors.Is(err, errBadState) {
			t.Errorf("%s: want errBadState, got %v", name, err)
		}
	}
	for name, forged := range map[string]string{
		"tampered":    tok + "x",
		"not minted":  "forged-by-client",
		"bit flipped": tok[:len(tok)-2] + string(rune(tok[len(tok)-2]^1)) + tok[len(tok)-1:],
		"empty body":  stateVersion,
		"other key":   mustSeal(t, testSealer(t), b),
	} {
		if _, err := s.open(b, forged); !errors.Is(err, errBadState) {
			t.Errorf("%s: want errBadState, got %v", name, err)
		}
	}
}

func mustSeal(t *testing.T, s *sealer, b binding) string {
	t.Helper()
	tok, err := s.seal(b, roundState{}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestSealerExpiry(t *testing.T) {
	s := testSealer(t)
	now := time.Unix(1_800_000_000, 0)
	s.now = func() time.Time { return now }
	b := binding{Method: "tools/call", Name: "t"}
	tok, err := s.seal(b, roundState{}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(9 * time.Second)
	if _, err := s.open(b, tok); err != nil {
		t.Fatalf("fresh state rejected: %v", err)
	}
	now = now.Add(2 * time.Second)
	if _, err := s.open(b, tok); !errors.Is(err, errExpiredState) {
		t.Fatalf("want errExpiredState, got %v", err)
	}
}

func TestSealedStatesDiffer(t *testing.T) {
	s := testSealer(t)
	b := binding{Method: "tools/call", Name: "t"}
	first, second := mustSeal(t, s, b), mustSeal(t, s, b)
	if first == second {
		t.Error("two seals of the same state are equal: the nonce is not random")
	}
}
