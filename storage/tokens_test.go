package storage

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/record"
)

func TestTokenLifecycle(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()

	all, err := s.CreateToken(ctx, "claude-desktop", nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(all, TokenPrefix))
	if !strings.HasPrefix(all, TokenPrefix) || err != nil || len(raw) != 32 {
		t.Errorf("secret %q is not mcpt_ + base64url(32 bytes)", all)
	}
	ci, err := s.CreateToken(ctx, "ci.runner_1", []string{"deploy", "build", "build"})
	if err != nil {
		t.Fatal(err)
	}

	p, err := s.VerifyToken(ctx, all)
	if err != nil || p.Token != "claude-desktop" || p.Tools != nil {
		t.Errorf("VerifyToken(all) = %+v, %v", p, err)
	}
	p, err = s.VerifyToken(ctx, ci)
	if err != nil || p.Token != "ci.runner_1" || !reflect.DeepEqual(p.Tools, []string{"build", "deploy"}) {
		t.Errorf("VerifyToken(ci) = %+v, %v", p, err)
	}

	// Only the hash is stored.
	var hash []byte
	if err := s.db.QueryRow(`SELECT hash FROM tokens WHERE name = 'claude-desktop'`).Scan(&hash); err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256([]byte(all)); string(hash) != string(sum[:]) {
		t.Error("stored hash is not sha256(secret)")
	}
	if strings.Contains(dump(t, s), strings.TrimPrefix(all, TokenPrefix)) {
		t.Error("secret stored in the database")
	}

	// Restrict, then unrestrict; an empty non-nil list allows nothing.
	if err := s.SetTokenTools(ctx, "claude-desktop", []string{"greet"}); err != nil {
		t.Fatal(err)
	}
	if p, _ = s.VerifyToken(ctx, all); !reflect.DeepEqual(p.Tools, []string{"greet"}) {
		t.Errorf("after SetTokenTools: %+v", p)
	}
	if err := s.SetTokenTools(ctx, "claude-desktop", []string{}); err != nil {
		t.Fatal(err)
	}
	if p, _ = s.VerifyToken(ctx, all); p.Tools == nil || len(p.Tools) != 0 {
		t.Errorf("after SetTokenTools([]): %#v", p.Tools)
	}
	if err := s.SetTokenTools(ctx, "claude-desktop", nil); err != nil {
		t.Fatal(err)
	}
	if p, _ = s.VerifyToken(ctx, all); p.Tools != nil {
		t.Errorf("after SetTokenTools(nil): %#v", p.Tools)
	}
	if err := s.SetTokenTools(ctx, "nobody", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetTokenTools(missing) = %v, want ErrNotFound", err)
	}

	list, err := s.ListTokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Name != "ci.runner_1" || list[1].Name != "claude-desktop" ||
		!reflect.DeepEqual(list[0].Tools, []string{"build", "deploy"}) || list[1].Tools != nil ||
		time.Since(list[0].CreatedAt) > time.Minute {
		t.Errorf("ListTokens = %+v", list)
	}

	if err := s.RevokeToken(ctx, "claude-desktop"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.VerifyToken(ctx, all); !errors.Is(err, record.ErrUnknownToken) {
		t.Errorf("VerifyToken(revoked) = %v, want ErrUnknownToken", err)
	}
	if err := s.RevokeToken(ctx, "claude-desktop"); !errors.Is(err, ErrNotFound) {
		t.Errorf("RevokeToken again = %v, want ErrNotFound", err)
	}
	if _, err := s.VerifyToken(ctx, ci); err != nil {
		t.Errorf("other token stopped working: %v", err)
	}
}

func TestVerifyWrongToken(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	real, err := s.CreateToken(ctx, "laptop", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, wrong := range []string{"", "mcpt_", real[:len(real)-1], real + "x", "Bearer " + real, "mcpt_wrong-secret-value"} {
		_, err := s.VerifyToken(ctx, wrong)
		if !errors.Is(err, record.ErrUnknownToken) {
			t.Errorf("VerifyToken(%q) = %v, want ErrUnknownToken", wrong, err)
		}
		if wrong != "" && strings.Contains(err.Error(), wrong) {
			t.Errorf("error %q reveals the token", err)
		}
	}
}

func TestCreateTokenRejects(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	if _, err := s.CreateToken(ctx, "laptop", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateToken(ctx, "laptop", nil); !errors.Is(err, ErrExists) {
		t.Errorf("duplicate name: %v, want ErrExists", err)
	}
	for _, name := range []string{"", "has space", "slash/", strings.Repeat("a", 65), "émoji"} {
		if _, err := s.CreateToken(ctx, name, nil); err == nil {
			t.Errorf("CreateToken(%q) accepted", name)
		}
	}
	if _, err := s.CreateToken(ctx, "ok", []string{"bad tool"}); err == nil {
		t.Error("CreateToken accepted an invalid tool name")
	}
	if _, err := s.CreateToken(ctx, strings.Repeat("a", 64), nil); err != nil {
		t.Errorf("64-character name: %v", err)
	}
}

func TestTokenLastUsedIsQuiet(t *testing.T) {
	t.Parallel()
	s, err := Open(filepath.Join(t.TempDir(), "t.db"), mcpcore.Validator{}, WithPollInterval(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	secret, err := s.CreateToken(ctx, "laptop", nil)
	if err != nil {
		t.Fatal(err)
	}
	changes := s.Changes(ctx)
	for range 3 {
		if _, err := s.VerifyToken(ctx, secret); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(wait)
	for {
		list, err := s.ListTokens(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if list[0].LastUsedAt != nil {
			if time.Since(*list[0].LastUsedAt) > time.Minute {
				t.Errorf("LastUsedAt %v", list[0].LastUsedAt)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("last_used_at never recorded")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Several poll intervals: the Store's own last-use write is no change.
	if receive(changes, 200*time.Millisecond) {
		t.Error("Changes fired for a token last-use update")
	}
}

func TestTokenCacheSeesOtherStore(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "shared.db")
	a, b := openAt(t, path), openAt(t, path)
	ctx := context.Background()
	if _, err := a.VerifyToken(ctx, "mcpt_nothing"); !errors.Is(err, record.ErrUnknownToken) {
		t.Fatal(err) // loads a's cache
	}
	changes := a.Changes(ctx)
	secret, err := b.CreateToken(ctx, "from-b", []string{"greet"})
	if err != nil {
		t.Fatal(err)
	}
	if !receive(changes, wait) {
		t.Fatal("no change seen")
	}
	if p, err := a.VerifyToken(ctx, secret); err != nil || p.Token != "from-b" {
		t.Errorf("VerifyToken via a = %+v, %v", p, err)
	}
	if err := b.RevokeToken(ctx, "from-b"); err != nil {
		t.Fatal(err)
	}
	if !receive(changes, wait) {
		t.Fatal("no change seen")
	}
	if _, err := a.VerifyToken(ctx, secret); !errors.Is(err, record.ErrUnknownToken) {
		t.Errorf("revoked elsewhere, still verifies: %v", err)
	}
}

func TestReplaceToken(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	first, err := s.ReplaceToken(ctx, "cursor") // none yet: created, all tools
	if err != nil {
		t.Fatal(err)
	}
	if p, err := s.VerifyToken(ctx, first); err != nil || p.Token != "cursor" || p.Tools != nil {
		t.Fatalf("first secret: %+v, %v", p, err)
	}
	// The person limits it; a new secret keeps the limit.
	if err := s.SetTokenTools(ctx, "cursor", []string{"echo"}); err != nil {
		t.Fatal(err)
	}
	second, err := s.ReplaceToken(ctx, "cursor")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.VerifyToken(ctx, first); err == nil {
		t.Error("the replaced secret still verifies")
	}
	if p, err := s.VerifyToken(ctx, second); err != nil || p.Token != "cursor" || !reflect.DeepEqual(p.Tools, []string{"echo"}) {
		t.Errorf("second secret: %+v, %v (its tool limit must stay)", p, err)
	}
	if toks, err := s.ListTokens(ctx); err != nil || len(toks) != 1 {
		t.Errorf("tokens after two replacements: %+v, %v", toks, err)
	}
	if _, err := s.ReplaceToken(ctx, "bad name"); err == nil {
		t.Error("a bad name was accepted")
	}
	if _, err := s.CreateToken(ctx, "cursor", nil); !errors.Is(err, ErrExists) {
		t.Errorf("CreateToken over an existing name: %v", err)
	}
}
