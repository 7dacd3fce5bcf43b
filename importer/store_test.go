package importer_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/importer"
	"github.com/mcptray/mcptray/internal/testcatalog"
	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// TestAddToolsListsEveryProblem: on a real database, a name the catalog
// has and a tool the store refuses are listed together, and a refused
// tool alone is listed as the store says it; nothing is stored either
// time, and good tools are.
func TestAddToolsListsEveryProblem(t *testing.T) {
	ctx := context.Background()
	st, err := storage.Open(filepath.Join(t.TempDir(), "mcptray.db"), mcpcore.Validator{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := importer.AddTools(ctx, st, []catalog.Tool{testcatalog.RespondTool("a", "x")}, false); err != nil {
		t.Fatal(err)
	}
	bad := testcatalog.RespondTool("b", "x")
	bad.Description = ""
	fields := func(err error) []string {
		places, ok := testcatalog.ProblemPlaces(err)
		if !ok {
			t.Fatalf("not a list of problems: %v", err)
		}
		return places
	}
	err = importer.AddTools(ctx, st, []catalog.Tool{testcatalog.RespondTool("a", "y"), bad}, false)
	if got := fields(err); !slices.Equal(got, []string{`tool "a" name`, `tool "b" description`}) {
		t.Errorf("the clash and the refused tool: %v", got)
	}
	err = importer.AddTools(ctx, st, []catalog.Tool{bad}, false)
	if got := fields(err); !slices.Equal(got, []string{`tool "b" description`}) {
		t.Errorf("the refused tool alone: %v", got)
	}
	if err := importer.AddTools(ctx, st, []catalog.Tool{testcatalog.RespondTool("c", "z")}, false); err != nil {
		t.Fatal(err)
	}
	c, err := st.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range c.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"a", "c"}) {
		t.Errorf("stored: %v", names)
	}
}
