package mcpcore_test

import (
	"path/filepath"
	"testing"

	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// TestDefaultScopeBuiltAtStart: the engine builds the default scope's
// server by itself as it starts, before any request; Shutdown right after
// New waits for that build.
func TestDefaultScopeBuiltAtStart(t *testing.T) {
	ctx := testCtx(t)
	st, err := storage.Open(filepath.Join(t.TempDir(), "mcptray.db"), mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	opts := mcpcore.Options{Version: "test", Logger: testLogger(t)}
	eng, err := mcpcore.New(ctx, st, openSecrets(t, st), opts)
	if err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, "the default scope to be built without a request", eng.HasDefaultScope)
	eng.Shutdown()

	again, err := mcpcore.New(ctx, st, openSecrets(t, st), opts)
	if err != nil {
		t.Fatal(err)
	}
	again.Shutdown()
}
