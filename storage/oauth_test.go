package storage

import (
	"context"
	"testing"
)

// TestSignIns: a sign-in is kept in the fallback file under a name no
// secret can have, is not listed among the secrets, is replaced, and is
// forgotten.
func TestSignIns(t *testing.T) {
	withoutKeyring(t)
	ctx := context.Background()
	x := openSecrets(t, openTest(t))
	if got, err := x.LoadSignIn(ctx, "cloud"); got != nil || err != nil {
		t.Fatalf("none kept: %q, %v", got, err)
	}
	for _, v := range []string{`{"token":1}`, `{"token":2}`} {
		if err := x.SaveSignIn(ctx, "cloud", []byte(v)); err != nil {
			t.Fatal(err)
		}
		if got, err := x.LoadSignIn(ctx, "cloud"); string(got) != v || err != nil {
			t.Fatalf("kept %q, %v; want %q", got, err, v)
		}
	}
	if m, err := x.file.load(); err != nil || m["oauth:cloud"] == "" {
		t.Errorf("the file holds %v (%v)", m, err)
	}
	if list, err := x.ListSecrets(ctx); err != nil || len(list) != 0 {
		t.Errorf("secrets listed: %v, %v", list, err)
	}
	if err := x.DeleteSignIn(ctx, "cloud"); err != nil {
		t.Fatal(err)
	}
	if got, err := x.LoadSignIn(ctx, "cloud"); got != nil || err != nil {
		t.Errorf("after DeleteSignIn: %q, %v", got, err)
	}
	if err := x.DeleteSignIn(ctx, "cloud"); err != nil {
		t.Errorf("deleting none: %v", err)
	}
}
