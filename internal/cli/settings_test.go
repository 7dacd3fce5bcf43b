package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

func TestSettingsSetPortAndAskPolicy(t *testing.T) {
	db := filepath.Join(t.TempDir(), "x.db")
	ctx := context.Background()
	var out bytes.Buffer
	if err := Run(ctx, []string{"settings", "set", "port=9000", "askPolicy=client-only", "--db", db}, Env{Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"port": 9000`) {
		t.Errorf("output:\n%s", out.String())
	}
	for arg, want := range map[string]string{
		"port=abc":        "port=abc: must be a whole number",
		"port=70000":      "port: must be between 1 and 65535",
		"askPolicy=maybe": "askPolicy: must be one of deny, client-only",
	} {
		err := Run(ctx, []string{"settings", "set", arg, "--db", db}, Env{Stdout: &out})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", arg, err, want)
		}
	}
	st, err := storage.Open(db, mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if set, _ := st.Settings(ctx); set.Port != 9000 || set.AskPolicy != "client-only" {
		t.Errorf("stored port %d, ask policy %q", set.Port, set.AskPolicy)
	}
}
