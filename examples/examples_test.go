package examples

import (
	"strings"
	"testing"

	"github.com/mcptray/mcptray/catalog"
	"github.com/mcptray/mcptray/mcpcore"
)

// TestStarterIsValid: the starter catalog must stay valid as the catalog
// rules evolve, or new users would start with an error.
func TestStarterIsValid(t *testing.T) {
	c, err := mcpcore.ParseCatalog(Starter)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Tools) < 4 || len(c.Prompts) == 0 {
		t.Errorf("starter catalog: %d tools, %d prompts", len(c.Tools), len(c.Prompts))
	}
}

// TestGalleryIsValid: every example of the gallery must be a valid tool
// as it is, and its name must not be the starter's: the app opens one as
// a copy, and the person adapts it from there.
func TestGalleryIsValid(t *testing.T) {
	g, err := mcpcore.ParseCatalog(Gallery)
	if err != nil {
		t.Fatal(err)
	}
	s, err := mcpcore.ParseCatalog(Starter)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Tools) < 12 {
		t.Errorf("the gallery has %d tools, want a dozen or more", len(g.Tools))
	}
	for _, tool := range g.Tools {
		if tool.Title == "" || tool.Description == "" {
			t.Errorf("%s: an example needs a title and a description, which the gallery shows", tool.Name)
		}
		for _, st := range s.Tools {
			if st.Name == tool.Name {
				t.Errorf("%s is in the starter catalog too", tool.Name)
			}
		}
	}
}

// TestOnLeavesOutWhatCannotRun: on Windows, an example tool or resource
// that runs a command without saying what runs there is left out — it
// could only fail — and every one the catalogs ship says it; elsewhere,
// and for what runs no command, everything is kept.
func TestOnLeavesOutWhatCannotRun(t *testing.T) {
	unix := &catalog.Command{Argv: []catalog.Template{"date"}}
	both := &catalog.Command{Argv: []catalog.Template{"date"}, OS: map[string]catalog.CommandLine{"windows": {Argv: []catalog.Template{"cmd", "/c", "echo %DATE%"}}}}
	c := &catalog.Catalog{
		Tools: []catalog.Tool{
			{Name: "unix_only", Action: catalog.Action{Command: unix}},
			{Name: "both", Action: catalog.Action{Command: both}},
			{Name: "web", Action: catalog.Action{HTTP: &catalog.HTTP{URL: "https://example.com"}}},
		},
		Resources: []catalog.Resource{{Name: "unix_only", Command: unix}, {Name: "text", Text: "x"}},
	}
	names := func(c *catalog.Catalog) string {
		var n []string
		for _, t := range c.Tools {
			n = append(n, t.Name)
		}
		for _, r := range c.Resources {
			n = append(n, "resource "+r.Name)
		}
		return strings.Join(n, ", ")
	}
	for goos, want := range map[string]string{
		"windows": "both, web, resource text",
		"linux":   "unix_only, both, web, resource unix_only, resource text",
		"darwin":  "unix_only, both, web, resource unix_only, resource text",
	} {
		if got := names(On(c, goos)); got != want {
			t.Errorf("on %s: %s, want %s", goos, got, want)
		}
	}
	if len(c.Tools) != 3 || len(c.Resources) != 2 {
		t.Errorf("On changed the catalog it was given: %s", names(c))
	}
	for _, src := range [][]byte{Starter, Gallery} {
		all, err := mcpcore.ParseCatalog(src)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := names(On(all, "windows")), names(all); got != want {
			t.Errorf("on Windows only %s of %s", got, want)
		}
	}
}

// TestQuestionsNameNoUnixPath: what a step asks the person (an approval's
// or a form's message) shows on every system, Windows too, where "~/…"
// is no folder: it names a folder by its name ("Downloads").
func TestQuestionsNameNoUnixPath(t *testing.T) {
	for name, b := range map[string][]byte{"starter": Starter, "gallery": Gallery} {
		c, err := mcpcore.ParseCatalog(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range c.Tools {
			for _, st := range tool.Steps {
				if strings.Contains(string(st.Message), "~/") {
					t.Errorf("%s: %s's %s step asks %q: ~/ is no folder on Windows", name, tool.Name, st.Key, st.Message)
				}
			}
		}
	}
}
