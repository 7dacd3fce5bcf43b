package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/upstream/oauthtest"
	"github.com/zalando/go-keyring"
)

// TestUpstreamSignIn: `upstream add` of a server behind a local
// authorization server signs in in the "browser" and adds it; test uses
// the kept sign-in (no browser); signin signs in anew under the same
// client registration; signout and remove forget it (the next sign-in
// registers anew). No token is in the database or the export.
func TestUpstreamSignIn(t *testing.T) {
	keyring.MockInit()
	w := oauthtest.New(t)
	was := openBrowser
	openBrowser = w.Browser(nil)
	t.Cleanup(func() { openBrowser = was })
	db := filepath.Join(t.TempDir(), "x.db")
	step := func(what string, args []string, want string, opened, registered int) {
		t.Helper()
		out, err := upstreamRun(t, db, "", args)
		if err != nil || !strings.Contains(out, want) {
			t.Fatalf("%s: %v\n%s", what, err, out)
		}
		if c := w.Counts(); c.Opened != opened || c.Registrations != registered {
			t.Fatalf("%s: browser opened %d times, %d clients registered; want %d, %d\n%s", what, c.Opened, c.Registrations, opened, registered, out)
		}
	}
	step("add", []string{"add", "cloud", w.MCPURL, "--yes"}, "Sign in to cloud in your browser", 1, 1)
	step("test", []string{"test", "cloud"}, "cloud offers 1 tools", 1, 1)
	step("signin", []string{"signin", "cloud"}, "Signed in to cloud; it offers 1 tools", 2, 1)
	step("signout", []string{"signout", "cloud"}, "Signed out of cloud", 2, 1)
	step("test after signout", []string{"test", "cloud"}, "cloud offers 1 tools", 3, 2)
	step("remove", []string{"remove", "cloud"}, "Removed the server cloud", 3, 2)
	step("add again", []string{"add", "cloud", w.MCPURL, "--yes"}, "Added cloud", 4, 3)

	out, _ := run(t, db, "export")
	for _, f := range []string{db, db + "-wal"} {
		data, _ := os.ReadFile(f)
		out += string(data)
	}
	for _, tok := range w.Issued() {
		if strings.Contains(out, tok) {
			t.Fatalf("a token is in the database or the export")
		}
	}
}
