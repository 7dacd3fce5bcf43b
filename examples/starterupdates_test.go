package examples

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore"
)

// definitions returns each entry's definition as stored, in JSON, its
// Disabled flag left out.
func definitions[T any](t *testing.T, l []T, disabled func(*T) *bool) []string {
	t.Helper()
	var out []string
	for _, v := range l {
		*disabled(&v) = false
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// starterAndHistory returns this version's starter catalog and its
// history.
func starterAndHistory(t *testing.T) (*catalog.Catalog, *seeded) {
	t.Helper()
	s, err := mcpcore.ParseCatalog(Starter)
	if err != nil {
		t.Fatal(err)
	}
	h, err := readHistory()
	if err != nil {
		t.Fatal(err)
	}
	return s, h
}

// TestStarterHistoryHoldsTheStarter: every entry of this version's
// starter catalog is in its history, or a database seeded by this
// version could never be brought up to date by the next: whoever changes
// starter.json must add the new definition to starter-history.json.
func TestStarterHistoryHoldsTheStarter(t *testing.T) {
	s, h := starterAndHistory(t)
	missing := func(kind string, cur, seen []string) {
		for _, d := range cur {
			if !slices.Contains(seen, d) {
				t.Errorf("starter-history.json lacks this %s of starter.json; add it, keeping the older ones:\n%s", kind, d)
			}
		}
	}
	dis := func(t *catalog.Tool) *bool { return &t.Disabled }
	missing("tool", definitions(t, s.Tools, dis), definitions(t, h.Tools, dis))
	rdis := func(r *catalog.Resource) *bool { return &r.Disabled }
	missing("resource", definitions(t, s.Resources, rdis), definitions(t, h.Resources, rdis))
	tdis := func(r *catalog.ResourceTemplate) *bool { return &r.Disabled }
	missing("resource template", definitions(t, s.ResourceTemplates, tdis), definitions(t, h.ResourceTemplates, tdis))
	pdis := func(p *catalog.Prompt) *bool { return &p.Disabled }
	missing("prompt", definitions(t, s.Prompts, pdis), definitions(t, h.Prompts, pdis))
}

// TestStarterUpdates: an example stored as an earlier version seeded it
// comes back as this version's, disabled if it was; one the person
// changed, one already up to date and one they deleted are not touched;
// on Windows, an old example written only for Linux and macOS (seeded
// there before examples said what runs on Windows) is brought up to date
// too.
func TestStarterUpdates(t *testing.T) {
	s, h := starterAndHistory(t)
	tool := func(c *catalog.Catalog, name string) catalog.Tool {
		for _, x := range c.Tools {
			if x.Name == name {
				return x
			}
		}
		t.Fatalf("no %s", name)
		return catalog.Tool{}
	}
	first := func(name string) catalog.Tool { // as the first starter had it
		for _, x := range h.Tools {
			if x.Name == name {
				return x
			}
		}
		t.Fatalf("no %s in the history", name)
		return catalog.Tool{}
	}
	oldSearch := first("search_notes")
	oldSearch.Disabled = true
	edited := first("clean_downloads")
	edited.Description += " Mine."
	stored := &catalog.Catalog{
		Tools:     []catalog.Tool{oldSearch, edited, first("current_time"), tool(s, "github_issues")},
		Resources: s.Resources,
		Prompts:   s.Prompts,
	}
	for _, goos := range []string{"linux", "windows"} {
		up, err := StarterUpdates(s, stored, goos)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, x := range up.Tools {
			names = append(names, x.Name)
		}
		if !slices.Equal(names, []string{"current_time", "search_notes"}) || len(up.Resources)+len(up.ResourceTemplates)+len(up.Prompts) > 0 {
			t.Fatalf("%s: updates %v and %d others, want current_time and search_notes alone", goos, names, len(up.Resources)+len(up.ResourceTemplates)+len(up.Prompts))
		}
		if got := tool(up, "search_notes"); !got.Disabled || got.Action.Command.Argv[0] != "{{.server.executable}}" {
			t.Errorf("%s: search_notes came back as %+v, want this version's, disabled still", goos, got.Action.Command)
		}
		if got := tool(up, "current_time"); got.Disabled || got.Action.Command.OS["windows"].Argv == nil {
			t.Errorf("%s: current_time came back as %+v, want this version's, with its Windows line", goos, got.Action.Command)
		}
	}
}
