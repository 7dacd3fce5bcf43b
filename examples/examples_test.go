package examples

import (
	"testing"

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
