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
