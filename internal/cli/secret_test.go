package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"

	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// TestMain keeps the tests of the commands away from the user's keyring:
// go-keyring's in-memory mock stands in for it.
func TestMain(m *testing.M) {
	keyring.MockInit()
	os.Exit(m.Run())
}

func TestSecretCmd(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "mcptray.db")
	run := func(stdin string, args ...string) (string, error) {
		t.Helper()
		var out, errOut bytes.Buffer
		err := Run(ctx, append(append([]string{"secret"}, args...), "--db", db), Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut})
		if errOut.Len() > 0 {
			t.Errorf("stderr: %s", errOut.String())
		}
		return out.String(), err
	}
	if out, err := run("tok-VALUE\n", "set", "api"); err != nil || out != "secret api saved\n" {
		t.Fatalf("set: %q, %v", out, err)
	}
	var ue usageError
	if _, err := run("", "set", "api", "on-the-command-line"); !errors.As(err, &ue) || !strings.Contains(err.Error(), "stdin") {
		t.Errorf("value on argv: %v", err)
	}
	if _, err := run("", "set", "empty"); err == nil {
		t.Error("empty stdin accepted")
	}
	if _, err := run("multi\nline\r\n", "set", "pem"); err != nil {
		t.Fatal(err)
	}
	out, err := run("", "list")
	if err != nil || !strings.Contains(out, "NAME") || !strings.Contains(out, "api ") || !strings.Contains(out, "pem ") ||
		strings.Contains(out, "tok-VALUE") {
		t.Errorf("list: %q, %v", out, err)
	}
	if _, err := run("", "rename", "api", "api2"); err != nil {
		t.Fatal(err)
	}
	if _, err := run("", "delete", "pem"); err != nil {
		t.Fatal(err)
	}
	if _, err := run("", "delete", "pem"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}

	st, err := storage.Open(db, mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sec, err := st.OpenSecrets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := sec.Secret(ctx, "api2"); err != nil || v != "tok-VALUE" {
		t.Errorf("stored value %q, %v", v, err)
	}
	if list, _ := sec.ListSecrets(ctx); len(list) != 1 {
		t.Errorf("ListSecrets = %+v", list)
	}
}

func TestSecretCmdKeepsNewlinesInside(t *testing.T) {
	if got := trimNewline("a\nb\r\n"); got != "a\nb" {
		t.Errorf("trimNewline = %q", got)
	}
	if got := trimNewline("a\n\n"); got != "a\n" {
		t.Errorf("trimNewline = %q", got)
	}
}
