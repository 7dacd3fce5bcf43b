package mcpcore_test

import (
	"context"
	"os"
	"testing"

	"github.com/zalando/go-keyring"

	"github.com/mcptray/mcptray/storage"
)

// TestMain keeps the engine's keys away from the user's keyring:
// go-keyring's in-memory mock stands in for it.
func TestMain(m *testing.M) {
	keyring.MockInit()
	os.Exit(m.Run())
}

// openSecrets is st's secret store, where the engine keeps its keys.
func openSecrets(t *testing.T, st *storage.Store) *storage.Secrets {
	t.Helper()
	sec, err := st.OpenSecrets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return sec
}
