package storage

import (
	"context"
	"errors"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
)

// crudCase drives the same round trip through one kind's methods.
type crudCase struct {
	kind        string
	key         string
	put         func(s *Store, changed bool) error // changed: store the edited variant
	get         func(s *Store) (any, error)
	want        func(changed, disabled bool) any
	setDisabled func(s *Store, key string, disabled bool) error
	del         func(s *Store, key string) error
	inCatalog   func(c *catalog.Catalog) int
}

func crudCases() []crudCase {
	ctx := context.Background()
	tool := func(changed, disabled bool) catalog.Tool {
		t := greetTool("greet", "Greets someone by name.")
		if changed {
			t = commandTool("greet")
		}
		t.Disabled = disabled
		return t
	}
	resource := func(changed, disabled bool) catalog.Resource {
		r := readmeResource("notes://readme")
		if changed {
			r.Text, r.Blob, r.MimeType = "", "aGVsbG8=", "application/octet-stream"
		}
		r.Disabled = disabled
		return r
	}
	template := func(changed, disabled bool) catalog.ResourceTemplate {
		rt := notesTemplate("file:///notes/{path}", "/srv/notes")
		if changed {
			rt.Folder, rt.Text, rt.Completions = "", "Note {{.args.path}}", nil
		}
		rt.Disabled = disabled
		return rt
	}
	prompt := func(changed, disabled bool) catalog.Prompt {
		p := reviewPrompt("review")
		if changed {
			p.Title = "Code review"
			p.Messages = append(p.Messages, catalog.PromptMessage{Role: "assistant", Content: p.Messages[0].Content})
		}
		p.Disabled = disabled
		return p
	}
	return []crudCase{
		{
			kind: "tool", key: "greet",
			put:         func(s *Store, c bool) error { return s.PutTool(ctx, tool(c, false)) },
			get:         func(s *Store) (any, error) { return s.Tool(ctx, "greet") },
			want:        func(c, d bool) any { return tool(c, d) },
			setDisabled: func(s *Store, k string, d bool) error { return s.SetToolDisabled(ctx, k, d) },
			del:         func(s *Store, k string) error { return s.DeleteTool(ctx, k) },
			inCatalog:   func(c *catalog.Catalog) int { return len(c.Tools) },
		},
		{
			kind: "resource", key: "notes://readme",
			put:         func(s *Store, c bool) error { return s.PutResource(ctx, resource(c, false)) },
			get:         func(s *Store) (any, error) { return s.Resource(ctx, "notes://readme") },
			want:        func(c, d bool) any { return resource(c, d) },
			setDisabled: func(s *Store, k string, d bool) error { return s.SetResourceDisabled(ctx, k, d) },
			del:         func(s *Store, k string) error { return s.DeleteResource(ctx, k) },
			inCatalog:   func(c *catalog.Catalog) int { return len(c.Resources) },
		},
		{
			kind: "resource template", key: "file:///notes/{path}",
			put:         func(s *Store, c bool) error { return s.PutResourceTemplate(ctx, template(c, false)) },
			get:         func(s *Store) (any, error) { return s.ResourceTemplate(ctx, "file:///notes/{path}") },
			want:        func(c, d bool) any { return template(c, d) },
			setDisabled: func(s *Store, k string, d bool) error { return s.SetResourceTemplateDisabled(ctx, k, d) },
			del:         func(s *Store, k string) error { return s.DeleteResourceTemplate(ctx, k) },
			inCatalog:   func(c *catalog.Catalog) int { return len(c.ResourceTemplates) },
		},
		{
			kind: "prompt", key: "review",
			put:         func(s *Store, c bool) error { return s.PutPrompt(ctx, prompt(c, false)) },
			get:         func(s *Store) (any, error) { return s.Prompt(ctx, "review") },
			want:        func(c, d bool) any { return prompt(c, d) },
			setDisabled: func(s *Store, k string, d bool) error { return s.SetPromptDisabled(ctx, k, d) },
			del:         func(s *Store, k string) error { return s.DeletePrompt(ctx, k) },
			inCatalog:   func(c *catalog.Catalog) int { return len(c.Prompts) },
		},
	}
}

func TestCRUDRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range crudCases() {
		t.Run(tc.kind, func(t *testing.T) {
			s := openTest(t)
			check := func(step string, changed, disabled bool) {
				t.Helper()
				got, err := tc.get(s)
				if err != nil {
					t.Fatalf("%s: get: %v", step, err)
				}
				if g, w := testutil.MustJSON(t, got), testutil.MustJSON(t, tc.want(changed, disabled)); g != w {
					t.Errorf("%s:\n got %s\nwant %s", step, g, w)
				}
			}
			if _, err := tc.get(s); !errors.Is(err, ErrNotFound) {
				t.Fatalf("get before put: %v, want ErrNotFound", err)
			}
			if err := tc.put(s, false); err != nil {
				t.Fatalf("put: %v", err)
			}
			check("after put", false, false)
			if err := tc.put(s, true); err != nil {
				t.Fatalf("put edited: %v", err)
			}
			check("after upsert", true, false)
			if err := tc.setDisabled(s, tc.key, true); err != nil {
				t.Fatalf("disable: %v", err)
			}
			check("after disable", true, true)
			if err := tc.setDisabled(s, tc.key, false); err != nil {
				t.Fatalf("enable: %v", err)
			}
			check("after enable", true, false)
			c, err := s.Catalog(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if n := tc.inCatalog(c); n != 1 {
				t.Errorf("catalog holds %d, want 1", n)
			}
			if c.Format != catalog.CatalogFormat || c.Version != catalog.CatalogVersion {
				t.Errorf("catalog format %q version %d", c.Format, c.Version)
			}
			if err := tc.del(s, tc.key); err != nil {
				t.Fatalf("delete: %v", err)
			}
			if _, err := tc.get(s); !errors.Is(err, ErrNotFound) {
				t.Errorf("get after delete: %v, want ErrNotFound", err)
			}
			if err := tc.del(s, tc.key); !errors.Is(err, ErrNotFound) {
				t.Errorf("delete again: %v, want ErrNotFound", err)
			}
			if err := tc.setDisabled(s, tc.key, true); !errors.Is(err, ErrNotFound) {
				t.Errorf("disable missing: %v, want ErrNotFound", err)
			}
		})
	}
}

func TestPutInvalidWritesNothing(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	if err := s.PutTool(ctx, greetTool("keep", "Stays.")); err != nil {
		t.Fatal(err)
	}
	before := dump(t, s)
	changes := s.Changes(ctx)

	bad := greetTool("bad name!", "")
	err := s.PutTool(ctx, bad)
	var ve *catalog.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("PutTool(invalid) = %v, want *catalog.ValidationError", err)
	}
	fields := map[string]bool{}
	for _, p := range ve.Problems {
		fields[p.Field] = true
	}
	if !fields["name"] || !fields["description"] {
		t.Errorf("problems %v: want both name and description", ve.Problems)
	}
	if err := s.PutPrompt(ctx, catalog.Prompt{Name: "empty"}); !errors.As(err, &ve) {
		t.Errorf("PutPrompt(invalid) = %v, want *catalog.ValidationError", err)
	}
	if err := s.PutResource(ctx, catalog.Resource{URI: "no-scheme"}); !errors.As(err, &ve) {
		t.Errorf("PutResource(invalid) = %v, want *catalog.ValidationError", err)
	}
	if err := s.PutResourceTemplate(ctx, notesTemplate("file:///notes/{path}", "relative/dir")); !errors.As(err, &ve) {
		t.Errorf("PutResourceTemplate(invalid) = %v, want *catalog.ValidationError", err)
	}
	if after := dump(t, s); after != before {
		t.Errorf("database changed:\nbefore %s\nafter  %s", before, after)
	}
	select {
	case <-changes:
		t.Error("Changes fired for a rejected write")
	default:
	}
}

func TestCatalogSorted(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	for _, name := range []string{"charlie", "alpha", "bravo"} {
		if err := s.PutTool(ctx, greetTool(name, "Greets.")); err != nil {
			t.Fatal(err)
		}
		if err := s.PutPrompt(ctx, reviewPrompt(name)); err != nil {
			t.Fatal(err)
		}
		if err := s.PutResource(ctx, readmeResource("notes://"+name)); err != nil {
			t.Fatal(err)
		}
	}
	c, err := s.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"alpha", "bravo", "charlie"}
	for i, w := range want {
		if c.Tools[i].Name != w || c.Prompts[i].Name != w || c.Resources[i].URI != "notes://"+w {
			t.Errorf("entry %d: tool %q prompt %q resource %q, want %q", i, c.Tools[i].Name, c.Prompts[i].Name, c.Resources[i].URI, w)
		}
	}
}
