package storage

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/internal/testutil"
)

// seed stores a small catalog and returns it.
func seed(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	if err := s.PutTool(ctx, greetTool("greet", "Old description.")); err != nil {
		t.Fatal(err)
	}
	if err := s.PutResource(ctx, readmeResource("notes://readme")); err != nil {
		t.Fatal(err)
	}
	if err := s.PutPrompt(ctx, reviewPrompt("review")); err != nil {
		t.Fatal(err)
	}
}

func names(c *catalog.Catalog) string {
	var out []string
	for _, t := range c.Tools {
		out = append(out, "tool:"+t.Name)
	}
	for _, r := range c.Resources {
		out = append(out, "resource:"+r.URI)
	}
	for _, rt := range c.ResourceTemplates {
		out = append(out, "template:"+rt.URITemplate)
	}
	for _, p := range c.Prompts {
		out = append(out, "prompt:"+p.Name)
	}
	return strings.Join(out, " ")
}

func TestImportReplace(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	seed(t, s)
	in := &catalog.Catalog{
		Format: catalog.CatalogFormat, Version: catalog.CatalogVersion,
		Tools:             []catalog.Tool{commandTool("ls"), greetTool("greet", "New description.")},
		ResourceTemplates: []catalog.ResourceTemplate{notesTemplate("file:///notes/{path}", "/srv/notes")},
	}
	if err := s.Import(ctx, in, true); err != nil {
		t.Fatal(err)
	}
	got, err := s.Export(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n, want := names(got), "tool:greet tool:ls template:file:///notes/{path}"; n != want {
		t.Errorf("after replace: %s, want %s", n, want)
	}
	if got.Tools[0].Description != "New description." {
		t.Errorf("greet description %q", got.Tools[0].Description)
	}
	// Exported catalogs import back to the same thing.
	if err := s.Import(ctx, got, true); err != nil {
		t.Fatal(err)
	}
	again, err := s.Export(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if testutil.MustJSON(t, again) != testutil.MustJSON(t, got) {
		t.Errorf("round trip differs:\n%s\n%s", testutil.MustJSON(t, again), testutil.MustJSON(t, got))
	}
}

func TestImportMerge(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	seed(t, s)
	in := &catalog.Catalog{
		Tools:   []catalog.Tool{greetTool("greet", "New description."), commandTool("ls")},
		Prompts: []catalog.Prompt{reviewPrompt("summarize")},
	}
	if err := s.Import(ctx, in, false); err != nil {
		t.Fatal(err)
	}
	got, err := s.Export(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n, want := names(got), "tool:greet tool:ls resource:notes://readme prompt:review prompt:summarize"; n != want {
		t.Errorf("after merge: %s, want %s", n, want)
	}
	if got.Tools[0].Description != "New description." {
		t.Errorf("greet not replaced: %q", got.Tools[0].Description)
	}
}

func TestImportInvalidChangesNothing(t *testing.T) {
	t.Parallel()
	in := &catalog.Catalog{
		Tools: []catalog.Tool{
			greetTool("bad name", "Has a space in its name."),
			greetTool("dup", "First."),
			greetTool("dup", "Second."),
			func() catalog.Tool {
				tl := commandTool("schema")
				tl.InputSchema = json.RawMessage(`{"type":"string"}`)
				return tl
			}(),
			greetTool("fine", "Valid, but must not be written either."),
		},
		ResourceTemplates: []catalog.ResourceTemplate{notesTemplate("file:///etc/{path}", "/srv/notes/../../etc")},
	}
	want := []struct{ entry, field string }{
		{`tool "bad name"`, "name"},
		{`tool "dup"`, ""},
		{`tool "schema"`, "inputSchema"},
		{`resource template "file:///etc/{path}"`, "folder"},
	}
	for _, replace := range []bool{true, false} {
		s := openTest(t)
		ctx := context.Background()
		seed(t, s)
		before := dump(t, s)
		exportBefore, err := s.Export(ctx)
		if err != nil {
			t.Fatal(err)
		}
		err = s.Import(ctx, in, replace)
		var ve *catalog.ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("replace=%v: Import = %v, want *catalog.ValidationError", replace, err)
		}
		for _, w := range want {
			found := false
			for _, p := range ve.Problems {
				if p.Entry == w.entry && (w.field == "" || p.Field == w.field) {
					found = true
				}
			}
			if !found {
				t.Errorf("replace=%v: no problem for %s %s in:\n%v", replace, w.entry, w.field, err)
			}
		}
		exportAfter, err := s.Export(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if testutil.MustJSON(t, exportAfter) != testutil.MustJSON(t, exportBefore) {
			t.Errorf("replace=%v: export changed", replace)
		}
		if after := dump(t, s); after != before {
			t.Errorf("replace=%v: database changed:\nbefore %s\nafter  %s", replace, before, after)
		}
	}
}

func TestImportWrongFormat(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	err := s.Import(context.Background(), &catalog.Catalog{Format: "something-else", Version: 7}, false)
	var ve *catalog.ValidationError
	if !errors.As(err, &ve) || len(ve.Problems) != 2 {
		t.Errorf("Import(wrong format) = %v, want format and version problems", err)
	}
}
