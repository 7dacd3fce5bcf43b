package storage

import (
	"context"
	"reflect"
	"testing"
)

// TestState: what mcptray records about a database survives a reopen, is
// listed by prefix, never reaches the settings, and the settings never
// overwrite it.
func TestState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := t.TempDir() + "/mcptray.db"
	s := openAt(t, path)
	var seeded bool
	if ok, err := s.State(ctx, "starterSeeded", &seeded); ok || err != nil {
		t.Fatalf("nothing recorded yet: %v, %v", ok, err)
	}
	type entry struct{ Client, File string }
	for key, v := range map[string]any{"starterSeeded": true, "entry.cursor": entry{"cursor", "/a"}, "entry.zed": entry{"zed", "/b"}} {
		if err := s.SetState(ctx, key, v); err != nil {
			t.Fatal(err)
		}
	}
	set, err := s.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutSettings(ctx, set); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = openAt(t, path)
	if ok, err := s.State(ctx, "starterSeeded", &seeded); !ok || err != nil || !seeded {
		t.Fatalf("after a reopen: %v, %v, %v", ok, err, seeded)
	}
	got, err := s.StatesWithPrefix(ctx, "entry.")
	if err != nil || len(got) != 2 || string(got["cursor"]) != `{"Client":"cursor","File":"/a"}` {
		t.Fatalf("by prefix: %q, %v", got, err)
	}
	if err := s.DeleteState(ctx, "entry.cursor"); err != nil {
		t.Fatal(err)
	}
	var e entry
	if ok, _ := s.State(ctx, "entry.cursor", &e); ok {
		t.Fatal("a deleted state is still there")
	}
	if ok, _ := s.State(ctx, "entry.zed", &e); !ok || !reflect.DeepEqual(e, entry{"zed", "/b"}) {
		t.Fatalf("entry.zed: %+v", e)
	}
	if after, _ := s.Settings(ctx); !reflect.DeepEqual(after, set) {
		t.Fatalf("the state changed the settings: %+v", after)
	}
}
