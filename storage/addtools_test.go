package storage

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testcatalog"
)

// TestAddToolsAllOrNothing: tools handed one by one are stored, replacing
// a tool of the same name; a refused tool among many (after hundreds were
// written), a name given twice, or an error of the producer changes
// nothing, and every problem is listed, the producer's first.
func TestAddToolsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if err := s.PutTool(ctx, greetTool("keep", "stays")); err != nil {
		t.Fatal(err)
	}
	if err := s.PutTool(ctx, greetTool("t0", "replaced")); err != nil {
		t.Fatal(err)
	}
	many := func(add func(catalog.Tool)) {
		for i := range 300 {
			add(greetTool(fmt.Sprintf("t%d", i), "new"))
		}
	}
	bad := greetTool("bad", "")
	stored := func() []string {
		c, err := s.Catalog(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tl := range c.Tools {
			out = append(out, tl.Name+":"+tl.Description)
		}
		return out
	}
	before := stored()
	problems := func(err error) []string {
		places, ok := testcatalog.ProblemPlaces(err)
		if !ok {
			t.Fatalf("not a list of problems: %v", err)
		}
		return places
	}
	for _, tc := range []struct {
		name    string
		produce func(add func(catalog.Tool)) error
		want    []string
	}{
		{"a refused tool", func(add func(catalog.Tool)) error { many(add); add(bad); return nil }, []string{`tool "bad" description`}},
		{"a name twice", func(add func(catalog.Tool)) error { many(add); add(greetTool("t1", "again")); return nil }, []string{`tool "t1" `}},
		{"the producer's problems", func(add func(catalog.Tool)) error {
			many(add)
			add(bad)
			return &catalog.ValidationError{Problems: []catalog.Problem{{Entry: "operation x", Message: "no"}}}
		}, []string{"operation x ", `tool "bad" description`}},
	} {
		if got := problems(s.AddTools(ctx, tc.produce)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: problems %q, want %q", tc.name, got, tc.want)
		}
		if got := stored(); !slices.Equal(got, before) {
			t.Errorf("%s: stored %d tools, want the %d there before", tc.name, len(got), len(before))
		}
	}
	if err := s.AddTools(ctx, func(add func(catalog.Tool)) error { many(add); return errors.New("the spec went away") }); err == nil || err.Error() != "the spec went away" {
		t.Errorf("the producer's error: %v", err)
	}
	if got := stored(); !slices.Equal(got, before) {
		t.Errorf("after the producer's error: stored %d tools, want the %d there before", len(got), len(before))
	}
	if err := s.AddTools(ctx, func(add func(catalog.Tool)) error { many(add); return nil }); err != nil {
		t.Fatal(err)
	}
	got := stored()
	if len(got) != 301 || !slices.Contains(got, "keep:stays") || !slices.Contains(got, "t0:new") {
		t.Errorf("stored %d tools (%v…), want the 300 new ones and keep", len(got), got[:min(3, len(got))])
	}
}
