package storage

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/mcptray/mcptray/catalog"
)

// saveCase drives one kind's Save method: entries of it differ only by
// key (and by what the editor made of the Disabled flag).
type saveCase struct {
	kind     string
	keys     [2]string // two valid keys
	keyField string
	taken    string // the refusal of keys[0] when it is taken
	// save stores the entry keyed key in place of the one under old; it
	// returns the stored entry's Disabled flag.
	save        func(s *Store, old, key string, disabled bool) (bool, error)
	disabled    func(s *Store, key string) (bool, error)
	setDisabled func(s *Store, key string, disabled bool) error
}

func saveCases() []saveCase {
	ctx := context.Background()
	return []saveCase{
		{
			kind: "tool", keys: [2]string{"greet", "hello"}, keyField: "name", taken: `a tool named "greet" exists already`,
			save: func(s *Store, old, key string, d bool) (bool, error) {
				t := greetTool(key, "Greets.")
				t.Disabled = d
				t, err := s.SaveTool(ctx, old, t, nil)
				return t.Disabled, err
			},
			disabled:    func(s *Store, key string) (bool, error) { t, err := s.Tool(ctx, key); return t.Disabled, err },
			setDisabled: func(s *Store, key string, d bool) error { return s.SetToolDisabled(ctx, key, d) },
		},
		{
			kind: "resource", keys: [2]string{"notes://a", "notes://b"}, keyField: "uri", taken: "a resource with this URI exists already",
			save: func(s *Store, old, key string, d bool) (bool, error) {
				r := readmeResource(key)
				r.Disabled = d
				r, err := s.SaveResource(ctx, old, r)
				return r.Disabled, err
			},
			disabled:    func(s *Store, key string) (bool, error) { r, err := s.Resource(ctx, key); return r.Disabled, err },
			setDisabled: func(s *Store, key string, d bool) error { return s.SetResourceDisabled(ctx, key, d) },
		},
		{
			kind: "resource template", keys: [2]string{"file:///a/{path}", "file:///b/{path}"}, keyField: "uriTemplate",
			taken: "a resource template with this URI template exists already",
			save: func(s *Store, old, key string, d bool) (bool, error) {
				rt := notesTemplate(key, "/srv/notes")
				rt.Disabled = d
				rt, err := s.SaveResourceTemplate(ctx, old, rt)
				return rt.Disabled, err
			},
			disabled: func(s *Store, key string) (bool, error) {
				rt, err := s.ResourceTemplate(ctx, key)
				return rt.Disabled, err
			},
			setDisabled: func(s *Store, key string, d bool) error { return s.SetResourceTemplateDisabled(ctx, key, d) },
		},
		{
			kind: "prompt", keys: [2]string{"review", "critique"}, keyField: "name", taken: `a prompt named "review" exists already`,
			save: func(s *Store, old, key string, d bool) (bool, error) {
				p := reviewPrompt(key)
				p.Disabled = d
				p, err := s.SavePrompt(ctx, old, p)
				return p.Disabled, err
			},
			disabled:    func(s *Store, key string) (bool, error) { p, err := s.Prompt(ctx, key); return p.Disabled, err },
			setDisabled: func(s *Store, key string, d bool) error { return s.SetPromptDisabled(ctx, key, d) },
		},
	}
}

func TestSaveRenames(t *testing.T) {
	t.Parallel()
	for _, tc := range saveCases() {
		t.Run(tc.kind, func(t *testing.T) {
			s := openTest(t)
			a, b := tc.keys[0], tc.keys[1]
			if _, err := tc.save(s, "", a, false); err != nil {
				t.Fatalf("save new: %v", err)
			}
			if _, err := tc.save(s, a, a, false); err != nil {
				t.Fatalf("save unchanged key: %v", err)
			}
			if _, err := tc.save(s, a, b, false); err != nil {
				t.Fatalf("rename: %v", err)
			}
			if _, err := tc.disabled(s, a); !errors.Is(err, ErrNotFound) {
				t.Errorf("the old key after the rename: %v, want ErrNotFound", err)
			}
			if _, err := tc.disabled(s, b); err != nil {
				t.Errorf("the new key after the rename: %v", err)
			}
			// An entry deleted while its editor was open comes back as
			// it was saved.
			if _, err := tc.save(s, a, a, false); err != nil {
				t.Fatalf("save under a vanished key: %v", err)
			}
			if _, err := tc.disabled(s, a); err != nil {
				t.Errorf("the saved entry: %v", err)
			}
		})
	}
}

func TestSaveKeepsTheStoredDisabledFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range saveCases() {
		t.Run(tc.kind, func(t *testing.T) {
			s := openTest(t)
			a, b := tc.keys[0], tc.keys[1]
			if _, err := tc.save(s, "", a, false); err != nil {
				t.Fatal(err)
			}
			// The list's toggle, while an editor holds the entry enabled.
			if err := tc.setDisabled(s, a, true); err != nil {
				t.Fatal(err)
			}
			if d, err := tc.save(s, a, a, false); err != nil || !d {
				t.Fatalf("save returned disabled %v, %v", d, err)
			}
			if d, err := tc.disabled(s, a); err != nil || !d {
				t.Fatalf("stored disabled %v, %v after a save", d, err)
			}
			// Renamed, too.
			if d, err := tc.save(s, a, b, false); err != nil || !d {
				t.Fatalf("rename returned disabled %v, %v", d, err)
			}
			if d, err := tc.disabled(s, b); err != nil || !d {
				t.Fatalf("stored disabled %v, %v after a rename", d, err)
			}
			// And the other way round.
			if err := tc.setDisabled(s, b, false); err != nil {
				t.Fatal(err)
			}
			if d, err := tc.save(s, b, b, true); err != nil || d {
				t.Fatalf("save disabled the entry: %v, %v", d, err)
			}
			// A new entry is stored as given.
			if d, err := tc.save(s, "", a, true); err != nil || !d {
				t.Fatalf("new entry: disabled %v, %v", d, err)
			}
		})
	}
}

func TestSaveRefusesATakenKey(t *testing.T) {
	t.Parallel()
	for _, tc := range saveCases() {
		t.Run(tc.kind, func(t *testing.T) {
			s := openTest(t)
			ctx := context.Background()
			a, b := tc.keys[0], tc.keys[1]
			for _, k := range tc.keys {
				if _, err := tc.save(s, "", k, false); err != nil {
					t.Fatal(err)
				}
			}
			before := dump(t, s)
			changes := s.Changes(ctx)
			for _, old := range []string{b, ""} { // a rename, a new entry
				_, err := tc.save(s, old, a, false)
				var ve *catalog.ValidationError
				if !errors.As(err, &ve) {
					t.Fatalf("save %q as %q: %v, want a *catalog.ValidationError", old, a, err)
				}
				want := []catalog.Problem{{Entry: tc.kind + ` "` + a + `"`, Field: tc.keyField, Message: tc.taken}}
				if !reflect.DeepEqual(ve.Problems, want) {
					t.Errorf("save %q as %q: problems %+v, want %+v", old, a, ve.Problems, want)
				}
			}
			if after := dump(t, s); after != before {
				t.Errorf("database changed:\nbefore %s\nafter  %s", before, after)
			}
			select {
			case <-changes:
				t.Error("Changes fired for a refused save")
			default:
			}
		})
	}
}

// allowlists are the tokens' tool allowlists, by token name.
func allowlists(t *testing.T, s *Store) map[string][]string {
	t.Helper()
	toks, err := s.ListTokens(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, tk := range toks {
		out[tk.Name] = tk.Tools
	}
	return out
}

func TestSaveToolRewritesAllowlists(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	for _, name := range []string{"lookup", "other"} {
		if err := s.PutTool(ctx, greetTool(name, "Greets.")); err != nil {
			t.Fatal(err)
		}
	}
	for name, tools := range map[string][]string{"everything": nil, "narrow": {"lookup", "other"}, "none": {}, "elsewhere": {"other"}} {
		if _, err := s.CreateToken(ctx, name, tools); err != nil {
			t.Fatal(err)
		}
	}
	check := func(step string, want map[string][]string) {
		t.Helper()
		if got := allowlists(t, s); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: allowlists %#v, want %#v", step, got, want)
		}
	}

	// Renamed, the tool stays in the allowlists it was in, under its new
	// name; the others are left as they were.
	if _, err := s.SaveTool(ctx, "lookup", greetTool("find", "Finds."), nil); err != nil {
		t.Fatal(err)
	}
	check("rename", map[string][]string{"everything": nil, "narrow": {"find", "other"}, "none": {}, "elsewhere": {"other"}})

	// Access adds and removes; a token with no allowlist stays so, and
	// one that is not named keeps what it had.
	access := ToolAccess{"narrow": false, "none": true, "everything": false}
	if _, err := s.SaveTool(ctx, "find", greetTool("find", "Finds."), access); err != nil {
		t.Fatal(err)
	}
	check("access", map[string][]string{"everything": nil, "narrow": {"other"}, "none": {"find"}, "elsewhere": {"other"}})

	// Renamed with access at once; the last tool of an allowlist goes:
	// the token then sees none, not all.
	if _, err := s.SaveTool(ctx, "find", greetTool("search", "Searches."), ToolAccess{"none": false, "elsewhere": true}); err != nil {
		t.Fatal(err)
	}
	check("rename with access", map[string][]string{"everything": nil, "narrow": {"other"}, "none": {}, "elsewhere": {"other", "search"}})

	// A new tool is seen by the tokens access names only.
	if _, err := s.SaveTool(ctx, "", greetTool("fresh", "New."), ToolAccess{"narrow": true}); err != nil {
		t.Fatal(err)
	}
	check("new tool", map[string][]string{"everything": nil, "narrow": {"fresh", "other"}, "none": {}, "elsewhere": {"other", "search"}})

	// Deleted, it leaves every allowlist: a tool made later under its name
	// is not seen by tokens that saw this one.
	if err := s.DeleteTool(ctx, "search"); err != nil {
		t.Fatal(err)
	}
	check("delete", map[string][]string{"everything": nil, "narrow": {"fresh", "other"}, "none": {}, "elsewhere": {"other"}})
	if err := s.DeleteTool(ctx, "search"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete again: %v, want ErrNotFound", err)
	}
}

func TestSaveToolIsOneTransaction(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	for _, name := range []string{"lookup", "other"} {
		if err := s.PutTool(ctx, greetTool(name, "Greets.")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.CreateToken(ctx, "narrow", []string{"lookup"}); err != nil {
		t.Fatal(err)
	}

	// A taken name: refused before anything is written.
	before := dump(t, s)
	if _, err := s.SaveTool(ctx, "lookup", greetTool("other", "Greets."), ToolAccess{"narrow": false}); err == nil {
		t.Fatal("renamed onto a taken name")
	}
	if after := dump(t, s); after != before {
		t.Errorf("a refused rename changed the database:\nbefore %s\nafter  %s", before, after)
	}

	// A failure after the tool is written and the old name deleted (an
	// allowlist that cannot be read) undoes both.
	if _, err := s.CreateToken(ctx, "broken", []string{"other"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE tokens SET tools = '{"not": "a list"}' WHERE name = 'broken'`); err != nil {
		t.Fatal(err)
	}
	before = dump(t, s)
	_, err := s.SaveTool(ctx, "lookup", greetTool("find", "Finds."), nil)
	if err == nil {
		t.Fatal("saved with an allowlist that cannot be read")
	}
	if after := dump(t, s); after != before {
		t.Errorf("a failed rename changed the database:\nbefore %s\nafter  %s", before, after)
	}
	if _, err := s.Tool(ctx, "lookup"); err != nil {
		t.Errorf("the old tool is gone: %v", err)
	}
	// Deleting fails the same way, whole.
	if err := s.DeleteTool(ctx, "lookup"); err == nil {
		t.Fatal("deleted with an allowlist that cannot be read")
	}
	if _, err := s.Tool(ctx, "lookup"); err != nil {
		t.Errorf("the tool is gone after a failed delete: %v", err)
	}
}

func TestSaveRefusesAnInvalidEntry(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	before := dump(t, s)
	var ve *catalog.ValidationError
	if _, err := s.SaveTool(ctx, "", greetTool("bad name!", ""), nil); !errors.As(err, &ve) {
		t.Errorf("SaveTool(invalid) = %v, want *catalog.ValidationError", err)
	}
	if _, err := s.SavePrompt(ctx, "", catalog.Prompt{Name: "empty"}); !errors.As(err, &ve) {
		t.Errorf("SavePrompt(invalid) = %v, want *catalog.ValidationError", err)
	}
	if _, err := s.SaveResource(ctx, "", catalog.Resource{URI: "no-scheme"}); !errors.As(err, &ve) {
		t.Errorf("SaveResource(invalid) = %v, want *catalog.ValidationError", err)
	}
	if _, err := s.SaveResourceTemplate(ctx, "", notesTemplate("file:///notes/{path}", "relative/dir")); !errors.As(err, &ve) {
		t.Errorf("SaveResourceTemplate(invalid) = %v, want *catalog.ValidationError", err)
	}
	if after := dump(t, s); after != before {
		t.Errorf("database changed:\nbefore %s\nafter  %s", before, after)
	}
}
