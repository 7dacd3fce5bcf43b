package storage

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mcptray/mcptray/record"
)

// TestProcessGroupsOutliveTheStore: a recorded group is still there for the
// next Store on the database (as after a crash) until it is taken; a
// forgotten one is not.
func TestProcessGroupsOutliveTheStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "p.db")
	s := openAt(t, path)
	a := record.ProcessGroup{ID: 4242, Started: 1 << 40, Program: "sleep"}
	b := record.ProcessGroup{ID: 77, Started: 9, Program: "sh"}
	for _, g := range []record.ProcessGroup{a, b} {
		if err := s.AddProcessGroup(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RemoveProcessGroup(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openAt(t, path)
	got, err := s.TakeProcessGroups(ctx)
	if err != nil || !reflect.DeepEqual(got, []record.ProcessGroup{a}) {
		t.Fatalf("TakeProcessGroups = %+v, %v; want only %+v", got, err, a)
	}
	if got, err := s.TakeProcessGroups(ctx); err != nil || len(got) != 0 {
		t.Fatalf("taken twice: %+v, %v", got, err)
	}
}
