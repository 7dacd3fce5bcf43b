package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mcptray/mcptray/storage"
)

// TestSeedImportsTheStarterCatalog: a new database gets the embedded
// starter catalog, which must stay valid as the catalog rules evolve.
func TestSeedImportsTheStarterCatalog(t *testing.T) {
	db := filepath.Join(t.TempDir(), "mcptray.db")
	if err := seed(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	st, err := storage.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c, err := st.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Tools) < 4 || len(c.Prompts) == 0 {
		t.Errorf("starter catalog: %d tools, %d prompts", len(c.Tools), len(c.Prompts))
	}
}
