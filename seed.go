package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/mcptray/mcptray/mcpcore"
)

// starterCatalog is what a new user's database starts with.
//
//go:embed examples/starter.json
var starterCatalog []byte

// runApp runs mcptray on the user's default database, seeding it with the
// starter catalog when it does not exist yet.
func runApp(ctx context.Context, stderr io.Writer) error {
	db, err := defaultDB()
	if err != nil {
		return err
	}
	if _, err := os.Stat(db); errors.Is(err, fs.ErrNotExist) {
		if err := seed(ctx, db); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "mcptray: created %s with a few example tools; see them with `mcptray export`\n", db)
	}
	return serve(ctx, nil, stderr)
}

// seed creates the database at path and imports the starter catalog.
func seed(ctx context.Context, path string) error {
	c, err := mcpcore.ParseCatalog(starterCatalog)
	if err != nil {
		return fmt.Errorf("the built-in starter catalog: %w", err)
	}
	st, _, err := openStore(path)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Import(ctx, c, true); err != nil {
		return fmt.Errorf("seeding %s: %w", path, err)
	}
	return nil
}
