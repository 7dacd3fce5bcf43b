package app

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// otherProcess opens the database at path as the command line does: a
// Store of its own (another connection, as another process has), with
// the secret store the server uses for that database.
func otherProcess(t *testing.T, path string) (*storage.Store, *storage.Secrets) {
	t.Helper()
	st, err := storage.Open(path, mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	sec, err := st.OpenSecrets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st, sec
}

// TestSettingsListsFollowOtherWriters: a token and a secret created from
// the command line (another Store on the same file) show in Settings by
// themselves, as `mcptray token create` and `mcptray secret set` do
// while the window is open; a token selected stays selected.
func TestSettingsListsFollowOtherWriters(t *testing.T) {
	s, st, _ := newSettingsFixture(t)
	ctx := context.Background()
	if !s.CreateToken("kept", nil) {
		t.Fatal("token not created")
	}
	s.listing.Lock() // between the change feed's reloads, as on the window's goroutine
	s.tokens.List.Select(0)
	s.listing.Unlock()
	cli, sec := otherProcess(t, st.Path())
	start := time.Now()
	if _, err := cli.CreateToken(ctx, "tester", nil); err != nil {
		t.Fatal(err)
	}
	if err := sec.SetSecret(ctx, "list_items_token", "v"); err != nil {
		t.Fatal(err)
	}
	testutil.EventuallyShows(t, "the token and the secret made elsewhere in Settings", func() (bool, string) {
		s.listing.Lock()
		defer s.listing.Unlock()
		toks := slices.Collect(func(yield func(string) bool) {
			for _, x := range s.tokens.Items {
				yield(x.Name)
			}
		})
		secs := slices.Collect(func(yield func(string) bool) {
			for _, x := range s.secrets.Items {
				yield(x.Name)
			}
		})
		return slices.Contains(toks, "tester") && slices.Contains(secs, "list_items_token"), "tokens " + fmtList(toks) + ", secrets " + fmtList(secs)
	})
	t.Logf("listed %v after the other process wrote", time.Since(start))
	s.listing.Lock()
	defer s.listing.Unlock()
	if x, ok := s.tokens.Selected(); !ok || x.Name != "kept" {
		t.Errorf("the token selected before is no longer: %+v, %v", x, ok)
	}
}

// TestToolListFollowsOtherWriters: a tool another process imports, and one
// it deletes, show in the Tools list by themselves.
func TestToolListFollowsOtherWriters(t *testing.T) {
	m, s := newImportManager(t, fyne.NewSize(1000, 700))
	cli, _ := otherProcess(t, s.St.Path())
	ctx := context.Background()
	tool := catalog.Tool{Name: "from_the_cli", Description: "Imported elsewhere.",
		Action: catalog.Action{Respond: &catalog.Respond{Content: []catalog.Content{{Type: "text", Text: "hi"}}}}}
	if err := cli.Import(ctx, &catalog.Catalog{Tools: []catalog.Tool{tool}}, false); err != nil {
		t.Fatal(err)
	}
	listed := func() []string {
		m.reloading.Lock()
		defer m.reloading.Unlock()
		var out []string
		for _, e := range m.tools.all {
			out = append(out, e.key)
		}
		return out
	}
	testutil.EventuallyShows(t, "the imported tool in the list", func() (bool, string) {
		l := listed()
		return slices.Contains(l, "from_the_cli"), fmtList(l)
	})
	if err := cli.DeleteTool(ctx, "from_the_cli"); err != nil {
		t.Fatal(err)
	}
	testutil.EventuallyShows(t, "the deleted tool gone from the list", func() (bool, string) {
		l := listed()
		return !slices.Contains(l, "from_the_cli"), fmtList(l)
	})
}

func fmtList(l []string) string { return "[" + strings.Join(l, ", ") + "]" }
