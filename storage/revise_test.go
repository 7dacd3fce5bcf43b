package storage

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/mcptray/mcptray/catalog"
)

// TestRevise: revise sees the stored entries under the keys asked (not
// the others, and nothing for a key not stored); what it returns is
// stored over them; an invalid entry or a failing revise changes nothing.
func TestRevise(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if err := s.Import(ctx, &catalog.Catalog{
		Tools:     []catalog.Tool{greetTool("greet", "Greets."), commandTool("ls"), greetTool("other", "Other.")},
		Resources: []catalog.Resource{readmeResource("file:///readme")},
		Prompts:   []catalog.Prompt{reviewPrompt("review")},
	}, false); err != nil {
		t.Fatal(err)
	}
	want := &catalog.Catalog{
		Tools:     []catalog.Tool{{Name: "ls"}, {Name: "greet"}, {Name: "absent"}},
		Resources: []catalog.Resource{{URI: "file:///readme"}},
	}
	before := dump(t, s)

	var seen []string
	err := s.Revise(ctx, want, func(stored *catalog.Catalog) (*catalog.Catalog, error) {
		for _, x := range stored.Tools {
			seen = append(seen, x.Name)
		}
		for _, x := range stored.Resources {
			seen = append(seen, x.URI)
		}
		seen = append(seen, "prompts:")
		for _, x := range stored.Prompts {
			seen = append(seen, x.Name)
		}
		bad := stored.Tools[0]
		bad.Description = "Changed."
		bad.Action = catalog.Action{}
		return &catalog.Catalog{Tools: []catalog.Tool{bad}}, nil
	})
	if !slices.Equal(seen, []string{"greet", "ls", "file:///readme", "prompts:"}) {
		t.Errorf("revise saw %v, want greet, ls and file:///readme", seen)
	}
	if ve := (*catalog.ValidationError)(nil); !errors.As(err, &ve) {
		t.Errorf("a tool without an action: %v, want a validation error", err)
	}
	if got := dump(t, s); got != before {
		t.Errorf("an invalid revision changed the catalog:\n%s", got)
	}

	failed := errors.New("no")
	if err := s.Revise(ctx, want, func(*catalog.Catalog) (*catalog.Catalog, error) {
		return &catalog.Catalog{Tools: []catalog.Tool{greetTool("greet", "Changed.")}}, failed
	}); !errors.Is(err, failed) || dump(t, s) != before {
		t.Errorf("a failing revise: %v, changed: %v", err, dump(t, s) != before)
	}

	// Nothing to change: nothing is reported as changed (the server
	// revises the examples on each start); a change is reported.
	changes := s.Changes(ctx)
	if err := s.Revise(ctx, want, func(*catalog.Catalog) (*catalog.Catalog, error) { return &catalog.Catalog{}, nil }); err != nil {
		t.Fatal(err)
	}
	if receive(changes, 200*time.Millisecond) {
		t.Error("a revision that changed nothing was reported as a change")
	}
	if err := s.Revise(ctx, want, func(stored *catalog.Catalog) (*catalog.Catalog, error) {
		g := stored.Tools[0]
		g.Description = "Greets warmly."
		return &catalog.Catalog{Tools: []catalog.Tool{g}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	if !receive(changes, wait) {
		t.Error("a revision was not reported as a change")
	}
	c, err := s.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Tools) != 3 || c.Tools[0].Name != "greet" || c.Tools[0].Description != "Greets warmly." || c.Tools[2].Description != "Other." {
		t.Errorf("after a revision: %+v", c.Tools)
	}
}
