package storage

import (
	"bytes"
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcptray/mcptray/mcpcore"
)

func TestKeyStableAcrossReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.db")
	ctx := context.Background()
	s, err := Open(path, mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	k1, err := storeKey(ctx, s, "request-state", 32)
	if err != nil || len(k1) != 32 {
		t.Fatalf("Key = %x, %v", k1, err)
	}
	if bytes.Equal(k1, make([]byte, 32)) {
		t.Error("key is all zeros")
	}
	again, err := storeKey(ctx, s, "request-state", 32)
	if err != nil || !bytes.Equal(again, k1) {
		t.Errorf("second Key = %x, %v; want %x", again, err, k1)
	}
	other, err := storeKey(ctx, s, "other", 32)
	if err != nil || bytes.Equal(other, k1) {
		t.Errorf("other key = %x, %v", other, err)
	}
	if _, err := storeKey(ctx, s, "request-state", 16); err == nil {
		t.Error("Key with a different size succeeded")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openAt(t, path)
	k2, err := storeKey(ctx, s, "request-state", 32)
	if err != nil || !bytes.Equal(k2, k1) {
		t.Errorf("after reopen Key = %x, %v; want %x", k2, err, k1)
	}
}

func TestKeyRace(t *testing.T) { checkKeyRace(t) }

// checkKeyRace has four stores on one file create the same key at once;
// they must all end with the same bytes.
func checkKeyRace(t *testing.T) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "race.db")
	stores := []*Store{openAt(t, path), openAt(t, path), openAt(t, path), openAt(t, path)}
	keys := make([][]byte, len(stores))
	errs := make([]error, len(stores))
	var wg sync.WaitGroup
	for i, s := range stores {
		wg.Go(func() { keys[i], errs[i] = storeKey(context.Background(), s, "shared", 32) })
	}
	wg.Wait()
	for i := range stores {
		if errs[i] != nil || !bytes.Equal(keys[i], keys[0]) {
			t.Errorf("store %d: %x, %v; want %x", i, keys[i], errs[i], keys[0])
		}
	}
}
