package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/mcpcore"
)

// starterCatalog is what a new user's database starts with.
//
//go:embed examples/starter.json
var starterCatalog []byte

// runApp runs mcptray on the user's default database, seeding it with the
// starter catalog when it does not exist yet: the desktop app when there is
// a display, else the same server headless.
func runApp(ctx context.Context, args []string, stderr io.Writer) error {
	flags, dbFlag := newFlags("mcptray")
	showManager := flags.Bool("open", false, "open the manager window at start")
	addr := flags.String("addr", defaultAddr, "listen address; loopback only")
	if _, err := parseFlags(flags, args); err != nil {
		return err
	}
	db, err := defaultDB()
	if *dbFlag != "" {
		db, err = filepath.Abs(*dbFlag)
	}
	if err != nil {
		return err
	}
	first := false
	if _, err := os.Stat(db); errors.Is(err, fs.ErrNotExist) {
		if err := seed(ctx, db); err != nil {
			return err
		}
		first = true
		fmt.Fprintf(stderr, "mcptray: created %s with a few example tools; see them with `mcptray export`\n", db)
	}
	if !hasDisplay() {
		fmt.Fprintln(stderr, "mcptray: no display (DISPLAY/WAYLAND_DISPLAY unset): serving headless, as `mcptray serve` does; questions meant for the desktop follow the askPolicy setting (declined unless changed)")
		return serve(ctx, []string{"--addr", *addr, "--db", db}, stderr)
	}
	return runGUI(ctx, serverConfig{db: db, addr: *addr}, app.Config{Welcome: first, ShowManager: *showManager}, stderr)
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
