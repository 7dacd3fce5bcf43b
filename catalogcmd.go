package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/mcptray/mcptray/mcpcore"
	"github.com/mcptray/mcptray/storage"
)

// importFile reads, validates and imports a catalog file, all or nothing.
func importFile(ctx context.Context, st *storage.Store, path string, replace bool) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("importing: %w", err)
	}
	c, err := mcpcore.ParseCatalog(b)
	if err != nil {
		return fmt.Errorf("importing %s: %w", path, err)
	}
	if err := st.Import(ctx, c, replace); err != nil {
		return fmt.Errorf("importing %s: %w", path, err)
	}
	return nil
}

func importCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs, db := newFlags("import")
	merge := fs.Bool("merge", false, "keep entries the file does not name (default: replace the catalog)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{"import needs exactly one FILE"}
	}
	st, _, err := openStore(*db)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := importFile(ctx, st, pos[0], !*merge); err != nil {
		return err
	}
	c, err := st.Export(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported %s: %d tools, %d resources, %d resource templates, %d prompts\n",
		pos[0], len(c.Tools), len(c.Resources), len(c.ResourceTemplates), len(c.Prompts))
	return nil
}

func exportCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs, db := newFlags("export")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageError{"export takes at most one FILE"}
	}
	st, _, err := openStore(*db)
	if err != nil {
		return err
	}
	defer st.Close()
	c, err := st.Export(ctx)
	if err != nil {
		return err
	}
	b, err := mcpcore.MarshalCatalog(c)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		_, err = stdout.Write(b)
		return err
	}
	if err := os.WriteFile(pos[0], b, 0o600); err != nil {
		return fmt.Errorf("exporting: %w", err)
	}
	return nil
}

// toggleCmd enables, disables or toggles a tool or prompt; the running
// server notices the edit and tells listening clients the list changed.
func toggleCmd(ctx context.Context, kind string, args []string, stdout io.Writer) error {
	fs, db := newFlags(kind)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 || (pos[0] != "enable" && pos[0] != "disable" && pos[0] != "toggle") {
		return usageError{fmt.Sprintf("usage: mcptray %s enable|disable|toggle NAME", kind)}
	}
	verb, name := pos[0], pos[1]
	st, _, err := openStore(*db)
	if err != nil {
		return err
	}
	defer st.Close()
	var disabled bool
	if kind == "tool" {
		t, err := st.Tool(ctx, name)
		if err != nil {
			return err
		}
		disabled = t.Disabled
	} else {
		p, err := st.Prompt(ctx, name)
		if err != nil {
			return err
		}
		disabled = p.Disabled
	}
	switch verb {
	case "enable":
		disabled = false
	case "disable":
		disabled = true
	default:
		disabled = !disabled
	}
	if kind == "tool" {
		err = st.SetToolDisabled(ctx, name, disabled)
	} else {
		err = st.SetPromptDisabled(ctx, name, disabled)
	}
	if err != nil {
		return err
	}
	state := "enabled"
	if disabled {
		state = "disabled"
	}
	fmt.Fprintf(stdout, "%s %s is now %s\n", kind, name, state)
	return nil
}
