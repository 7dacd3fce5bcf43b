package storage

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/record"
)

func TestRememberedApprovalsOutliveTheStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mcptray.db")
	k := record.ApprovalKey{Token: "stdio-shim", Client: "claude-desktop", Tool: "clean_downloads", ToolHash: "h1"}

	s, err := Open(path, mcpcore.Validator{}, WithPollInterval(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	changes := s.Changes(ctx)
	if ok, err := s.IsApprovalRemembered(ctx, k); err != nil || ok {
		t.Fatalf("before: %v %v", ok, err)
	}
	before := time.Now().Add(-time.Second)
	if err := s.RememberApproval(ctx, k); err != nil {
		t.Fatal(err)
	}
	// A second time keeps the first one's time, and is no error.
	if err := s.RememberApproval(ctx, k); err != nil {
		t.Fatal(err)
	}
	if receive(changes, 200*time.Millisecond) {
		t.Error("Changes fired for a remembered approval, which is no catalog change")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openAt(t, path)
	if ok, err := s.IsApprovalRemembered(ctx, k); err != nil || !ok {
		t.Fatalf("after reopening: %v %v", ok, err)
	}
	// Bound to every part of the key.
	for _, other := range []record.ApprovalKey{
		{Token: "laptop", Client: k.Client, Tool: k.Tool, ToolHash: k.ToolHash},
		{Token: k.Token, Client: "cursor", Tool: k.Tool, ToolHash: k.ToolHash},
		{Token: k.Token, Client: k.Client, Tool: "other", ToolHash: k.ToolHash},
		{Token: k.Token, Client: k.Client, Tool: k.Tool, ToolHash: "h2"},
	} {
		if ok, err := s.IsApprovalRemembered(ctx, other); err != nil || ok {
			t.Errorf("%+v counts as remembered (%v)", other, err)
		}
	}
	list, err := s.RememberedApprovals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ApprovalKey != k || !list[0].UntilRevoked || list[0].Since.Before(before) || list[0].Since.After(time.Now()) {
		t.Fatalf("list: %+v", list)
	}

	if err := s.ForgetApproval(ctx, k); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.IsApprovalRemembered(ctx, k); err != nil || ok {
		t.Errorf("after forgetting: %v %v", ok, err)
	}
	if err := s.ForgetApproval(ctx, k); err != nil {
		t.Errorf("forgetting twice: %v", err)
	}
	if list, err := s.RememberedApprovals(ctx); err != nil || len(list) != 0 {
		t.Errorf("list after forgetting: %+v %v", list, err)
	}
}

func TestRememberApprovalRefusesAnIncompleteKey(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	for _, tc := range []struct {
		k    record.ApprovalKey
		want string
	}{
		{record.ApprovalKey{Client: "cursor", ToolHash: "h"}, "remember the approval: no tool named"},
		{record.ApprovalKey{Client: "cursor", Tool: "wipe"}, `remember the approval of "wipe": no hash of the tool's definition`},
	} {
		if err := s.RememberApproval(ctx, tc.k); err == nil || err.Error() != tc.want {
			t.Errorf("RememberApproval(%+v) = %v, want %q", tc.k, err, tc.want)
		}
	}
	if list, err := s.RememberedApprovals(ctx); err != nil || len(list) != 0 {
		t.Errorf("kept: %+v %v", list, err)
	}
}

// TestRevokingATokenForgetsItsApprovals: a token made later under the same
// name is another client, and must be asked again.
func TestRevokingATokenForgetsItsApprovals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openAt(t, filepath.Join(t.TempDir(), "mcptray.db"))
	if _, err := s.CreateToken(ctx, "laptop", nil); err != nil {
		t.Fatal(err)
	}
	mine := record.ApprovalKey{Token: "laptop", Client: "cursor", Tool: "wipe", ToolHash: "h"}
	other := record.ApprovalKey{Token: "stdio-shim", Client: "cursor", Tool: "wipe", ToolHash: "h"}
	for _, k := range []record.ApprovalKey{mine, other} {
		if err := s.RememberApproval(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RevokeToken(ctx, "laptop"); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.IsApprovalRemembered(ctx, mine); err != nil || ok {
		t.Fatalf("the revoked token's approval: %v, %v", ok, err)
	}
	if ok, err := s.IsApprovalRemembered(ctx, other); err != nil || !ok {
		t.Fatalf("another token's approval went too: %v, %v", ok, err)
	}
}
